"""The official NB101 files converted into nasarena's columnar store, and loaded back.

``nasarena nb101 import nasbench_full.tfrecord --out DIR`` streams the TFRecord file once,
checks every record (CRCs, JSON, protobuf, and the record's hash against our own hash of its
cell) and writes one dense float32 array: unique cells (sorted-hash order) x budgets
{4, 12, 36, 108} x trials 3 x {end, halfway} x metrics. The store is written to a temporary
directory that replaces ``DIR`` only when complete, so a crash or a bad record leaves nothing
partial behind. ``DIR`` is replaced only when it is absent or an earlier store (it holds the
``store.json`` manifest); any other file or folder, and a ``DIR`` holding the source, is refused. Loading memory-maps the array: well under a second and little resident memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DataFileError
from ..io.nb101_records import parse_record
from ..io.tfrecord import iter_records
from ..spaces.nb101 import NUM_UNIQUE_CELLS, Cell
from .nb101 import FIDELITIES, NB101Benchmark
from .protocol import Description
from .tabular import END, HALFWAY, METRICS, TabularData

STORE_FORMAT = 1
NUM_TRIALS = 3
VALUES_FILE = "values.npy"
PARAMETERS_FILE = "trainable_parameters.npy"
MANIFEST_FILE = "store.json"


class RecordImportError(DataFileError):
    """A record of an official file cannot be converted; the message names its byte offset."""


@dataclass(frozen=True)
class ImportSummary:
    records: int
    cells: int
    seconds: float
    out: Path
    #: What the file lacks against a complete official file ("" when nothing).
    missing: str = ""


def _stage_metrics(evaluation) -> tuple[float, float, float, float]:
    """(train, valid, test, training time) in ``METRICS`` order from one EvaluationData."""
    return (evaluation.train_accuracy, evaluation.validation_accuracy, evaluation.test_accuracy, evaluation.training_time)


def convert(source: Path, out: Path) -> ImportSummary:
    """Convert an official NB101 TFRecord file into a store directory at ``out``."""
    start = time.perf_counter()
    _check_destination(Path(source), Path(out))
    budget_index = {epochs: i for i, epochs in enumerate(FIDELITIES)}
    values = np.full((NUM_UNIQUE_CELLS, len(FIDELITIES), NUM_TRIALS, 2, len(METRICS)), np.nan, dtype=np.float32)
    parameters = np.zeros(NUM_UNIQUE_CELLS, dtype=np.int64)
    trials_seen = np.zeros((NUM_UNIQUE_CELLS, len(FIDELITIES)), dtype=np.int8)
    verified: dict[str, int] = {}
    records = 0
    for offset, data in iter_records(source):
        record = parse_record(data, offset)
        row = verified.get(record.module_hash)
        if row is None:
            row = _verified_row(record, offset)
            verified[record.module_hash] = row
        budget = budget_index.get(record.epochs)
        if budget is None:
            raise RecordImportError(f"record at offset {offset}: unknown budget of {record.epochs} epochs "
                               f"(expected one of {list(FIDELITIES)})")
        trial = trials_seen[row, budget]
        if trial >= NUM_TRIALS:
            raise RecordImportError(f"record at offset {offset}: more than {NUM_TRIALS} trials of "
                               f"{record.module_hash} at {record.epochs} epochs")
        evaluations = record.metrics.evaluation_data
        if len(evaluations) < 3:
            raise RecordImportError(f"record at offset {offset}: {len(evaluations)} evaluations, expected 3 "
                               "(start, halfway, end)")
        values[row, budget, trial, END] = _stage_metrics(evaluations[2])
        values[row, budget, trial, HALFWAY] = _stage_metrics(evaluations[1])
        parameters[row] = record.metrics.trainable_parameters
        trials_seen[row, budget] = trial + 1
        records += 1
    if records == 0:
        raise RecordImportError(f"{source} holds no records: nothing to import")
    present = trials_seen.any(axis=0)  # nasbench_only108 holds the 108-epoch budget only
    budgets = tuple(epochs for epochs, keep in zip(FIDELITIES, present) if keep)
    missing = _missing(trials_seen[:, present], budgets)
    _write_store(out, values[:, present], parameters, budgets, source, records, missing)
    return ImportSummary(records=records, cells=len(verified), seconds=time.perf_counter() - start, out=out,
                         missing=describe_missing(missing))


def _missing(trials_seen: np.ndarray, budgets: tuple[int, ...]) -> dict:
    """What a complete official file would hold and this one does not (a truncated or partial
    file imports, but every query and ``describe()`` must be able to say what is absent)."""
    absent_cells = int((trials_seen.sum(axis=1) == 0).sum())
    held = trials_seen.sum(axis=1) > 0
    return {
        "cells": absent_cells,
        "cell_budgets": int(((trials_seen == 0) & held[:, None]).sum()),
        "trials": int((NUM_TRIALS - trials_seen[held]).sum()),
        "budgets": list(budgets),
    }


def describe_missing(missing: dict | None) -> str:
    """One line on what a store lacks ("" when it holds every cell, budget and trial)."""
    if not missing or not (missing["cells"] or missing["trials"]):
        return ""
    return (f"{missing['cells']:,} of {NUM_UNIQUE_CELLS:,} cells are absent (NaN), and {missing['trials']:,} trials "
            f"of the cells present ({missing['cell_budgets']:,} cell budgets without any trial)")


def is_store(path: Path) -> bool:
    """Whether ``path`` is a store written by ``convert`` (a folder with a readable manifest)."""
    try:
        manifest = json.loads((Path(path) / MANIFEST_FILE).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and "format" in manifest


def _check_destination(source: Path, out: Path) -> None:
    """Refuse an ``out`` that is not ours to replace: a file, a folder that is not a store, or
    one that holds ``source`` (replacing it would delete the data being imported)."""
    from ..errors import OutputError

    target, origin = out.resolve(), source.resolve()
    if origin == target or target in origin.parents:
        raise OutputError(f"--out {out} holds the source file {source}; choose another directory")
    replaceable = out.is_dir() and (is_store(out) or not any(out.iterdir()))
    if out.is_symlink() or (out.exists() and not replaceable):
        raise OutputError(f"--out {out} exists and is not an NB101 store (no {MANIFEST_FILE}); nasarena replaces "
                          "only its own stores: choose a new or empty path")


def _verified_row(record, offset: int) -> int:
    """Row of the record's cell, after checking its hash against our own hash of the cell."""
    try:
        cell = Cell(np.array(record.matrix), list(record.ops))
    except ValueError as error:
        raise RecordImportError(f"record at offset {offset}: malformed cell: {error}") from None
    if not cell.is_valid:
        raise RecordImportError(f"record at offset {offset}: cell outside the space: {cell.reason}")
    if cell.hash != record.module_hash:
        raise RecordImportError(f"record at offset {offset}: hash mismatch: the record says {record.module_hash}, "
                           f"its cell hashes to {cell.hash}")
    return cell.row


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_store(
    out: Path, values: np.ndarray, parameters: np.ndarray, budgets: tuple[int, ...], source: Path, records: int,
    missing: dict,
) -> None:
    from ..errors import OutputError

    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    except OSError as error:
        raise OutputError(f"cannot write the store next to {out}: {error.strerror or error}") from None
    try:
        np.save(staging / VALUES_FILE, values)
        np.save(staging / PARAMETERS_FILE, parameters)
        manifest = {
            "format": STORE_FORMAT,
            "source": Path(source).name,
            "records": records,
            "budgets": list(budgets),
            "trials": NUM_TRIALS,
            "missing": missing,
            "metrics": list(METRICS),
            "files": {name: _sha256(staging / name) for name in (VALUES_FILE, PARAMETERS_FILE)},
        }
        (staging / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
        if out.exists():
            retired = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old."))
            os.replace(out, retired / out.name)
            os.replace(staging, out)
            shutil.rmtree(retired)
        else:
            os.replace(staging, out)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(f"cannot write the store {out}: {error.strerror or error}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def load_store(path, verify: bool = False, seed: int = 0, compatible_random_stream: bool = False) -> NB101Benchmark:
    """The ``nb101`` benchmark from a store directory (memory-mapped).

    ``verify=True`` also checks the sha256 of every file (about 0.3 s more for the full file).
    """
    path = Path(path)
    try:
        manifest = json.loads((path / MANIFEST_FILE).read_text())
    except FileNotFoundError:
        raise DataFileError(f"{path} is not an NB101 store (no {MANIFEST_FILE}); "
                            "create one with `nasarena nb101 import`") from None
    except (OSError, ValueError) as error:
        raise DataFileError(f"{path / MANIFEST_FILE} cannot be read: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != STORE_FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise DataFileError(f"{path}: store format {found} is not supported (expected {STORE_FORMAT})")
    if verify:
        for name, expected in manifest["files"].items():
            if _sha256(path / name) != expected:
                raise DataFileError(f"{path / name} is corrupted: its sha256 differs from {MANIFEST_FILE}")
    try:
        values = np.load(path / VALUES_FILE, mmap_mode="r")
        parameters = np.load(path / PARAMETERS_FILE)
        budgets = tuple(manifest["budgets"])
    except (OSError, ValueError, KeyError) as error:
        raise DataFileError(f"{path}: the store cannot be read ({error}); import it again") from None
    expected_shape = (NUM_UNIQUE_CELLS, len(budgets), NUM_TRIALS, 2, len(METRICS))
    if values.shape != expected_shape or values.dtype != np.float32:
        raise DataFileError(f"{path / VALUES_FILE}: shape {values.shape} {values.dtype}, expected {expected_shape} float32")
    data = TabularData(values, budgets, parameters)
    missing = describe_missing(manifest.get("missing"))
    description = Description(
        name="nb101",
        version=f"store-{STORE_FORMAT}",
        num_architectures=len(values),
        fidelities=budgets,
        trials=NUM_TRIALS,
        metrics=("train_accuracy", "valid_accuracy", "test_accuracy", "cost_seconds", "trainable_parameters"),
        real=(f"{'the values present' if missing else 'every value'}, imported from {manifest['source']} "
              f"({manifest['records']:,} records)"),
        modelled="nothing" + (f"; incomplete store: {missing}" if missing else ""),
        provenance=f"official NAS-Bench-101 file {manifest['source']}, converted by `nasarena nb101 import`",
    )
    return NB101Benchmark("nb101", description.version, data, description, seed=seed,
                          compatible_random_stream=compatible_random_stream)
