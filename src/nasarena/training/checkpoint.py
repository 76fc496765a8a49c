"""Per-epoch checkpoints of a training run, written atomically and refused for other settings.

A checkpoint holds everything an exact resume needs: the model's and optimizer's state, the
epoch reached (the schedule's position: the learning rate is a function of it), the records so
far, the measured training time, and the settings it was made with together with their
fingerprint. The random streams of an epoch are derived from (seed, epoch) (see
:mod:`nasarena.training.loop`), so the seed and the epoch are the random state.

A checkpoint from other settings is never overwritten or deleted: resuming from it is refused
with an error that names the settings that differ.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import torch

from ..errors import DataFileError, InvalidSettingError
from ..io.files import atomic_write_bytes
from ..io.fingerprint import canonical_json, settings_fingerprint

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
        buffer = io.BytesIO()
        torch.save(payload, buffer)
        path = Path(directory) / CHECKPOINT_FILE
        atomic_write_bytes(path, buffer.getvalue())
        return path


def load_checkpoint(directory: Path, settings: dict) -> Checkpoint | None:
    """The checkpoint in ``directory`` if there is one; an error if it is corrupt or was made
    with settings other than ``settings`` (nothing is deleted either way)."""
    path = Path(directory) / CHECKPOINT_FILE
    if not path.exists():
        return None
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
        if payload.get("format") != FORMAT:
            raise ValueError("not a nasarena training checkpoint")
        stored = json.loads(payload["settings"])
        records = json.loads(payload["records"])
    except Exception as error:  # torch raises many types for a truncated or foreign file
        raise DataFileError(f"{path} is not a readable nasarena training checkpoint ({error}); "
                            "move it away or choose another output folder") from None
    if payload["fingerprint"] != fingerprint(settings):
        differing = sorted(_differences(stored, settings))
        raise InvalidSettingError(
            f"{path} was written by a training run with other settings (differing: {', '.join(differing) or '?'}); "
            "it is kept as it is: use another output folder, or the same settings to resume it")
    return Checkpoint(settings=stored, epoch=int(payload["epoch"]), model=payload["model"],
                      optimizer=payload["optimizer"], records=records,
                      training_seconds=float(payload["training_seconds"]))


def _differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    keys = set(old) | set(new)
    found = []
    for key in keys:
        a, b = old.get(key), new.get(key)
        name = f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            found.extend(_differences(a, b, f"{name}."))
        elif canonical_json(a) != canonical_json(b):
            found.append(f"{name} ({a!r} then, {b!r} now)")
    return found
