"""nasarena's image-reading proxies on every unique NB201 cell: the values behind the all-cells
column of the published correlations (:func:`.suite_zero_agreement.published_like_with_like`).

Why: Abdelfattah et al. publish |rho| over all 15,625 NB201 cells, so ours can stand beside it
only with a value for every cell. The embedded table (:mod:`nasarena.estimators.embedded`) holds
the data-free proxies; the ones that read the CIFAR-10 minibatch cost seconds per cell, hours in
all, so their values are computed once and saved in the repository: tables that ``nasarena
estimators compute`` writes (:func:`command`: seed 0, the proxies' paper batch), resumable, each
filled in a seeded random order of the 6,466 unique cells (one per class of NB201's
de-duplication; each duplicate cell takes its class representative's value), leaving out the
classes the other table holds (``--beside``; the rows computed before that option existed
overlap, and show how the two devices agree).

Two tables, the same settings but the device (:data:`TABLES`): one computed on a CPU (one torch
thread), which anyone can extend, and one on a CUDA GPU (in IEEE float32 with deterministic
kernels, :func:`nasarena.training.device.exact_float32`), where the same cells cost a fraction of
the time. A class takes the CPU table's value where it has one, else the GPU table's. The two
devices sum in other orders, so their values differ in the last digits, and more for GRASP,
whose sum of products cancels; :func:`backend_agreement` measures how much on every class both
hold, and the page prints it beside the column. While the
tables are being computed the classes they hold together are a uniform sample (each table's
order is seeded, and independent of the cells' values), and the column says how many.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataFileError
from .reproduce.common import SAVED_DATA

#: The proxies computed: those of Abdelfattah et al.'s published NB201 column that read images.
COMPUTED = ("snip", "grasp", "fisher", "grad_norm", "jacob_cov")
#: The saved tables by the device kind that computed them, in the order a class takes its value.
TABLES = {"cpu": SAVED_DATA / "nb201-unique-cifar10-minibatch.parquet",
          "cuda": SAVED_DATA / "nb201-unique-cifar10-minibatch-gpu.parquet"}
#: How the column's source names each table's device.
COMPUTED_ON = {"cpu": "on a CPU", "cuda": "on a GPU"}
#: The settings both tables must have been computed with, besides their device (the rest is the
#: data's and the machine's).
EXPECTED = {"space": "nb201", "unique": True, "seed": 0, "sample": None, "image_size": 32,
            "proxies": list(COMPUTED)}
#: A relative difference of the two tables' values counted as one (0.1 %).
TOLERANCE = 1e-3


def command(device: str = "cpu") -> str:
    """What extends the table of ``device`` (a key of :data:`TABLES`), from the repository's root:
    with the classes the other table holds left out (``--beside``)."""
    other = next(name for name in TABLES if name != device)
    return ("nasarena estimators compute --space nb201 --unique --proxies " + ",".join(COMPUTED)
            + f" --seed 0 --device {device} --out docs/reproduce/data/{TABLES[device].name}"
            + f" --beside docs/reproduce/data/{TABLES[other].name}")


def load(path: Path | None = None, device: str = "cpu") -> pd.DataFrame | None:
    """The rows of the saved table of ``device`` (at ``path``, default its place in
    :data:`TABLES`; None when it does not exist yet); a table of other settings is a
    :class:`DataFileError` naming the setting and the command that computes the right one."""
    from .estimator_table import read_table

    path = Path(path or TABLES[device])
    if not path.is_file():
        return None
    frame, settings = read_table(path)
    for key, wanted in {**EXPECTED, "device": device}.items():
        if settings.get(key) != wanted:
            raise DataFileError(f"{path} was computed with {key}={settings.get(key)!r}, not {wanted!r}; its "
                                f"values are not the all-cells column's: compute it with `{command(device)}`")
    if frame["row"].isna().any():
        raise DataFileError(f"{path} has rows without their NB201 index")
    frame.attrs["settings"] = settings
    return frame


def _saved(paths: Mapping[str, Path] | None) -> dict[str, pd.DataFrame]:
    """The saved tables that exist, by device, in :data:`TABLES`' order."""
    paths = paths or TABLES
    found = {}
    for device in TABLES:
        frame = load(paths[device], device) if device in paths else None
        if frame is not None:
            found[device] = frame
    return found


def values_for_every_cell(paths: Mapping[str, Path] | None = None) -> dict[str, tuple[np.ndarray, str]]:
    """``{proxy: (values, source)}`` over the 15,625 cells, each cell its class representative's
    value, from the CPU table where it has the class, else the GPU table (``paths``: the tables
    by device, default :data:`TABLES`); NaN for the classes neither holds yet; empty when neither
    exists."""
    from ..spaces.nb201 import NB201Space

    tables = _saved(paths)
    if not tables:
        return {}
    representatives = NB201Space().representatives()
    classes = int(np.sum(representatives == np.arange(len(representatives))))
    # each table's share: the classes it holds that a table before it does not
    indexed = {device: frame.set_index("row") for device, frame in tables.items()}
    taken = np.zeros(len(representatives), dtype=bool)
    shares = {}
    for device, frame in indexed.items():
        rows = frame.index.to_numpy(dtype=np.int64)
        shares[device] = rows[~taken[rows]]
        taken[shares[device]] = True
    held = int(taken.sum())
    extent = f"all {classes:,} unique cells" if held == classes else f"{held:,} of the {classes:,} unique cells so far"
    counts = ", ".join(f"{len(share):,} {COMPUTED_ON[device]}" for device, share in shares.items())
    source = f"nasarena's saved tables (seed 0), {extent} ({counts})"
    found = {}
    for name in COMPUTED:
        full = np.full(len(representatives), np.nan)
        for device, share in shares.items():
            full[share] = indexed[device].loc[share, name].to_numpy(dtype=float)
        found[name] = (full[representatives], source)
    return found


def backend_agreement(paths: Mapping[str, Path] | None = None) -> pd.DataFrame:
    """How far the CPU and GPU tables' values are apart on the classes both hold, per proxy:
    ``n`` (classes), ``spearman`` (rank agreement of the two columns), ``median_relative`` and
    ``max_relative`` (``|gpu - cpu| / |cpu|``) and ``differing`` (classes whose values differ by
    more than :data:`TOLERANCE`) over the classes where both are defined, and ``undefined_on_one``
    (classes whose value is NaN on one device only). Empty when either table is missing."""
    from scipy.stats import spearmanr

    tables = _saved(paths)
    if len(tables) < 2:
        return pd.DataFrame(columns=["proxy", "n", "spearman", "median_relative", "max_relative", "differing",
                                     "undefined_on_one"])
    both = tables["cpu"].merge(tables["cuda"], on="row", suffixes=("_cpu", "_gpu"))
    records = []
    for name in COMPUTED:
        cpu, gpu = both[f"{name}_cpu"].to_numpy(dtype=float), both[f"{name}_gpu"].to_numpy(dtype=float)
        keep = np.isfinite(cpu) & np.isfinite(gpu)
        difference = np.abs(gpu[keep] - cpu[keep])
        with np.errstate(divide="ignore", invalid="ignore"):  # a CPU zero: any difference is infinite
            relative = np.where(difference == 0, 0.0, difference / np.abs(cpu[keep]))
        records.append({"proxy": name, "n": int(keep.sum()), "spearman": float(spearmanr(cpu[keep], gpu[keep])[0]),
                        "median_relative": float(np.median(relative)), "max_relative": float(relative.max()),
                        "differing": int(np.sum(relative > TOLERANCE)),
                        "undefined_on_one": int(np.sum(np.isfinite(cpu) != np.isfinite(gpu)))})
    return pd.DataFrame(records)
