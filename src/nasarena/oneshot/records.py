"""What a one-shot run records after every epoch, and reading it back (torch-free)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataFileError
from ..training.epochs import EpochRecord


@dataclass(frozen=True)
class SearchEpochRecord(EpochRecord):
    """One finished epoch of a search: one-shot errors, the discretised architecture and its NB101
    numbers (the one-shot fields of the shared :class:`~nasarena.training.epochs.EpochRecord`).

    Errors and accuracies are fractions in [0, 1]; ``test_regret`` is the best test accuracy of the
    space minus this architecture's; ``search_seconds`` is the training part of the epoch,
    ``seconds`` includes choosing the architecture and the one-shot validation pass.
    The architecture weights of the epoch are in the run's ``weights/epoch-NNN.npz``.
    """

    optimizer: str
    space: str
    seed: int
    train_error: float
    train_loss: float
    valid_error: float
    architecture: str
    nb101_hash: str
    nb101_valid_accuracy: float
    nb101_test_accuracy: float
    test_regret: float
    learning_rate: float
    search_seconds: float
    seconds: float


RECORDS_FILE = "records.jsonl"


def records_text(records: list[SearchEpochRecord]) -> bytes:
    return "".join(json.dumps(r.to_dict()) + "\n" for r in records).encode()


def read_records(run_dir: str | Path) -> list[SearchEpochRecord]:
    """The finished epochs of one run directory, in order (DataFileError naming the file if unreadable)."""
    file = Path(run_dir) / RECORDS_FILE
    try:
        lines = file.read_text().splitlines()
        return [SearchEpochRecord.from_dict(json.loads(line)) for line in lines if line.strip()]
    except FileNotFoundError:
        raise DataFileError(f"{file}: no records (is {run_dir} a one-shot run directory?)") from None
    except (ValueError, KeyError, TypeError) as error:
        raise DataFileError(f"{file}: not a one-shot records file ({error})") from None
