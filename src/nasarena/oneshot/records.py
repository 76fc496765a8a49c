"""What a one-shot run records after every epoch, and reading it back (torch-free)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataFileError


@dataclass(frozen=True)
class EpochRecord:
    """One finished epoch: one-shot errors, the discretised architecture and its NB101 numbers.

    Errors and accuracies are fractions in [0, 1]; ``test_regret`` is the best test accuracy of the
    space minus this architecture's; ``search_seconds`` is the training part of the epoch,
    ``seconds`` includes choosing the architecture and the one-shot validation pass.
    The architecture weights of the epoch are in the run's ``weights/epoch-NNN.npz``.
    """

    epoch: int
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

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> EpochRecord:
        return cls(**{f.name: values[f.name] for f in dataclasses.fields(cls)})


RECORDS_FILE = "records.jsonl"


def records_text(records: list[EpochRecord]) -> bytes:
    return "".join(json.dumps(r.to_dict()) + "\n" for r in records).encode()


def read_records(run_dir: str | Path) -> list[EpochRecord]:
    """The finished epochs of one run directory, in order (DataFileError naming the file if unreadable)."""
    file = Path(run_dir) / RECORDS_FILE
    try:
        lines = file.read_text().splitlines()
        return [EpochRecord.from_dict(json.loads(line)) for line in lines if line.strip()]
    except FileNotFoundError:
        raise DataFileError(f"{file}: no records (is {run_dir} a one-shot run directory?)") from None
    except (ValueError, KeyError, TypeError) as error:
        raise DataFileError(f"{file}: not a one-shot records file ({error})") from None
