"""nasarena's zero-cost proxies against NAS-Bench-Suite-Zero's published values, architecture by
architecture, and the published Spearman column of Abdelfattah et al. set like with like.

Why: a proxy is only what its name says if it ranks architectures as the reference code does.
NAS-Bench-Suite-Zero (Krishnakumar et al. 2022) publishes, for 725 NB201 architectures (724 on
ImageNet16-120) on CIFAR-10, CIFAR-100 and ImageNet16-120, the values that NASLib's port of the
reference code (zero-cost-nas) computes; NASLib publishes Zen-score for all 15,625 cells of each
dataset. Both files are in ``../shared/data/nb201`` (:data:`SHARED_NB201`). Two values of one
architecture cannot be equal (other initial weights, another data batch), so the check is rank
agreement over the architectures: Spearman's rho and Kendall's tau-b per proxy and dataset
(:func:`agreement`); 1 is the same ranking, and a proxy whose definition differs shows up as a
clearly lower value.

What is computed (:func:`compute_ours`): the networks as nasarena builds them for each dataset
(:func:`nasarena.training.build_network` with the dataset's classes, at the dataset's input
side: CIFAR 32x32, ImageNet16-120 16x16, as NASLib builds them; the parameter counts equal
Suite-Zero's for every architecture), the proxies of :func:`nasarena.estimators.compute_proxies`
with its defaults (seed 0, one torch thread, the proxies' paper batch sizes). The proxies that
read images need the dataset's images, and only CIFAR-10's are here: on CIFAR-100 and
ImageNet16-120 only the data-free proxies (params, flops, synflow: an all-ones input; zen: Gaussian
inputs) are computed, and asking for another is refused with the reason
(:func:`check_computable`); :func:`agreement` lists those proxies as blocked, not as missing.
The computation is resumable: each chunk of architectures is one CSV file written atomically into
the run's folder beside its settings, so a stopped run loses one chunk at most. The architectures
are taken in a seeded random order (:func:`architectures`), so a run cut short is a uniform
subsample whose members are named by its size and seed.

The values are saved in the repository (``docs/reproduce/data/suite-zero-ours-<dataset>-<group>.csv.gz``,
the groups of :data:`GROUPS`; :func:`save_values`) with a sidecar JSON of the settings,
the measured seconds and the agreement they give, so the table regenerates without recomputation
(:func:`load_values`).

Undefined values: ours NaN or infinite (jacob_cov and zen of a network whose output ignores its
input), theirs missing (one CIFAR-10 synflow), infinite (nwot of such a network) or NASLib's
stand-in ``-1e8`` for a NaN or infinite score (jacov of such a network; zen of the 341 cells per
dataset whose output ignores the input, the cells where Mellor et al.'s jacob_cov is NaN). Such
an architecture is left out of that proxy's agreement, and :func:`agreement` counts them
(``undefined_ours``, ``undefined_theirs``, ``left_out``): a rank given to "no value" would be
invented.

Why some agreements are below 1 (the numbers, and the experiments behind each reason, are in
``bench/bench_suite_zero_agreement.py``'s docstring). What is the same on both sides: the
networks (parameter counts equal for every architecture), the loss (cross-entropy), batch norm in
training mode (NASLib's network is never switched to evaluation for its proxies) and the
definitions (the reference code's, fisher with its fan-in weighting, zen its L1 distance and
running variances).

- ``params``: the same count, rho 1.
- ``flops``: another counting convention, not another network. Suite-Zero's FLOPs (NASLib's
  model profiler) also count 3 operations per output element of every conv edge (its ReLU and
  batch norm) and 9 per output element of every 3x3 average pool; ours count the multiply-adds of
  conv and linear layers only, NB201's convention, so a pooling edge is free in ours and not in
  theirs. The difference is exactly that (:func:`flops_convention`: a residual of 1e-14 M).
- ``synflow`` and ``zen``: data-free, so only the random draws differ (initial weights; zen's
  Gaussian weights and inputs): ours with another seed agrees with ours about as well as with
  theirs. NASLib reports synflow's logarithm (and 0 as 0), which does not change its ranking.
- the minibatch proxies (snip, grasp, fisher, grad_norm, jacob_cov, naswot): the data batch.
  Ours is one seeded batch of the JPEG copy of CIFAR-10's training split, unaugmented,
  normalised with that split's own mean and deviation, the same for every architecture; snip,
  grasp, fisher, grad_norm and jacob_cov read 64 of its images (Abdelfattah et al.'s batch),
  naswot 128 (Mellor et al.'s). NASLib draws for every architecture a fresh batch from its
  training loader (shuffled, random crop after 4-pixel padding and horizontal flip, normalised
  with fixed CIFAR-10 constants, from the official images) and new random weights, so each
  published value carries its own batch's and weights' noise, which a ranking of architectures of
  similar quality feels; grasp (a Hessian-gradient product whose sign varies) and jacob_cov feel
  it most. And Suite-Zero's NB201 values were computed on 32 images, not 64: the scale of its
  values says so (jacov is at most -32, and -N is the score's maximum for N images; nwot is a
  quarter of our 128-image log-determinant; fisher, a mean of squared gradients of a mean loss,
  about 4 times ours), and ours on 32 images land on theirs (jacob_cov -32.29 against -32.31,
  naswot 405.8 against 406.5 for one architecture). The bench's ``--variants`` experiment
  recomputes ours NASLib's way (a fresh augmented batch and new weights per architecture, on 64
  and 128 images and on 32): ours agree with ours computed NASLib's way about as well as with
  Suite-Zero, which is what this explanation predicts; the definitions are not what differs.

The published column like with like (:func:`published_like_with_like`): Abdelfattah et al.'s
published |rho| (:mod:`nasarena.estimators.published`) is over all 15,625 cells, duplicates
included, against the 200-epoch *test* accuracy of NB201's ``cifar10-valid`` training (trained on
the training half; the truth that reproduces the published values from released scores: Mellor et
al.'s own jacob_cov scores give 0.732 against the published 0.731, and nasarena's synflow 0.739
against 0.737). Beside it: the same |rho| over all 15,625 cells of the values nasarena has for
every cell (each duplicate takes its class representative's value), and rho over the 6,466 unique
cells in a column of its own: the two differ by as much as the proxies do from each other. The
image-reading proxies' values for every cell are :mod:`.all_cell_proxies`' saved table.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from ..analysis.supernet.identification import correlations
from ..errors import DataFileError, InvalidSettingError, OutputError
from ..estimators import PROXIES, Proxy
from ..io.files import atomic_write_bytes
from ..spaces.nb201.network import NUM_CLASSES, RESOLUTION
from .reproduce.common import SAVED_DATA

#: The repository's root, when nasarena runs from a checkout (``src/nasarena/studies/`` is three down).
_CHECKOUT = Path(__file__).resolve().parents[3]
#: The shared NB201 data beside the checkout (``../shared/data/nb201``; its README names each
#: file's source); every function that reads it takes another folder as ``shared``.
SHARED_NB201 = _CHECKOUT.parent / "shared" / "data" / "nb201"
SUITE_ZERO_FILE = "suite-zero-zc-nasbench201.json"
NASLIB_ZEN_FILE = "nb201-naslib-val-200epochs.csv"
CIFAR10_200_FILE = "nb201-cifar10-200epochs.csv"
#: Where the repository keeps the saved values.
RECORDED = SAVED_DATA

#: nasarena's dataset names and Suite-Zero's keys.
DATASETS = {"cifar10": "cifar10", "cifar100": "cifar100", "imagenet16-120": "ImageNet16-120"}
#: The datasets whose images are here (the proxies that read images run on these only).
WITH_IMAGES = ("cifar10",)
#: nasarena's proxy name -> the published value's name (zen: NASLib's all-cells file).
PUBLISHED_NAME = {"params": "params", "flops": "flops", "synflow": "synflow", "snip": "snip", "grasp": "grasp",
                  "fisher": "fisher", "grad_norm": "grad_norm", "jacob_cov": "jacov", "naswot": "nwot",
                  "zen": "zen", "zen_paper": "zen"}
#: NASLib's value for a NaN or infinite score (``ZeroCost.query``; its zen file uses it too).
NASLIB_UNDEFINED = -1e8
#: Architectures per chunk file: the unit a stopped run loses.
CHUNK = 8
#: The settings a resumed run must share with the folder's (the rest is provenance).
RESUME_KEYS = ("dataset", "proxies", "seed", "batch", "minibatch_sha256", "image_size", "num_classes")
#: The groups of saved values, each computed and saved on its own: the cheap data-free proxies
#: (counts and synflow: a tenth of a second per architecture), Zen-score (data-free, but two
#: passes of 64 Gaussian images: ten times that) and the proxies that read the CIFAR-10 minibatch
#: (about ten seconds per architecture on one thread).
GROUPS = {"data-free": ("params", "flops", "synflow"), "zen": ("zen",),
          "minibatch": ("snip", "grasp", "fisher", "grad_norm", "jacob_cov", "naswot")}
#: The NB201 CIFAR-10 truth behind Abdelfattah et al.'s published correlations (see the module).
PAPER_TRUTH = "valid_test_top1"


def dataset_key(dataset: str) -> str:
    """nasarena's name of ``dataset`` (Suite-Zero's ``ImageNet16-120`` accepted); others refused."""
    key = dataset.lower()
    if key not in DATASETS:
        raise InvalidSettingError(f"dataset {dataset!r}: Suite-Zero publishes {', '.join(DATASETS)}")
    return key


def shared_file(name: str, shared: Path | None = None) -> Path:
    """``name`` in the shared NB201 folder; a missing file is a :class:`DataFileError` saying where."""
    path = Path(shared or SHARED_NB201) / name
    if not path.is_file():
        raise DataFileError(f"{path} is missing: the Suite-Zero comparison reads the shared NB201 data "
                            "(../shared/data/nb201, see its README)")
    return path


def cell_text(naslib_tuple: str) -> str:
    """NB201's cell string of one of NASLib's op tuples ``(e0, ..., e5)`` (the shared data README's
    encoding: ops ``skip_connect, none, nor_conv_3x3, nor_conv_1x1, avg_pool_3x3``, edge order
    1<-0, 2<-0, 3<-0, 2<-1, 3<-1, 3<-2)."""
    ops = ("skip_connect", "none", "nor_conv_3x3", "nor_conv_1x1", "avg_pool_3x3")
    try:
        e = [ops[int(code)] for code in naslib_tuple.strip("()").split(",")]
    except (ValueError, IndexError):
        raise InvalidSettingError(f"{naslib_tuple!r} is not a NASLib NB201 op tuple such as (0, 2, 3, 2, 3, 1)") \
            from None
    if len(e) != 6:
        raise InvalidSettingError(f"{naslib_tuple!r} has {len(e)} ops; an NB201 cell has 6 edges")
    return f"|{e[0]}~0|+|{e[1]}~0|{e[3]}~1|+|{e[2]}~0|{e[4]}~1|{e[5]}~2|"


@lru_cache(maxsize=4)
def _suite_zero(path: Path) -> dict:
    return json.loads(path.read_text())


@lru_cache(maxsize=4)
def _naslib_zen(path: Path) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    with open(path, newline="") as stream:
        for row in csv.DictReader(stream):
            found.setdefault(row["dataset"], {})[row["naslib_tuple"]] = float(row["zen_score"])
    return found


def published_values(dataset: str, shared: Path | None = None) -> pd.DataFrame:
    """Suite-Zero's values of ``dataset``, one row per architecture (index: NASLib's op tuple,
    sorted), one column per published proxy (their names, zen from NASLib's all-cells file) and
    ``val_accuracy``; missing values and NASLib's ``-1e8`` stand-in are NaN."""
    key = DATASETS[dataset_key(dataset)]
    records = _suite_zero(shared_file(SUITE_ZERO_FILE, shared))[key]
    zen = _naslib_zen(shared_file(NASLIB_ZEN_FILE, shared))[key]
    names = sorted({name for name in PUBLISHED_NAME.values() if name != "zen"})
    rows = sorted(records)
    frame = pd.DataFrame({name: [records[arch].get(name, {}).get("score", math.nan) for arch in rows]
                          for name in names}, index=pd.Index(rows, name="arch"), dtype=float)
    frame["zen"] = [zen.get(arch, math.nan) for arch in rows]
    frame = frame.mask(frame == NASLIB_UNDEFINED)
    frame["val_accuracy"] = [float(records[arch]["val_accuracy"]) for arch in rows]
    return frame


def architectures(dataset: str, size: int | None = None, seed: int = 0, shared: Path | None = None) -> list[str]:
    """Suite-Zero's architectures of ``dataset`` (NASLib op tuples) in a seeded random order: all
    of them, or the first ``size`` (a seeded subset; a larger size holds a smaller one)."""
    keys = list(published_values(dataset, shared).index)
    order = np.random.default_rng(seed).permutation(len(keys))
    if size is not None:
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= len(keys):
            raise InvalidSettingError(f"size={size!r}: a subset of the {len(keys)} {dataset} architectures "
                                      f"holds 1 to {len(keys)}")
        order = order[:size]
    return [keys[i] for i in order]


def reads_images(proxy: str) -> bool:
    """Whether ``proxy`` reads a minibatch of the dataset's images (its paper batch is not 0)."""
    return cast(Proxy, PROXIES[proxy]).batch > 0


def blocked(dataset: str, proxies: Sequence[str]) -> list[str]:
    """The proxies of ``proxies`` that read images of ``dataset`` when none are here."""
    return [] if dataset_key(dataset) in WITH_IMAGES else [name for name in proxies if reads_images(name)]


def blocked_reason(dataset: str) -> str:
    """Why the image-reading proxies of ``dataset`` have no agreement here."""
    return (f"blocked: it reads {dataset} images and only CIFAR-10's are here (../shared/data/cifar10); "
            f"no {dataset} agreement can be computed")


def check_computable(dataset: str, proxies: Sequence[str]) -> None:
    """Refuse proxies that need images of ``dataset`` that are not here, and names without a
    published counterpart, each saying why."""
    unknown = [name for name in proxies if name not in PUBLISHED_NAME]
    if unknown:
        raise InvalidSettingError(f"{', '.join(unknown)}: Suite-Zero publishes no counterpart; "
                                  f"compared are {', '.join(PUBLISHED_NAME)}")
    stopped = blocked(dataset, proxies)
    if stopped:
        free = [name for name in PUBLISHED_NAME if not reads_images(name)]
        raise DataFileError(f"{', '.join(stopped)} on {dataset}: {blocked_reason(dataset)}; the data-free "
                            f"proxies ({', '.join(free)}) can be computed on {dataset}")


def compute_ours(dataset: str, archs: Sequence[str], proxies: Sequence[str], out: Path, *, seed: int = 0,
                 data=None, seconds: float | None = None,
                 on_chunk: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Our ``proxies`` of the NB201 architectures ``archs`` (NASLib op tuples) built for
    ``dataset``, computed (or resumed) into the folder ``out``: one row per architecture (``arch``,
    ``cell``, each proxy and its ``<proxy>_seconds``), in the order of ``archs``.

    ``data``: the CIFAR-10 source (:func:`nasarena.training.load_cifar10`, read only when a proxy
    reads images); ``seconds``: start no chunk after that many seconds (the rows returned are
    then those computed, a prefix of ``archs`` when the folder was filled in this order; a later
    call resumes); ``on_chunk(done, planned)`` after every chunk. A folder holding another
    computation's settings is refused (:data:`RESUME_KEYS`)."""
    from ..estimators.compute import batch_size, minibatch, proxies_named
    from .estimator_table import compute_chunk

    started = time.monotonic()
    dataset = dataset_key(dataset)
    chosen = [proxy.name for proxy in proxies_named(proxies)]
    check_computable(dataset, chosen)
    if len(set(archs)) != len(archs):
        raise InvalidSettingError("an architecture is named more than once")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} is a file; compute_ours writes a folder of chunk files")
    size, side, classes = batch_size(proxies_named(chosen)), RESOLUTION[dataset], NUM_CLASSES[dataset]
    images, labels, source = np.zeros((0, 3, side, side), np.float32), np.zeros(0, np.int64), None
    if size:
        from ..training import load_cifar10

        loaded = load_cifar10(data)
        batch = minibatch(loaded, size, seed)
        images, labels, source = batch[0].numpy(), batch[1].numpy(), str(loaded.source)
    settings = {"dataset": dataset, "proxies": chosen, "seed": seed, "batch": size, "data": source,
                "minibatch_sha256": hashlib.sha256(images.tobytes() + labels.tobytes()).hexdigest(),
                "image_size": side, "num_classes": classes, **_provenance()}
    done = _resume(out, settings)
    missing = [arch for arch in archs if arch not in done]
    for start in range(0, len(missing), CHUNK):
        if seconds is not None and time.monotonic() - started > seconds:
            break
        chunk = missing[start:start + CHUNK]
        records = compute_chunk("nb201", tuple((cell_text(arch), None) for arch in chunk), tuple(chosen), images,
                                labels, side, seed, "cpu", (("num_classes", classes),))
        rows = [{"arch": arch, "cell": record["arch"], **{name: record[name] for name in chosen},
                 **{f"{name}_seconds": record[f"{name}_seconds"] for name in chosen}}
                for arch, record in zip(chunk, records)]
        _write_chunk(out, pd.DataFrame(rows))
        done.update({row["arch"]: row for row in rows})
        if on_chunk is not None:
            on_chunk(sum(arch in done for arch in archs), len(archs))
    columns = ["arch", "cell", *chosen, *(f"{name}_seconds" for name in chosen)]
    frame = pd.DataFrame([done[arch] for arch in archs if arch in done], columns=columns)
    frame = frame.astype({name: float for name in columns[2:]})  # a count read back from CSV is float too
    frame.attrs["settings"] = settings
    return frame


def _provenance() -> dict:
    """What computed the values: versions and threads (recorded, not checked on resume)."""
    import torch

    from ..version import __version__

    return {"torch": torch.__version__, "nasarena": __version__, "threads": 1, "device": "cpu"}


def _resume(out: Path, settings: dict) -> dict[str, dict]:
    """The rows already in ``out`` (a new folder gets the settings); another computation's folder
    is refused."""
    path = out / "settings.json"
    if path.is_file():
        held = json.loads(path.read_text())
        differ = [key for key in RESUME_KEYS if held.get(key) != settings[key]]
        if differ:
            raise OutputError(f"{out} holds another computation ({', '.join(differ)} differ); choose another folder")
    else:
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, json.dumps(settings, indent=1, sort_keys=True).encode())
    done: dict[str, dict] = {}
    for part in sorted(out.glob("part-*.csv")):
        for row in pd.read_csv(part, dtype={"arch": str, "cell": str}, float_precision="round_trip").to_dict("records"):
            done[row["arch"]] = row
    return done


def _write_chunk(out: Path, frame: pd.DataFrame) -> None:
    number = len(list(out.glob("part-*.csv")))
    atomic_write_bytes(out / f"part-{number:05d}.csv", frame.to_csv(index=False, float_format="%.17g").encode())


def agreement(ours: pd.DataFrame, dataset: str, proxies: Sequence[str] | None = None,
              shared: Path | None = None) -> pd.DataFrame:
    """Per proxy, the rank agreement of ``ours`` (rows of :func:`compute_ours`: ``arch`` and proxy
    columns) with Suite-Zero's values of ``dataset`` over the same architectures.

    One row per proxy of ``proxies`` (default: every proxy with a published counterpart): ``n``
    architectures with both values defined, ``undefined_ours`` and ``undefined_theirs`` (either
    may hold an architecture of the other), ``left_out`` (the rows minus ``n``), ``spearman`` and
    ``kendall`` (tau-b), and ``status``: ``computed``; ``blocked: ...`` for a proxy that reads
    images of a dataset whose images are not here; ``not computed`` for a proxy missing from
    ``ours``. An architecture Suite-Zero does not hold for ``dataset`` is refused."""
    dataset = dataset_key(dataset)
    theirs = published_values(dataset, shared)
    unknown = sorted(set(ours["arch"]) - set(theirs.index)) if len(ours) else []
    if unknown:
        raise InvalidSettingError(f"{len(unknown)} architecture(s) not in Suite-Zero's {dataset} values, e.g. "
                                  f"{unknown[0]}")
    names = list(PUBLISHED_NAME) if proxies is None else list(proxies)
    stopped = set(blocked(dataset, names))
    records = []
    for name in names:
        if name not in PUBLISHED_NAME:
            raise InvalidSettingError(f"{name}: Suite-Zero publishes no counterpart; compared are "
                                      f"{', '.join(PUBLISHED_NAME)}")
        row = {"dataset": dataset, "proxy": name, "published": PUBLISHED_NAME[name], "architectures": len(ours)}
        if name in stopped or name not in ours.columns:
            records.append({**row, "status": blocked_reason(dataset) if name in stopped else "not computed"})
            continue
        a = ours[name].to_numpy(dtype=float)
        b = theirs.loc[list(ours["arch"]), PUBLISHED_NAME[name]].to_numpy(dtype=float)
        both = np.isfinite(a) & np.isfinite(b)
        spearman, kendall = correlations(b[both], a[both]) if both.sum() > 2 else (math.nan, math.nan)
        records.append({**row, "n": int(both.sum()), "undefined_ours": int((~np.isfinite(a)).sum()),
                        "undefined_theirs": int((~np.isfinite(b)).sum()), "left_out": int((~both).sum()),
                        "spearman": spearman, "kendall": kendall, "status": "computed"})
    columns = ["dataset", "proxy", "published", "architectures", "n", "undefined_ours", "undefined_theirs",
               "left_out", "spearman", "kendall", "status"]
    frame = pd.DataFrame(records).reindex(columns=columns)
    for column in ("n", "undefined_ours", "undefined_theirs", "left_out"):
        frame[column] = frame[column].astype("Int64")
    return frame


def flops_convention(dataset: str, shared: Path | None = None) -> dict[str, float]:
    """What Suite-Zero's FLOPs count beyond ours, fitted over its architectures of ``dataset``:
    their value minus ours (millions) as a constant plus a cost per conv edge (``nor_conv_3x3``
    and ``nor_conv_1x1`` each) and per ``avg_pool_3x3`` edge, the least-squares coefficients, the
    largest residual (0 up to rounding: the difference is exactly this) and the coefficients as
    operations per output element of an edge (over the 15 cells' output elements)."""
    from ..spaces.nb201 import Cell201
    from ..spaces.nb201.network import CELLS_PER_STAGE, STAGE_CHANNELS, flops

    key = dataset_key(dataset)
    theirs = published_values(key, shared)
    cells = [Cell201.from_string(cell_text(arch)) for arch in theirs.index]
    edges = ("nor_conv_3x3", "nor_conv_1x1", "avg_pool_3x3")
    design = np.array([[cell.ops.count(op) for op in edges] + [1] for cell in cells], dtype=float)
    difference = theirs["flops"].to_numpy() - np.array([flops(cell, key) for cell in cells]) / 1e6
    coefficients = np.linalg.lstsq(design, difference, rcond=None)[0]
    side = RESOLUTION[key]
    elements = CELLS_PER_STAGE * sum(channels * (side >> stage) ** 2 for stage, channels in enumerate(STAGE_CHANNELS))
    found = {f"{op} (M)": float(value) for op, value in zip(edges, coefficients)}
    found.update({"constant (M)": float(coefficients[-1]),
                  "largest residual (M)": float(np.abs(design @ coefficients - difference).max())})
    found.update({f"{op} per output element": float(value) * 1e6 / elements for op, value in zip(edges, coefficients)})
    return found


# -- the saved values ---------------------------------------------------------------------------

def values_path(dataset: str, group: str, directory: Path | None = None) -> Path:
    """The saved values of ``dataset``'s ``group`` (:data:`GROUPS`); the sidecar is beside it."""
    if group not in GROUPS:
        raise InvalidSettingError(f"group {group!r}: the saved values are {', '.join(GROUPS)}")
    return Path(directory or RECORDED) / f"suite-zero-ours-{dataset_key(dataset)}-{group}.csv.gz"


def sidecar_path(dataset: str, group: str, directory: Path | None = None) -> Path:
    return values_path(dataset, group, directory).with_suffix("").with_suffix(".json")


def save_values(frame: pd.DataFrame, dataset: str, group: str, *, subset: dict, directory: Path | None = None,
                shared: Path | None = None) -> dict:
    """Save ``frame`` (of :func:`compute_ours`, its settings in ``attrs``) as the repository's
    values of ``dataset``'s ``group``: a gzip CSV of ``arch``, ``cell`` and the proxies (full
    precision), and a sidecar JSON of the settings, ``subset`` (how the architectures were chosen),
    the mean measured seconds per proxy and the agreement they give; the sidecar is returned."""
    settings = frame.attrs.get("settings")
    if not settings:
        raise InvalidSettingError("the frame carries no settings; save what compute_ours returned")
    proxies = list(settings["proxies"])
    text = frame[["arch", "cell", *proxies]].to_csv(index=False, float_format="%.17g")
    path = values_path(dataset, group, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, gzip.compress(text.encode(), mtime=0))
    sidecar = {"dataset": dataset_key(dataset), "group": group, "settings": settings, "subset": subset,
               "architectures": len(frame),
               "seconds_per_architecture": {name: float(frame[f"{name}_seconds"].mean()) for name in proxies},
               "agreement": _records(agreement(frame, dataset, proxies, shared))}
    atomic_write_bytes(sidecar_path(dataset, group, directory), json.dumps(sidecar, indent=1).encode())
    return sidecar


def _records(frame: pd.DataFrame) -> list[dict]:
    """JSON-ready rows (missing counts and NaN correlations as null)."""
    return [{key: (None if pd.isna(value) else value.item() if hasattr(value, "item") else value)
             for key, value in row.items()} for row in frame.astype(object).to_dict("records")]


def load_values(dataset: str, group: str, directory: Path | None = None) -> tuple[pd.DataFrame, dict]:
    """The saved values of ``dataset``'s ``group`` and their sidecar; a missing file says which."""
    path, side = values_path(dataset, group, directory), sidecar_path(dataset, group, directory)
    for needed in (path, side):
        if not needed.is_file():
            raise DataFileError(f"{needed} is missing: run bench/bench_suite_zero_agreement.py --save")
    frame = pd.read_csv(io.BytesIO(gzip.decompress(path.read_bytes())), dtype={"arch": str, "cell": str},
                        float_precision="round_trip")  # the saved digits exactly: equal values tie
    sidecar = json.loads(side.read_text())
    frame.attrs["settings"] = sidecar["settings"]
    return frame, sidecar


def recorded_agreement(directory: Path | None = None) -> pd.DataFrame:
    """Every saved group's agreement, recomputed from its values, dataset by dataset; each
    proxy with a published counterpart and no saved values gets its row too, saying why
    (``blocked: ...`` where the dataset's images are not here, else ``not computed``)."""
    frames = []
    for dataset in DATASETS:
        covered: list[str] = []
        for group in GROUPS:
            if values_path(dataset, group, directory).is_file():
                frame, sidecar = load_values(dataset, group, directory)
                frames.append(agreement(frame, dataset, sidecar["settings"]["proxies"]))
                covered += sidecar["settings"]["proxies"]
        rest = [name for name in PUBLISHED_NAME if name not in covered]
        if rest:
            frames.append(agreement(pd.DataFrame({"arch": []}), dataset, rest))
    return pd.concat(frames, ignore_index=True)


def agreement_markdown(frame: pd.DataFrame) -> str:
    """An agreement table (:func:`agreement`, :func:`recorded_agreement`) as Markdown: one row per
    dataset and proxy, the blocked and not computed ones with their reason."""
    lines = ["| dataset | proxy | Suite-Zero's | architectures | n | left out (ours / theirs undefined) | Spearman "
             "| Kendall |", "|---|---|---|---:|---:|---|---:|---:|"]
    for _, row in frame.iterrows():
        if row["status"] != "computed":
            lines.append(f"| {row['dataset']} | {row['proxy']} | {row['published']} | | | | {row['status']} | |")
            continue
        lines.append(f"| {row['dataset']} | {row['proxy']} | {row['published']} | {row['architectures']:,} | "
                     f"{row['n']:,} | {row['left_out']} ({row['undefined_ours']} / {row['undefined_theirs']}) | "
                     f"{row['spearman']:.4f} | {row['kendall']:.4f} |")
    return "\n".join(lines)


# -- the published column like with like ----------------------------------------------------------

def paper_truth(shared: Path | None = None) -> np.ndarray:
    """NB201 CIFAR-10's 200-epoch test accuracy of the ``cifar10-valid`` training, all 15,625 cells
    in index order: the truth of Abdelfattah et al.'s published correlations (see the module)."""
    frame = pd.read_csv(shared_file(CIFAR10_200_FILE, shared))
    if not np.array_equal(frame["index"].to_numpy(), np.arange(len(frame))):
        raise DataFileError(f"{CIFAR10_200_FILE}: rows are not in NB201 index order")
    return frame[PAPER_TRUTH].to_numpy(dtype=float)


#: The row of Mellor et al.'s released jacob_cov scores, beside ours (the published value's own source).
RELEASED_JACOB_COV = "jacob_cov (Mellor et al.'s v1 scores)"


def all_cell_values(shared: Path | None = None,
                    computed: Mapping[str, Path] | None = None) -> dict[str, tuple[np.ndarray, str]]:
    """Every proxy with values for the 15,625 cells: ``{row label: (values, source)}``. The
    embedded table's proxies (one value per unique cell; each duplicate takes its class
    representative's), the image-reading ones of :mod:`.all_cell_proxies` (its saved tables,
    ``computed`` by device, as far as they are computed: NaN for the classes not yet), and, under
    :data:`RELEASED_JACOB_COV`, Mellor et al.'s released first-version jacob_cov scores (the shared
    CSV's ``naswot_score``, NaN where undefined)."""
    from ..estimators.embedded import embedded_table
    from ..spaces.nb201 import NB201Space
    from .all_cell_proxies import values_for_every_cell

    table = embedded_table("nb201")
    representatives = NB201Space().representatives()
    found = {}
    for name in table.attrs["settings"]["proxies"]:
        full = np.full(len(representatives), np.nan)
        full[table["row"].to_numpy(dtype=np.int64)] = table[name].to_numpy(dtype=float)
        found[name] = (full[representatives], "nasarena's embedded table (seed 0)")
    found |= values_for_every_cell(computed)
    scores = pd.read_csv(shared_file(CIFAR10_200_FILE, shared))["naswot_score"].to_numpy(dtype=float)
    found[RELEASED_JACOB_COV] = (scores, "Mellor et al.'s released v1 scores")
    return found


def published_like_with_like(shared: Path | None = None, computed: Mapping[str, Path] | None = None) -> pd.DataFrame:
    """Abdelfattah et al.'s published NB201 CIFAR-10 |rho| beside the same statistic of the
    values there are for all 15,625 cells (:func:`all_cell_values`) against the same truth
    (:func:`paper_truth`), and rho over the 6,466 unique cells in its own column.

    Columns: ``proxy`` (the row's label: a proxy's name, or :data:`RELEASED_JACOB_COV`, after
    ours), ``published`` (|rho|, all cells), ``values`` (their source, or why there are none for
    all cells), ``all_cells`` (|rho|) and ``all_cells_n``, ``unique_cells`` (rho, signed) and
    ``unique_cells_n``; an undefined or not yet computed value is left out (``*_n`` say how many
    are used)."""
    from ..estimators.published import ABDELFATTAH_NB201
    from ..spaces.nb201 import NB201Space

    published = ABDELFATTAH_NB201["cifar10"]
    truth = paper_truth(shared)
    representatives = NB201Space().representatives()
    unique = representatives == np.arange(len(representatives))
    values = all_cell_values(shared, computed)
    labels = [name for name in PROXIES if name in published or name in values]
    labels.insert(labels.index("jacob_cov") + 1, RELEASED_JACOB_COV)
    records = []
    for label in labels:
        row: dict = {"proxy": label, "published": published.get(label.split(" ")[0], math.nan)}
        if label not in values:
            records.append({**row, "values": "none for all cells yet (the embedded table holds "
                                             f"{', '.join(embedded_names(values))})"})
            continue
        scores, source = values[label]
        row["values"] = source
        for column, cells in (("all_cells", np.ones_like(unique)), ("unique_cells", unique)):
            keep = cells & np.isfinite(scores)
            rho, _ = correlations(truth[keep], scores[keep])
            row[column] = abs(rho) if column == "all_cells" else rho
            row[f"{column}_n"] = int(keep.sum())
        records.append(row)
    frame = pd.DataFrame(records).reindex(columns=["proxy", "published", "values", "all_cells", "all_cells_n",
                                                   "unique_cells", "unique_cells_n"])
    for column in ("all_cells_n", "unique_cells_n"):
        frame[column] = frame[column].astype("Int64")
    return frame


def embedded_names(values: dict[str, tuple[np.ndarray, str]]) -> list[str]:
    """The proxies of ``values`` that come from the embedded table."""
    return [name for name, (_, source) in values.items() if source.startswith("nasarena's embedded")]


def like_with_like_markdown(frame: pd.DataFrame) -> str:
    """:func:`published_like_with_like`'s table as Markdown, with the line saying what each column is."""
    from .all_cell_proxies import command

    def number(value, digits: int = 3) -> str:
        return "" if pd.isna(value) else f"{value:.{digits}f}"

    def count(value) -> str:
        return "" if pd.isna(value) else f"{int(value):,}"

    lines = ["| proxy | published \\|rho\\| (all 15,625) | \\|rho\\| all 15,625 cells | n | rho unique cells | n "
             "| values |", "|---|---:|---:|---:|---:|---:|---|"]
    for _, row in frame.iterrows():
        lines.append(f"| {row['proxy']} | {number(row['published'])} | {number(row['all_cells'])} | "
                     f"{count(row['all_cells_n'])} | {number(row['unique_cells'])} | {count(row['unique_cells_n'])} "
                     f"| {row['values']} |")
    lines.append("")
    lines.append("Truth: NB201 CIFAR-10's 200-epoch test accuracy of the cifar10-valid training (mean over seeds), the "
                 "truth of Abdelfattah et al.'s published values; all cells: every one of the 15,625, each duplicate "
                 "with its class representative's value, |rho| as published; unique cells: the 6,466 class "
                 "representatives, rho with its sign; undefined values, and classes not computed yet, left out (n). "
                 f"nasarena's saved tables: `{command('cpu')}` and `{command('cuda')}`, each filled in a seeded "
                 "random order of the unique cells the other does not hold, so that until they are complete the "
                 "classes they hold together are a uniform sample; a class takes the CPU table's value where it "
                 "has one.")
    return "\n".join(lines)


def reference_on_published_cells(shared: Path | None = None) -> pd.DataFrame:
    """The published correlation's statistic over Suite-Zero's 725 CIFAR-10 architectures, for each
    image-reading proxy of :mod:`.all_cell_proxies`: |rho| of Suite-Zero's values (NASLib running
    the reference code) against the same truth as the published column (:func:`paper_truth`), and
    of ours on the same cells. Where the published value differs from ours, this says whether the
    reference code, run by others, gives it. Columns ``proxy``, ``n``, ``suite_zero``, ``ours``;
    cells undefined on either side are left out (``n``)."""
    from ..spaces.nb201 import NB201Space
    from .all_cell_proxies import COMPUTED, values_for_every_cell

    ours = values_for_every_cell()
    if not ours:
        return pd.DataFrame(columns=["proxy", "n", "suite_zero", "ours"])
    theirs = published_values("cifar10", shared)
    space = NB201Space()
    rows = np.array([space.row(space.from_text(cell_text(arch))) for arch in theirs.index])
    truth = paper_truth(shared)[rows]
    records = []
    for name in COMPUTED:
        published, computed = theirs[PUBLISHED_NAME[name]].to_numpy(dtype=float), ours[name][0][rows]
        keep = np.isfinite(published) & np.isfinite(computed)
        records.append({"proxy": name, "n": int(keep.sum()),
                        "suite_zero": abs(correlations(truth[keep], published[keep])[0]),
                        "ours": abs(correlations(truth[keep], computed[keep])[0])})
    return pd.DataFrame(records)


#: A published |rho| this far from ours (all cells) is a difference the page explains.
FAR_FROM_PUBLISHED = 0.05


def reference_markdown(frame: pd.DataFrame, published: pd.DataFrame) -> str:
    """:func:`reference_on_published_cells` as sentences, saying for each proxy whose published
    |rho| is :data:`FAR_FROM_PUBLISHED` or more from ours over all cells (``published``:
    :func:`published_like_with_like`) whether Suite-Zero's values come near it (nothing without
    our values)."""
    if frame.empty:
        return ""
    parts = [f"{row.proxy} {row.suite_zero:.3f} and {row.ours:.3f}" for row in frame.itertuples()]
    text = (f"The same |rho| over Suite-Zero's {frame['n'].max():,} CIFAR-10 architectures, Suite-Zero's values "
            f"(NASLib running the reference code) and ours on the same cells: {'; '.join(parts)}.")
    paper = published.set_index("proxy")
    for row in frame.itertuples():
        value = paper.loc[row.proxy, "published"]
        if abs(value - paper.loc[row.proxy, "all_cells"]) < FAR_FROM_PUBLISHED:
            continue
        near = abs(value - row.suite_zero) < FAR_FROM_PUBLISHED
        text += (f" {row.proxy}'s published {value:.3f} is {'near' if near else 'far from'} Suite-Zero's "
                 f"{row.suite_zero:.3f}: " + ("our implementation differs from the reference code there." if near
                                              else "the reference code run by others does not give it either."))
    return text


def backend_agreement_markdown(frame: pd.DataFrame) -> str:
    """:func:`.all_cell_proxies.backend_agreement` as a sentence per proxy (nothing without both tables)."""
    from .all_cell_proxies import TOLERANCE

    if frame.empty:
        return ""
    parts = [f"{row.proxy} {row.spearman:.4f} (median relative difference {row.median_relative:.1e}, largest "
             f"{row.max_relative:.1e}; {row.differing:,} differ by more than {TOLERANCE:.1%})"
             for row in frame.itertuples()]
    one_sided = int(frame["undefined_on_one"].sum())
    defined = "each value is defined on both or neither" if one_sided == 0 else \
        f"{one_sided:,} values are undefined on one device only"
    return (f"Where both tables hold a class ({frame['n'].max():,} classes) the GPU's values rank as the CPU's, "
            f"Spearman: {'; '.join(parts)}; {defined}. The two sum in other orders; GRASP's sum of products "
            "cancels, so its small values move most.")
