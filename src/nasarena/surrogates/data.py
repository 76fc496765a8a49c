"""Training data for surrogates: a user's Parquet or CSV file, checked row by row.

One row is one training run. Columns:

- ``arch`` (required): the architecture in its space's text form (``space.from_text``):
  NB101 ``{"matrix": [[...]], "ops": [...]}`` JSON or module hash, NB201 cell string, DARTS
  genotype text, FBNet block list;
- ``valid_accuracy`` (required): a fraction in [0, 1] or a percentage in [0, 100]; the scale
  is detected from the column's maximum (above 1: percent) and reported;
- ``cost_seconds`` (optional): training time of the run; empty where unknown;
- ``source`` (optional): what collected the architecture (``rs``, ``re``, an optimizer...),
  the strata of the train/validation/test split; ``unknown`` where absent;
- ``fidelity`` (optional): training epochs; the space's benchmark epochs where absent;
- ``test_accuracy`` (optional): same scale rules as ``valid_accuracy``; empty where unknown.

Other columns are ignored. A bad value is a ``ValueError`` naming the data row (1 = the first
row after the header) and the column. The same architecture may appear several times (repeated
evaluations, or several fidelities).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .spaces import default_epochs

REQUIRED_COLUMNS = ("arch", "valid_accuracy")
OPTIONAL_COLUMNS = ("cost_seconds", "source", "fidelity", "test_accuracy")
UNKNOWN_SOURCE = "unknown"


@dataclass(frozen=True)
class TrainingData:
    """Checked training runs, one entry per row; accuracies are fractions, NaN where unknown.

    ``sha256`` identifies the data (of the file it was read from, or of its canonical CSV
    form when built in memory: ``description`` says which); ``notes`` say what was detected
    or filled in while reading.
    """

    archs: Sequence  # a tuple, or spaces.IndexedArchitectures for rows of a finite space
    identities: np.ndarray
    valid_accuracy: np.ndarray
    fidelity: np.ndarray
    cost_seconds: np.ndarray
    source: np.ndarray
    test_accuracy: np.ndarray
    sha256: str
    description: str
    value_scale: str = "fraction"
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.archs)

    @property
    def fidelities(self) -> tuple[int, ...]:
        return tuple(int(f) for f in np.unique(self.fidelity))

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(str(s) for s in np.unique(self.source))

    def subset(self, rows, description: str) -> TrainingData:
        """The rows ``rows`` only (e.g. a learning-curve subsample), described anew."""
        rows = np.asarray(rows, dtype=np.int64)
        archs = self.archs.take(rows) if hasattr(self.archs, "take") else tuple(self.archs[i] for i in rows.tolist())
        return TrainingData(
            archs=archs,
            identities=self.identities[rows],
            valid_accuracy=self.valid_accuracy[rows], fidelity=self.fidelity[rows],
            cost_seconds=self.cost_seconds[rows], source=self.source[rows], test_accuracy=self.test_accuracy[rows],
            sha256=self.sha256, description=description, value_scale=self.value_scale, notes=self.notes)


def read_training_data(path: Path, space, fidelity: int | None = None) -> TrainingData:
    """Read and check a ``.csv`` (optionally compressed) or ``.parquet`` file of training runs.

    ``fidelity`` is the epochs of rows without a ``fidelity`` column (default: the space's
    benchmark epochs).
    """
    path = Path(path)
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"training data file {path} does not exist") from None
    suffixes = "".join(path.suffixes).lower()
    if ".parquet" in suffixes or suffixes.endswith(".pq"):
        frame = pd.read_parquet(path)
    elif ".csv" in suffixes:
        frame = pd.read_csv(path, dtype={"arch": str, "source": str}, keep_default_na=True)
    else:
        raise ValueError(f"{path}: training data must be a .csv or .parquet file")
    return training_data_from_frame(frame, space, fidelity=fidelity, sha256=hashlib.sha256(content).hexdigest(),
                                    description=f"file {path.name}")


def training_data_from_frame(frame: pd.DataFrame, space, fidelity: int | None = None, sha256: str | None = None,
                             description: str = "data built in memory") -> TrainingData:
    """Check a table with the file columns (see the module docstring).

    Without ``sha256`` the data is identified by the sha256 of its canonical CSV form.
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"training data needs the column(s) {', '.join(missing)}; "
                         f"found: {', '.join(map(str, frame.columns))}")
    if len(frame) == 0:
        raise ValueError("training data has no rows")
    frame = frame.reset_index(drop=True)
    notes: list[str] = []
    archs, identities = _parse_architectures(frame["arch"], space)
    valid, scale = _accuracies(frame["valid_accuracy"], "valid_accuracy", required=True, notes=notes)
    test = (_accuracies(frame["test_accuracy"], "test_accuracy", required=False, notes=notes)[0]
            if "test_accuracy" in frame else np.full(len(frame), np.nan))
    cost = _costs(frame["cost_seconds"]) if "cost_seconds" in frame else np.full(len(frame), np.nan)
    if "fidelity" in frame:
        epochs = _fidelities(frame["fidelity"])
    else:
        epochs = np.full(len(frame), fidelity or default_epochs(space.name), dtype=np.int64)
        notes.append(f"no fidelity column: every row is a run of {int(epochs[0])} epochs")
    if "source" in frame:
        source = frame["source"].astype(object).where(frame["source"].notna(), UNKNOWN_SOURCE).astype(str).to_numpy()
    else:
        source = np.full(len(frame), UNKNOWN_SOURCE, dtype=object).astype(str)
        notes.append(f"no source column: the split is stratified over one source ({UNKNOWN_SOURCE!r})")
    if sha256 is None:
        sha256 = canonical_digest(identities, valid, epochs, cost, source, test)
        description += " (sha256 of its canonical CSV form)"
    return TrainingData(archs=archs, identities=identities, valid_accuracy=valid, fidelity=epochs,
                        cost_seconds=cost, source=source, test_accuracy=test, sha256=sha256,
                        description=description, value_scale=scale, notes=tuple(notes))


def canonical_digest(identities, valid, fidelity, cost, source, test) -> str:
    """sha256 of the data as CSV with architectures by identity: what identifies data built in memory."""
    canonical = pd.DataFrame({"arch": identities, "valid_accuracy": valid, "fidelity": fidelity,
                              "cost_seconds": cost, "source": source, "test_accuracy": test})
    return hashlib.sha256(canonical.to_csv(index=False).encode()).hexdigest()


def _parse_architectures(column: pd.Series, space) -> tuple[tuple, np.ndarray]:
    parsed: dict[str, tuple[object, str]] = {}
    archs, identities = [], []
    for row, text in enumerate(column.tolist(), start=1):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"data row {row}, column 'arch': expected the architecture's text, got {text!r}")
        known = parsed.get(text)
        if known is None:
            try:
                arch = space.from_text(text)
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(f"data row {row}, column 'arch': {error}") from None
            if getattr(arch, "is_valid", True) is False:
                raise ValueError(f"data row {row}, column 'arch': the architecture is outside the {space.name} "
                                 f"space ({arch.reason})")
            known = parsed[text] = (arch, space.identity(arch))
        archs.append(known[0])
        identities.append(known[1])
    return tuple(archs), np.array(identities, dtype=object)


def _numbers(column: pd.Series, name: str) -> np.ndarray:
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(np.isnan(values) & column.notna().to_numpy())
    if len(bad):
        raise ValueError(f"data row {bad[0] + 1}, column {name!r}: {column.iloc[bad[0]]!r} is not a number")
    return values


def _accuracies(column: pd.Series, name: str, required: bool, notes: list[str]) -> tuple[np.ndarray, str]:
    values = _numbers(column, name)
    missing = np.flatnonzero(np.isnan(values))
    if required and len(missing):
        raise ValueError(f"data row {missing[0] + 1}, column {name!r}: value is missing")
    outside = np.flatnonzero((values < 0) | (values > 100))
    if len(outside):
        raise ValueError(f"data row {outside[0] + 1}, column {name!r}: {values[outside[0]]} is not an accuracy "
                         f"(a fraction in [0, 1] or a percentage in [0, 100])")
    if np.all(np.isnan(values)):
        return values, "fraction"
    largest = float(np.nanmax(values))
    if largest > 1.0:
        notes.append(f"{name} is in percent (largest value {largest:g}): divided by 100")
        return values / 100.0, "percent"
    notes.append(f"{name} is a fraction (largest value {largest:g})")
    return values, "fraction"


def _costs(column: pd.Series) -> np.ndarray:
    values = _numbers(column, "cost_seconds")
    negative = np.flatnonzero(values < 0)
    if len(negative):
        raise ValueError(f"data row {negative[0] + 1}, column 'cost_seconds': {values[negative[0]]} is negative")
    return values


def _fidelities(column: pd.Series) -> np.ndarray:
    values = _numbers(column, "fidelity")
    bad = np.flatnonzero(np.isnan(values) | (values < 1) | (values != np.round(values)))
    if len(bad):
        raise ValueError(f"data row {bad[0] + 1}, column 'fidelity': {column.iloc[bad[0]]!r} is not a positive "
                         f"whole number of epochs")
    return values.astype(np.int64)
