"""One search in its own directory, resumable per epoch after a crash or kill -9.

A run directory holds ``settings.json`` (the settings, the seed and their fingerprint),
``checkpoint.pt`` (every state of the search plus the finished epochs' records, written
atomically after each epoch), ``records.jsonl`` (one line per finished epoch, rewritten from the
checkpoint), ``weights/epoch-NNN.npz`` (alpha, beta, gamma where the optimizer has them) and,
with the setting ``snapshot_every``, ``supernets/epoch-NNN.pt`` (the supernet's weights and the
optimizer's own modules, e.g. ENAS's controller) for :mod:`.correlation`.
Restarting continues after the last checkpointed epoch and gives the same records as an
uninterrupted run on the same machine; other settings are refused and the directory is left
as it is.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from ..errors import InvalidSettingError, OutputError
from ..io.files import atomic_write_bytes
from .lookup import Nb101Lookup
from .records import RECORDS_FILE, EpochRecord, records_text
from .settings import SearchSettings

SETTINGS_FILE = "settings.json"
CHECKPOINT_FILE = "checkpoint.pt"
SNAPSHOT_DIR = "supernets"


def check_run_dir(run_dir: Path, settings: SearchSettings, seed: int) -> None:
    """Refuse a directory that holds a run with other settings (or another seed), naming the differences."""
    file = run_dir / SETTINGS_FILE
    if not file.exists():
        if run_dir.exists() and any(run_dir.iterdir()):
            raise OutputError(f"{run_dir} holds files but no {SETTINGS_FILE}: not a one-shot run directory; "
                              "choose an empty or new one")
        return
    try:
        stored = json.loads(file.read_text())
        old = SearchSettings.from_dict(stored["settings"])
        old_seed = int(stored["seed"])
    except (ValueError, KeyError, TypeError) as error:
        raise OutputError(f"{file} is not a one-shot settings file ({error}); nothing was changed") from None
    changes = old.differences(settings)
    if old_seed != seed:
        changes["seed"] = (old_seed, seed)
    if changes:
        listed = "; ".join(f"{k}: {a!r} -> {b!r}" for k, (a, b) in sorted(changes.items()))
        raise InvalidSettingError(f"{run_dir} was started with other settings ({listed}); its finished epochs are "
                                  "kept: resume with the same settings or write to another directory")


def run_search(settings: SearchSettings, seed: int, run_dir: str | Path, *, data=None, data_path=None,
               lookup: Nb101Lookup | None = None, device: str | None = None, stop_after_epoch: int | None = None,
               progress: Callable[[EpochRecord], None] | None = None) -> list[EpochRecord]:
    """Run (or continue) the search until ``settings.epochs`` (or ``stop_after_epoch``) epochs are done.

    ``data``: a loaded :class:`~nasarena.training.data.Cifar10` matching the settings' image size
    and subset, else it is loaded from ``data_path`` (see ``load_cifar10``). Returns all records.
    """
    from ..training.data import load_cifar10
    from ..training.device import pick_device
    from .optimizers import search_class

    run_dir = Path(run_dir)
    check_run_dir(run_dir, settings, seed)
    if data is None:
        data = load_cifar10(data_path, image_size=settings.image_size, subset=settings.subset)
    elif data.image_size != settings.image_size or data.subset != settings.subset:
        raise InvalidSettingError(f"the data given has image size {data.image_size} and subset {data.subset}, the "
                                  f"settings ask for {settings.image_size} and {settings.subset}")
    if lookup is None:
        lookup = Nb101Lookup(settings.space, settings.benchmark, settings.benchmark_path)
    search = search_class(settings.optimizer)(settings, data, lookup, seed, pick_device(device))
    records: list[EpochRecord] = []
    checkpoint = run_dir / CHECKPOINT_FILE
    if checkpoint.exists():
        state = torch.load(checkpoint, map_location="cpu", weights_only=True)  # generator states stay on the CPU
        search.load_state_dict(state["search"])
        records = [EpochRecord.from_dict(r) for r in state["records"]]
        atomic_write_bytes(run_dir / RECORDS_FILE, records_text(records))  # a kill may have left it behind
    else:
        atomic_write_bytes(run_dir / SETTINGS_FILE, json.dumps(
            {"seed": seed, "fingerprint": settings.fingerprint(), "settings": settings.to_dict()}, indent=1).encode())
    last = settings.epochs if stop_after_epoch is None else min(settings.epochs, stop_after_epoch)
    for epoch in range(len(records), last):
        record = search.run_epoch(epoch)
        weights = search.architecture_weights()
        if weights is not None:
            _write_weights(run_dir / "weights" / f"epoch-{epoch + 1:03d}.npz", weights)
        every = settings.snapshot_every
        if every and ((epoch + 1) % every == 0 or epoch + 1 == settings.epochs):
            snapshot = io.BytesIO()
            torch.save({"supernet": search.supernet.state_dict(), "extra": search.extra_state()}, snapshot)
            atomic_write_bytes(snapshot_path(run_dir, epoch + 1), snapshot.getvalue())
        records.append(record)
        buffer = io.BytesIO()
        torch.save({"search": search.state_dict(), "records": [r.to_dict() for r in records]}, buffer)
        atomic_write_bytes(checkpoint, buffer.getvalue())
        atomic_write_bytes(run_dir / RECORDS_FILE, records_text(records))
        if progress is not None:
            progress(record)
    return records


def snapshot_path(run_dir: str | Path, epoch: int) -> Path:
    """Where the supernet of ``epoch`` (counted from 1) is kept."""
    return Path(run_dir) / SNAPSHOT_DIR / f"epoch-{epoch:03d}.pt"


def _write_weights(file: Path, weights: dict[str, object]) -> None:
    arrays = {f"alpha_{j}": a for j, a in enumerate(weights["alpha"], start=1)}
    arrays.update(beta=weights["beta"], gamma=weights["gamma"])
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(file, buffer.getvalue())


def read_weights(file: str | Path) -> dict[str, object]:
    """alpha (list), beta, gamma of one ``weights/epoch-NNN.npz``, ready for ``discretize``."""
    with np.load(file) as arrays:
        alpha = [arrays[f"alpha_{j}"] for j in range(1, sum(k.startswith("alpha_") for k in arrays.files) + 1)]
        return {"alpha": alpha, "beta": arrays["beta"], "gamma": arrays["gamma"]}
