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

The epochs run in the one epoch driver that ``nasarena train`` shares
(:func:`nasarena.training.epochs.run_epochs`): the search is the epoch step, :class:`_SearchFolder`
the folder's files, and a run of other settings is refused by the same
:func:`~nasarena.training.epochs.refuse_other_settings`.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..errors import DataFileError, InvalidSettingError, OutputError
from ..io.files import atomic_write_bytes
from ..io.outputs import own_folder
from ..training.epochs import error_reason, read_torch_file, refuse_other_settings, run_epochs, write_torch_file
from .lookup import Nb101Lookup
from .records import RECORDS_FILE, SearchEpochRecord, records_text
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
    refuse_other_settings(run_dir, {**old.to_dict(), "seed": old_seed}, {**settings.to_dict(), "seed": seed})


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
               progress: Callable[[SearchEpochRecord], None] | None = None) -> list[SearchEpochRecord]:
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
    last = settings.epochs if stop_after_epoch is None else min(settings.epochs, stop_after_epoch)
    return run_epochs(search, last, _SearchFolder(run_dir, settings, seed), progress)


class _SearchFolder:
    """A claimed run directory's files for :func:`~nasarena.training.epochs.run_epochs` (see the
    module docstring): after each epoch its architecture weights and, where due, its supernet,
    then the checkpoint, then ``records.jsonl``."""

    def __init__(self, run_dir: Path, settings: SearchSettings, seed: int):
        self.run_dir, self.settings, self.seed = run_dir, settings, seed
        self.checkpoint = run_dir / CHECKPOINT_FILE

    def resume(self, search) -> list[SearchEpochRecord]:
        """The finished epochs of the checkpoint, with ``search`` put back to the end of the last
        one; a new run writes ``settings.json``."""
        if not self.checkpoint.exists():
            atomic_write_bytes(self.run_dir / SETTINGS_FILE, json.dumps(
                {"seed": self.seed, "fingerprint": self.settings.fingerprint(), "settings": self.settings.to_dict()},
                indent=1).encode())
            return []
        state = read_torch_file(self.checkpoint, "one-shot checkpoint", RESTART)
        try:
            search.load_state_dict(state["search"])
            records = [SearchEpochRecord.from_dict(r) for r in state["records"]]
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            raise DataFileError(f"{self.checkpoint}: not a complete one-shot checkpoint of these settings "
                                f"({error_reason(error)}); it is kept: {RESTART}") from None
        atomic_write_bytes(self.run_dir / RECORDS_FILE, records_text(records))  # a kill may have left it behind
        return records

    def save(self, search, records: Sequence[SearchEpochRecord]) -> None:
        epoch = len(records)
        weights = search.architecture_weights()
        if weights is not None:
            _write_weights(self.run_dir / "weights" / f"epoch-{epoch:03d}.npz", weights)
        every = self.settings.snapshot_every
        if every and (epoch % every == 0 or epoch == self.settings.epochs):
            write_torch_file(snapshot_path(self.run_dir, epoch),
                             {"supernet": search.supernet.state_dict(), "extra": search.extra_state()})
        write_torch_file(self.checkpoint, {"search": search.state_dict(), "records": [r.to_dict() for r in records]})
        atomic_write_bytes(self.run_dir / RECORDS_FILE, records_text(records))


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
