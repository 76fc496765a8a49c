"""nasarena's image-reading proxies on every unique NB201 cell: the values behind the all-cells
column of the published correlations (:func:`.suite_zero_agreement.published_like_with_like`).

Why: Abdelfattah et al. publish |rho| over all 15,625 NB201 cells, so ours can stand beside it
only with a value for every cell. The embedded table (:mod:`nasarena.estimators.embedded`) holds
the data-free proxies; the ones that read the CIFAR-10 minibatch cost seconds per cell, hours in
all, so their table is computed once, by :data:`COMMAND` (one torch thread, seed 0, the proxies'
paper batch), and saved in the repository (:data:`TABLE`). It is the estimators table that
``nasarena estimators compute`` writes: resumable, and filled in a seeded random order of the
6,466 unique cells (one per class of NB201's de-duplication; each duplicate cell takes its class
representative's value). While it is being computed its rows are a uniform sample of the
classes, and the column says how many it holds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataFileError
from .reproduce.common import SAVED_DATA

#: The proxies computed: those of Abdelfattah et al.'s published NB201 column that read images.
COMPUTED = ("snip", "grasp", "fisher", "grad_norm", "jacob_cov")
TABLE = SAVED_DATA / "nb201-unique-cifar10-minibatch.parquet"
#: What computes (or extends) :data:`TABLE`, from the repository's root.
COMMAND = ("nasarena estimators compute --space nb201 --unique --proxies " + ",".join(COMPUTED)
           + " --seed 0 --device cpu --out docs/reproduce/data/" + TABLE.name)
#: The settings the table must have been computed with (the rest is the data's and the machine's).
EXPECTED = {"space": "nb201", "unique": True, "seed": 0, "sample": None, "image_size": 32, "device": "cpu",
            "proxies": list(COMPUTED)}


def load(path: Path | None = None) -> pd.DataFrame | None:
    """The saved table's rows (None when it does not exist yet); a table of other settings is a
    :class:`DataFileError` naming the setting and the command that computes the right one."""
    from .estimator_table import read_table

    path = Path(path or TABLE)
    if not path.is_file():
        return None
    frame, settings = read_table(path)
    for key, wanted in EXPECTED.items():
        if settings.get(key) != wanted:
            raise DataFileError(f"{path} was computed with {key}={settings.get(key)!r}, not {wanted!r}; its "
                                f"values are not the all-cells column's: compute it with `{COMMAND}`")
    if frame["row"].isna().any():
        raise DataFileError(f"{path} has rows without their NB201 index")
    frame.attrs["settings"] = settings
    return frame


def values_for_every_cell(path: Path | None = None) -> dict[str, tuple[np.ndarray, str]]:
    """``{proxy: (values, source)}`` over the 15,625 cells, each cell its class representative's
    value (NaN for the classes not computed yet); empty when the table does not exist."""
    from ..spaces.nb201 import NB201Space

    frame = load(path)
    if frame is None:
        return {}
    representatives = NB201Space().representatives()
    classes = int(np.sum(representatives == np.arange(len(representatives))))
    rows = frame["row"].to_numpy(dtype=np.int64)
    source = (f"nasarena's saved table (seed 0), all {classes:,} unique cells" if len(frame) == classes else
              f"nasarena's saved table (seed 0), {len(frame):,} of the {classes:,} unique cells so far")
    found = {}
    for name in frame.attrs["settings"]["proxies"]:
        full = np.full(len(representatives), np.nan)
        full[rows] = frame[name].to_numpy(dtype=float)
        found[name] = (full[representatives], source)
    return found
