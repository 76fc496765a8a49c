"""Per-epoch checkpoints of a training run, written atomically and refused for other settings.

A checkpoint holds everything an exact resume needs: the model's and optimizer's state, the
epoch reached (the schedule's position: the learning rate is a function of it), the records so
far, the measured training time, and the settings it was made with together with their
fingerprint. The random streams of an epoch are derived from (seed, epoch) (see
:mod:`nasarena.training.loop`), so the seed and the epoch are the random state.

A checkpoint from other settings is never overwritten or deleted: resuming from it is refused
with an error that names the settings that differ (:func:`~.epochs.refuse_other_settings`, the
refusal the one-shot search's folders share). Reading and writing the file are
:mod:`.epochs`'s too; the layout below is the training loop's own, kept so that checkpoints of
earlier versions resume.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataFileError
from ..io.fingerprint import settings_fingerprint
from .epochs import read_torch_file, refuse_other_settings, write_torch_file

CHECKPOINT_FILE = "checkpoint.pt"
FORMAT = "nasarena-training-checkpoint"
VERSION = 1


def fingerprint(settings: dict) -> str:
    """sha256 (first 16 hex digits) of the settings' canonical JSON (:mod:`nasarena.io.fingerprint`)."""
    return settings_fingerprint(settings)


@dataclass(frozen=True)
class Checkpoint:
    """The state after ``epoch`` finished epochs."""

    settings: dict
    epoch: int
    model: dict
    optimizer: dict
    records: list
    training_seconds: float

    def save(self, directory: Path) -> Path:
        """Write ``directory/checkpoint.pt`` atomically (a kill leaves the previous one intact)."""
        payload = {"format": FORMAT, "version": VERSION, "fingerprint": fingerprint(self.settings),
                   "settings": json.dumps(self.settings, sort_keys=True), "epoch": self.epoch, "model": self.model,
                   "optimizer": self.optimizer, "records": json.dumps(self.records),
                   "training_seconds": self.training_seconds, "rng": {"derived_from": "seed and epoch"}}
        path = Path(directory) / CHECKPOINT_FILE
        write_torch_file(path, payload)
        return path


def load_checkpoint(directory: Path, settings: dict) -> Checkpoint | None:
    """The checkpoint in ``directory`` if there is one; an error if it is corrupt or was made
    with settings other than ``settings`` (nothing is deleted either way)."""
    path = Path(directory) / CHECKPOINT_FILE
    if not path.exists():
        return None
    remedy = "move it away or choose another output folder"
    payload = read_torch_file(path, "nasarena training checkpoint", remedy)
    try:
        if payload.get("format") != FORMAT:
            raise ValueError("not a nasarena training checkpoint")
        stored = json.loads(payload["settings"])
        records = json.loads(payload["records"])
        checkpoint = Checkpoint(settings=stored, epoch=int(payload["epoch"]), model=payload["model"],
                                optimizer=payload["optimizer"], records=records,
                                training_seconds=float(payload["training_seconds"]))
    except (KeyError, TypeError, ValueError) as error:
        raise DataFileError(f"{path}: not a readable nasarena training checkpoint ({error}); it is kept: {remedy}") \
            from None
    refuse_other_settings(directory, stored, settings)
    return checkpoint
