"""One search in its own directory, resumable per epoch after a crash or kill -9.

A run directory holds ``settings.json`` (the settings, the seed and their fingerprint),
``checkpoint.pt`` (every state of the search plus the finished epochs' records, written
atomically after each epoch), ``records.jsonl`` (one line per finished epoch, rewritten from the
checkpoint), ``weights/epoch-NNN.npz`` (alpha, beta, gamma where the optimizer has them) and,
with the setting ``snapshot_every``, ``supernets/epoch-NNN.pt`` (the supernet's weights and the
optimizer's own modules, e.g. ENAS's controller) for :mod:`.correlation`.
Restarting continues after the last checkpointed epoch and gives the same records as an
uninterrupted run on the same machine; other settings are refused and the directory is left
as it is. The directory is claimed before any work (:func:`claim_run_dir`), so a second run
with other settings is refused also while the first one is still running, and a damaged
checkpoint is reported by name and kept.
"""

from __future__ import annotations

import io
import json
import pickle
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from ..errors import DataFileError, InvalidSettingError, OutputError
from ..io.files import atomic_write_bytes
from ..io.outputs import own_folder
from .lookup import Nb101Lookup
from .records import RECORDS_FILE, EpochRecord, records_text
from .settings import SearchSettings

SETTINGS_FILE = "settings.json"
CHECKPOINT_FILE = "checkpoint.pt"
SNAPSHOT_DIR = "supernets"
#: The command named in a run directory's mark (:func:`~nasarena.io.outputs.own_folder`), whoever runs it.
RUN_COMMAND = "oneshot run"
#: What a user does about a damaged checkpoint: the search then starts again, as the settings are kept.
RESTART = "delete it to run this search again from its first epoch"


def check_run_dir(run_dir: Path, settings: SearchSettings, seed: int) -> None:
    """Refuse a directory whose ``settings.json`` holds a run with other settings (or another
    seed), naming each difference; reads only, so a whole grid is checked before any folder is made."""
    file = run_dir / SETTINGS_FILE
    if not file.exists():
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


def claim_run_dir(run_dir: str | Path, settings: SearchSettings, seed: int) -> None:
    """Make ``run_dir`` this run's own before any work, or raise.

    :func:`check_run_dir` names the settings a finished or resumed run differs in; the mark of
    :func:`~nasarena.io.outputs.own_folder` (placed in one step, with the settings and seed)
    refuses a second run with other settings that starts while the first one has not written
    ``settings.json`` yet, a file or an unwritable folder, and someone else's files. Run
    directories from before the mark are known by their ``settings.json``."""
    check_run_dir(Path(run_dir), settings, seed)
    own_folder(run_dir, RUN_COMMAND, {**settings.to_dict(), "seed": seed}, recognised=[SETTINGS_FILE],
               what="run folder")


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
    claim_run_dir(run_dir, settings, seed)
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
        records = _restore(search, checkpoint)
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


def _restore(search, checkpoint: Path) -> list[EpochRecord]:
    """The finished epochs of ``checkpoint``, with ``search`` put back to the end of the last one."""
    state = read_torch_file(checkpoint, "one-shot checkpoint", RESTART)
    try:
        search.load_state_dict(state["search"])
        return [EpochRecord.from_dict(r) for r in state["records"]]
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise DataFileError(f"{checkpoint}: not a complete one-shot checkpoint of these settings "
                            f"({error_reason(error)}); it is kept: {RESTART}") from None


def read_torch_file(file: Path, kind: str, remedy: str) -> dict:
    """``file`` as torch saved it, on the CPU (generator states must stay there). A damaged file
    (cut short by a full disk or a partial copy) is a :class:`DataFileError` naming it and the
    ``remedy``, not torch's traceback, and the file is kept."""
    try:
        state = torch.load(file, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError) as error:
        raise DataFileError(f"{file}: not a readable {kind} ({error_reason(error)}); it is kept: {remedy}") from None
    if not isinstance(state, dict):
        raise DataFileError(f"{file}: not a {kind} (it holds a {type(state).__name__}); it is kept: {remedy}")
    return state


def error_reason(error: BaseException) -> str:
    """The first sentence of ``error``'s text, for a one-line message: torch's and pandas' reasons
    go on for lines of advice."""
    text = str(error).strip()
    return text.splitlines()[0].split(". ")[0] if text else type(error).__name__


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
