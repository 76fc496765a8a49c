"""A table of zero-cost proxies over many architectures: ``nasarena estimators compute``.

The architectures: every one of a finite space (NB201's 15,625 cells, in row order), or a
seeded sample of ``sample`` distinct ones (drawn rows of a finite space, sorted; DARTS: draws of
the space's sampler until that many distinct architectures). With ``unique``, only one cell per
class of the benchmark's de-duplication (NB201: the 6,466 representatives of
:func:`nasarena.spaces.nb201.unique_cells`, each its class's smallest index), so equivalent cells,
whose networks compute the same function, are not counted twice. One seeded minibatch
(:func:`.compute.minibatch`) serves every architecture. The architectures are cut into chunks,
the tasks of :func:`nasarena.execution.run_tasks` (worker processes with one torch thread each,
or this process for ``jobs=1``, on one thread too), and each finished chunk rewrites the Parquet
file atomically. The chunks are computed in a seeded random order of the plan, so a table stopped
early is a uniform subsample of the planned one (but for the chunks in flight at the stop, which a
resume computes first). With ``within`` (a tabular benchmark over a subset of the
space, e.g. ``nb101-slice``, NB101's 30,001 cells with real accuracies at 4 to 108 epochs) the
architectures are drawn from that benchmark's cells only, so every row has its real values.

Columns: ``arch`` (the space's text form), ``row`` (the architecture's row in a finite space,
missing otherwise), one column per proxy with its value and ``<proxy>_seconds`` with its measured
seconds (:class:`.proxy.ProxyResult`), and ``device``. The file's metadata records the settings
(space, proxies, sample, seed, image size, scale, device type, the data source and a digest of
the minibatch), whether the table is complete, and its provenance (nasarena's and torch's
versions, when it was written).

With ``beside`` (a table of the same settings but the device, computed elsewhere: on a GPU,
say) only the architectures that table does not hold are computed, read from it once when the
call starts; the two tables together are the plan, and this one is complete when they hold
every architecture between them. Each is then a uniform sample only together with the other.

Resumable after ``kill -9``: a second call with the same settings reads the rows written so far
and computes only the missing architectures. A file of other settings, or not written by this
command, is refused and kept; so is a second writer with other settings while one runs
(:func:`nasarena.io.outputs.writer_lock`).

:func:`read_table` reads a table back for ``nasarena estimators evaluate`` and refuses one that is
not as this command writes it, saying what is wrong: a missing file, absent settings (a table
re-saved by pandas loses them), a missing column, rows without an architecture or measured
seconds, an architecture in more than one row (:func:`table_problems`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataFileError, InvalidSettingError, OutputError
from ..estimators import PROXIES
from ..execution import run_tasks
from ..io.outputs import writer_lock
from ..io.settings_parquet import read_settings as read_parquet_settings
from ..io.settings_parquet import write_with_settings
from ..training.threads import one_thread, worker_on_one_thread

METADATA_KEY = b"nasarena-estimators"
#: Architectures per task: a chunk is the unit that a kill loses and a resume recomputes.
CHUNK = 8
#: What a worker needs: imported once by the fork server (torch alone takes seconds).
WORKER_MODULES = ("nasarena.estimators.compute", "nasarena.estimators.saliency", "nasarena.estimators.synflow",
                  "nasarena.estimators.naswot", "nasarena.estimators.zen", "nasarena.estimators.jacob_cov",
                  "nasarena.estimators.size")
#: Draws of the sampler per architecture asked for before a sample of distinct ones gives up.
MAX_DRAWS_PER_ARCHITECTURE = 50
#: The settings an evaluation reads: the table's space, its proxies (its columns) and its seed.
EVALUATED_SETTINGS = ("space", "proxies", "seed")
#: File rows (or repeated architectures) named in a message before the rest are only counted.
NAMED_ROWS = 5


def plan(space: str, sample: int | None, seed: int, unique: bool = False,
         within: str | None = None) -> list[tuple[str, int | None]]:
    """``(text, row)`` of the architectures of a table, in its order (see the module docstring)."""
    from ..estimators.compute import derived_seed
    from ..spaces.registry import space as space_named

    owner = space_named(space, needs="network")
    finite = hasattr(owner, "at_row") and isinstance(getattr(owner, "size", None), int)
    if unique and not finite:
        raise InvalidSettingError(f"--unique needs a finite space with the benchmark's de-duplication; {space} "
                                  "is not one (its sample draws distinct architectures already)")
    if within is not None and unique:
        raise InvalidSettingError("--within and --unique: choose one way to restrict the architectures")
    candidates = _rows_within(owner, within) if within is not None else \
        _candidate_rows(owner, unique) if finite else None
    if sample is None:
        if candidates is None:
            raise InvalidSettingError(f"the {space} space cannot be enumerated; give --sample N")
        rows: Sequence[int] | np.ndarray = candidates
    else:
        if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
            raise InvalidSettingError(f"--sample {sample!r} must be a whole number >= 1")
        rng = np.random.default_rng(derived_seed(seed, "sample"))
        if candidates is None:
            return _distinct_draws(owner, sample, rng)
        if sample > len(candidates):
            kind = "unique architectures of" if unique else "cells in"
            raise InvalidSettingError(f"--sample {sample:,} is larger than the {kind} the {space} space "
                                      f"({len(candidates):,})")
        rows = sorted(int(candidates[i]) for i in rng.choice(len(candidates), size=sample, replace=False))
    return [(owner.to_text(owner.at_row(row)), int(row)) for row in rows]


def _candidate_rows(owner, unique: bool) -> np.ndarray:
    """The rows a table draws from: all of a finite space, or with ``unique`` one per class of the
    benchmark's de-duplication (the space's ``representatives`` capability, :mod:`nasarena.spaces.protocol`:
    NB201's 6,466; spaces without one are refused)."""
    if not unique:
        return np.arange(owner.size, dtype=np.int64)
    if getattr(owner, "representatives", None) is None:
        from ..spaces.registry import spaces_with

        raise InvalidSettingError(f"--unique: the {owner.name} space has no benchmark de-duplication here "
                                  f"({', '.join(spaces_with('representatives'))} has)")
    representatives = owner.representatives()
    return np.flatnonzero(representatives == np.arange(len(representatives)))


def _rows_within(owner, benchmark: str) -> np.ndarray:
    """The space rows of the cells of ``benchmark``, a tabular benchmark over a subset of the
    space (its ``positions``); any other benchmark is refused naming what it needs."""
    from ..benchmarks.registry import benchmark as load

    bench = load(benchmark)
    positions = getattr(bench, "positions", None)
    if bench.space.name != owner.name:
        raise InvalidSettingError(f"--within {benchmark}: its cells are {bench.space.name} cells, the table's are "
                                  f"{owner.name} cells")
    if positions is None:
        raise InvalidSettingError(f"--within {benchmark}: a table draws from a benchmark over a subset of the "
                                  f"{owner.name} space (e.g. nb101-slice); {benchmark} holds all of it")
    return np.asarray(positions, dtype=np.int64)


def _distinct_draws(owner, sample: int, rng: np.random.Generator) -> list[tuple[str, int | None]]:
    found: dict[str, str] = {}
    for _ in range(sample * MAX_DRAWS_PER_ARCHITECTURE):
        if len(found) == sample:
            break
        arch = owner.sample(rng)
        found.setdefault(str(owner.identity(arch)), owner.to_text(arch))
    if len(found) < sample:
        raise InvalidSettingError(f"the {owner.name} sampler gave {len(found):,} distinct architectures in "
                                  f"{sample * MAX_DRAWS_PER_ARCHITECTURE:,} draws; ask for fewer")
    return [(text, None) for text in found.values()]


def compute_table(space: str, proxies: Sequence[str], out: Path, *, sample: int | None = None, seed: int = 0,
                  unique: bool = False, within: str | None = None, jobs: int = 1, device: str = "auto", data=None,
                  image_size: int = 32, scale: dict | None = None, beside: Path | None = None,
                  on_chunk: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Compute (or resume) the table of ``proxies`` into the Parquet file ``out``; all its rows.

    ``data``: the CIFAR-10 source (:func:`nasarena.training.load_cifar10`; read only when a
    proxy reads images); ``beside``: a table whose architectures are left out (see the module);
    ``on_chunk(rows done, rows planned)`` after every finished chunk (planned: this table's share).
    """
    from ..estimators.compute import derived_seed, proxies_named, proxy_scale
    from ..training.device import pick_device

    chosen = [proxy.name for proxy in proxies_named(proxies)]
    for name, value, low in (("seed", seed, 0), ("jobs", jobs, 1), ("image_size", image_size, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidSettingError(f"{name}={value!r} must be a whole number >= {low}")
    out = Path(out)
    if out.is_dir():
        raise OutputError(f"--out {out} is a folder; compute writes one Parquet file: name a file, e.g. "
                          f"{out / 'proxies.parquet'}")
    knobs = proxy_scale(space, scale)  # refuses a space without a network
    architectures = plan(space, sample, seed, unique, within)
    target = pick_device(device)
    images, labels, source = _minibatch(proxies_named(chosen), data, image_size, seed)
    settings = {"space": space, "proxies": chosen, "sample": sample, "unique": unique, "seed": seed,
                "image_size": image_size,
                "scale": knobs, "device": target.type, "data": source,
                "minibatch_sha256": hashlib.sha256(images.tobytes() + labels.tobytes()).hexdigest(),
                **({"within": within} if within is not None else {})}  # absent when unset: older tables resume
    elsewhere = set() if beside is None else _held_beside(Path(beside), out, settings)
    with writer_lock(out, settings):
        rows = _existing_rows(out, settings)
        order = {text: position for position, (text, _) in enumerate(architectures)}
        # computed in one seeded random order of the whole plan (the file keeps the table's order):
        # a run stopped early leaves a uniform subsample of the planned architectures, not its first
        # rows. The order is the plan's, not the missing ones', so a resume first computes what the
        # last stop had in flight, and stops do not pile up a lack of the slowest architectures.
        shuffle = np.random.default_rng(derived_seed(seed, "order")).permutation(len(architectures))
        missing = [architectures[i] for i in shuffle
                   if architectures[i][0] not in rows and architectures[i][0] not in elsewhere]
        share = len(missing) + len(rows)
        chunks = [tuple(missing[start:start + CHUNK]) for start in range(0, len(missing), CHUNK)]
        tasks = [(space, chunk, tuple(chosen), images, labels, image_size, seed, str(target),
                  tuple(sorted((scale or {}).items()))) for chunk in chunks]

        def done(task: tuple, finished: list[dict]) -> None:
            for record in finished:
                rows[record["arch"]] = record
            _write(out, _frame(rows, order, chosen), {**settings, "complete": len(rows) == share,
                                                      "provenance": _provenance()})
            if on_chunk is not None:
                on_chunk(len(rows), share)

        if not tasks:  # complete already: make sure the file says so
            _write(out, _frame(rows, order, chosen), {**settings, "complete": True, "provenance": _provenance()})
        run_tasks(compute_chunk, tasks, jobs, done, initializer=worker_on_one_thread, preload=WORKER_MODULES)
        return _frame(rows, order, chosen)


def _minibatch(proxies, data, image_size: int, seed: int) -> tuple[np.ndarray, np.ndarray, str | None]:
    """The run's minibatch as arrays, and the data source (None when no proxy reads data)."""
    from ..estimators.compute import batch_size, minibatch

    size = batch_size(proxies)
    if size == 0:
        return (np.zeros((0, 3, image_size, image_size), dtype=np.float32), np.zeros(0, dtype=np.int64), None)
    from ..training import load_cifar10

    dataset = load_cifar10(data, image_size=image_size)
    images, labels = minibatch(dataset, size, seed)
    return images.numpy(), labels.numpy(), str(dataset.source)


def compute_chunk(space: str, chunk: tuple, proxies: tuple, images: np.ndarray, labels: np.ndarray,
                  image_size: int, seed: int, device: str, scale: tuple) -> list[dict]:
    """The rows of one chunk of ``(text, row)`` architectures (in a worker or this process).

    Always on one torch thread, restored afterwards: a CPU reduction's summation order depends on
    the thread count, so this makes a table's values the same bits for every ``jobs`` (a table
    resumed with another ``--jobs`` stays one table).
    """
    import torch

    from ..estimators.compute import compute_proxies

    tensors = torch.from_numpy(images), torch.from_numpy(labels)
    records = []
    with one_thread():
        for text, row in chunk:
            result = compute_proxies(space, text, proxies, images=tensors[0], labels=tensors[1],
                                     image_size=image_size, seed=seed, device=device, scale=dict(scale))
            records.append({"arch": result.arch, "row": row, **result.values,
                            **{f"{name}_seconds": seconds for name, seconds in result.seconds.items()},
                            "device": result.device})
    return records


def _provenance() -> dict:
    """What wrote the file: versions of nasarena and torch, and when (not part of the settings: a
    table resumed after an upgrade records the last writer)."""
    import datetime

    import torch

    from ..version import __version__

    return {"nasarena": __version__, "torch": torch.__version__,
            "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


def read_settings(out: Path) -> dict | None:
    """The settings a proxy table was written with; None if the file has none (not ours)."""
    return read_parquet_settings(out, METADATA_KEY)


def read_table(path: Path) -> tuple[pd.DataFrame, dict]:
    """The table in the Parquet file ``path`` and its settings, for an evaluation. A file that is
    not a table as this command writes it is a :class:`DataFileError` saying what is wrong: it
    does not exist, is not Parquet, lacks the settings (or some of :data:`EVALUATED_SETTINGS`), or
    has the :func:`table_problems` of its rows (every one found is named)."""
    path = Path(path)
    if not path.exists():
        raise DataFileError(f"--table {path} does not exist; name a Parquet file of `nasarena estimators compute`")
    if path.is_dir():
        raise DataFileError(f"--table {path} is a folder; name the Parquet file `nasarena estimators compute` wrote")
    try:
        settings = read_settings(path)
    except OutputError:
        raise DataFileError(f"--table {path} is not a Parquet file; name one that `nasarena estimators compute` "
                            "wrote") from None
    problems = []
    if settings is None:
        problems.append(f"its Parquet metadata has no {METADATA_KEY.decode()} entry, the settings compute records "
                        f"({', '.join(EVALUATED_SETTINGS)}, ...); a table re-saved by pandas or another tool loses "
                        "them: evaluate the file compute wrote")
    else:
        absent = [key for key in EVALUATED_SETTINGS if key not in settings]
        if absent:
            problems.append(f"its {METADATA_KEY.decode()} settings lack {', '.join(absent)}")
    frame = pd.read_parquet(path)
    problems += table_problems(frame, None if settings is None else settings.get("proxies"))
    if problems:
        raise DataFileError(f"--table {path} cannot be evaluated: {'; '.join(problems)}")
    return frame, settings


def table_problems(frame: pd.DataFrame, proxies: Sequence[str] | None = None) -> list[str]:
    """What keeps ``frame`` from being judged as a table of this command, one sentence each (none:
    it can be): a missing column (``arch``, each of ``proxies``, default the registered proxies
    among its columns, and its ``<proxy>_seconds``), rows without an architecture or without a
    measured cost, and an architecture in more than one row, which would count once per row in
    every correlation (a computed table holds each architecture once: such a table is refused,
    not silently de-duplicated, since its copies may disagree). Rows are the file's, from 0."""
    if proxies is None:
        proxies = [name for name in PROXIES if name in frame.columns]
    columns = ["arch", *proxies, *(f"{name}_seconds" for name in proxies)]
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        return [f"column{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing"]
    problems = []
    archs = frame["arch"].reset_index(drop=True)  # labelled by file row
    empty = np.flatnonzero(archs.isna().to_numpy())
    if len(empty):
        problems.append(f"no architecture (arch is empty) in {_rows(empty)}")
    seconds = frame[[f"{name}_seconds" for name in proxies]].reset_index(drop=True)
    unmeasured = np.flatnonzero(seconds.isna().any(axis=1).to_numpy())
    if len(unmeasured):
        columns = [column for column in seconds.columns if seconds[column].isna().any()]
        problems.append(f"no measured seconds ({', '.join(columns)} empty) in {_rows(unmeasured)}")
    known = archs.dropna()
    repeated = known[known.duplicated(keep=False)]
    if len(repeated):
        copies = list(repeated.groupby(repeated, sort=False).groups.items())
        named = "; ".join(f"{text} in {_rows(np.asarray(rows))}" for text, rows in copies[:NAMED_ROWS])
        more = f"; and {len(copies) - NAMED_ROWS:,} more" if len(copies) > NAMED_ROWS else ""
        problems.append(f"architectures in more than one row, each copy counting in every correlation (a computed "
                        f"table holds each architecture once): {named}{more}")
    return problems


def _rows(positions: np.ndarray) -> str:
    """``positions`` (file rows, from 0) in words: the first :data:`NAMED_ROWS`, then how many more."""
    named = ", ".join(str(int(position)) for position in positions[:NAMED_ROWS])
    more = f" and {len(positions) - NAMED_ROWS:,} more" if len(positions) > NAMED_ROWS else ""
    return f"row{'s' if len(positions) > 1 else ''} {named}{more} (from 0)"


def _existing_rows(out: Path, settings: dict) -> dict[str, dict]:
    """The rows already in ``out`` by architecture text; refuses a file that is not ours or was
    written with other settings."""
    if not out.exists():
        return {}
    stored = read_settings(out)
    if stored is None:
        raise OutputError(f"{out} exists and was not written by `nasarena estimators compute`; it is kept: "
                          "choose another --out")
    differing = _differing(stored, settings)
    if differing:
        raise OutputError(f"{out} was computed with other settings ({', '.join(differing)} differ); it is kept: "
                          "use the same settings to resume it, or another --out")
    frame = pd.read_parquet(out)
    return {record["arch"]: record for record in frame.to_dict("records")}


def _differing(stored: dict, settings: dict) -> list[str]:
    """The keys of ``settings`` whose value a file's ``stored`` settings do not have (compared as
    they read back from the file's JSON: tuples as lists), sorted."""
    wanted = json.loads(json.dumps(settings))
    return sorted(key for key in wanted if stored.get(key) != wanted[key])


def _held_beside(beside: Path, out: Path, settings: dict) -> set[str]:
    """The architectures of the table ``beside``, whose share ``out`` leaves out; refused unless it
    is a table of this command with ``settings`` but the device, and not ``out`` itself."""
    if not beside.is_file():
        raise DataFileError(f"--beside {beside} is not a file; name a table of `nasarena estimators compute`")
    if out.exists() and beside.resolve() == out.resolve():
        raise InvalidSettingError(f"--beside {beside} is --out itself; name the table computed elsewhere")
    try:
        stored = read_settings(beside)
    except OutputError:
        stored = None
    if stored is None:
        raise DataFileError(f"--beside {beside} is not a table of `nasarena estimators compute` (no settings)")
    differing = [key for key in _differing(stored, settings) if key != "device"]
    if differing:
        raise DataFileError(f"--beside {beside} was computed with other settings ({', '.join(differing)} differ); "
                            "its architectures are not this table's to leave out")
    return set(pd.read_parquet(beside, columns=["arch"])["arch"])


def _frame(rows: dict[str, dict], order: dict[str, int], proxies: Sequence[str]) -> pd.DataFrame:
    columns = ["arch", "row", *proxies, *(f"{name}_seconds" for name in proxies), "device"]
    ordered = sorted(rows.values(), key=lambda record: order[record["arch"]])
    frame = pd.DataFrame(ordered, columns=columns)
    frame["row"] = frame["row"].astype("Int64")
    return frame


def _write(out: Path, frame: pd.DataFrame, settings: dict) -> None:
    write_with_settings(out, frame, settings, METADATA_KEY)
