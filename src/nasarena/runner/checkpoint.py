"""A run's state, saved every few minutes, so that a run killed midway resumes where it was.

Why: SMAC's runs in the anytime paper's cached setups take an hour of CPU or more, and the
runner resumed an experiment run by run: a run killed midway (``kill -9``, a machine handed back)
lost everything it had done, and a run longer than a sitting never finished. The loop of
:func:`.protocol.run` hands its whole state to a :class:`Checkpoint` between two events, when it
is consistent: the optimizer, the generator the benchmark draws trials from, the cache, the
pending events, the rows so far and the counters. A run started again on the same checkpoint
continues that run: its rows are those of the run never stopped (``tests/test_checkpoint.py``),
except the optimizer's measured CPU time.

What is not saved: the benchmark and its space (the tables, hundreds of MB, that a run reads and
does not change). The state names them (pickle's persistent ids) and the resumed run takes the
process's own. A checkpoint holds the run's settings hash and seed and a digest of the nasarena
source files the saving process had imported, and is used only by the same run of the same code;
any other is ignored and replaced (it is the runner's own file). Only the imported files count:
a module a run never imported cannot have moved it, so a change to the CLI, the reports or a
study leaves the runs in flight resumable (a SMAC run of the cached setups is hours of CPU),
while a change to the runner, the benchmark or the optimizer discards them. Each file is read
once per process, when the checkpoint is made or when first seen at a save: the code the
process runs, not a later edit of it. It is written to a temporary sibling and swapped in, so a kill
while saving leaves the previous one, and it is deleted once the run's file is written.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import pickle
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from ..io.files import atomic_write_bytes

#: Wall seconds between two saves: a kill loses at most this much of a run.
INTERVAL_SECONDS = 300.0
_PACKAGE = Path(__file__).resolve().parents[1]


#: sha256 of each source file (relative to the package) as this process first read it.
_FILE_DIGESTS: dict[str, str] = {}
#: Each imported module's ``__file__``: its path relative to the package, or None outside it.
#: Resolving every module's path took tens of ms, and every run makes a checkpoint.
_RELATIVE: dict[str, str | None] = {}


def _relative(file: str) -> str | None:
    if file not in _RELATIVE:
        path = Path(file).resolve()
        inside = file.endswith(".py") and _PACKAGE in path.parents
        _RELATIVE[file] = path.relative_to(_PACKAGE).as_posix() if inside else None
    return _RELATIVE[file]


def loaded_sources() -> tuple[str, ...]:
    """The nasarena source files this process has imported, relative to the package, sorted."""
    files = {_relative(module.__file__) for module in list(sys.modules.values())
             if isinstance(getattr(module, "__file__", None), str)}
    files.discard(None)
    return tuple(sorted(files))


def source_digest(files: Sequence[str]) -> str | None:
    """A digest of the source files ``files`` (names and contents); None when one is gone."""
    digest = hashlib.sha256()
    for relative in files:
        if relative not in _FILE_DIGESTS:
            try:
                _FILE_DIGESTS[relative] = hashlib.sha256((_PACKAGE / relative).read_bytes()).hexdigest()
            except OSError:
                return None
        digest.update(f"{relative}\0{_FILE_DIGESTS[relative]}\0".encode())
    return digest.hexdigest()[:16]


class _Pickler(pickle.Pickler):
    def __init__(self, file, shared: dict[str, object]):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._names = {id(obj): name for name, obj in shared.items()}

    def persistent_id(self, obj):
        return self._names.get(id(obj))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, shared: dict[str, object]):
        super().__init__(file)
        self._shared = shared

    def persistent_load(self, pid):
        return self._shared[pid]


class Checkpoint:
    """The checkpoint file of one run: ``path``, for the run ``key`` (settings hash and seed).

    ``shared``: the objects the state refers to but does not hold (name -> object: the
    benchmark, its space), given again on :meth:`load`. ``interval``: wall seconds between saves
    (:meth:`due`; default :data:`INTERVAL_SECONDS`, read when the checkpoint is made)."""

    def __init__(self, path: Path, key: str, interval: float | None = None):
        self.path = Path(path)
        self.key = key
        self.interval = INTERVAL_SECONDS if interval is None else interval
        self._next = time.monotonic() + self.interval
        #: Why the run stopped saving checkpoints (None while it saves them).
        self.failed: str | None = None
        source_digest(loaded_sources())  # read now, near when the code was imported, not when a save is due

    def _stamp(self) -> tuple[str, tuple[str, ...], str | None]:
        """What a checkpoint is saved with: the run, the source files imported, their digest."""
        files = loaded_sources()
        return self.key, files, source_digest(files)

    def _resumes(self, stamp) -> bool:
        """Whether a checkpoint saved with ``stamp`` is this run's, made by the code this process
        runs (the files the saving process had imported, unchanged)."""
        if not (isinstance(stamp, tuple) and len(stamp) == 3 and stamp[0] == self.key):
            return False
        return stamp[2] is not None and source_digest(stamp[1]) == stamp[2]

    def due(self) -> bool:
        """Whether a save is due (called between events, so it is cheap)."""
        return time.monotonic() >= self._next

    def save(self, state: object, shared: dict[str, object]) -> None:
        """Save ``state`` (``shared`` objects by name) in place of the last. A checkpoint never
        stops the run: a state that does not pickle, or a file that cannot be written (a full
        disk), and the run continues without checkpoints (:attr:`failed` says why, and a warning
        once)."""
        buffer = io.BytesIO()
        try:
            _Pickler(buffer, shared).dump((self._stamp(), state))
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            self._stop_saving(f"its state does not pickle ({error})")
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.path, buffer.getvalue())
        except OSError as error:
            self._stop_saving(f"its checkpoint {self.path} cannot be written ({error.strerror or error})")
            return
        self._next = time.monotonic() + self.interval

    def _stop_saving(self, reason: str) -> None:
        self.failed = reason
        self._next = math.inf
        warnings.warn(f"run {self.key}: {reason}; it continues without checkpoints, so a kill restarts it",
                      RuntimeWarning, stacklevel=3)

    def load(self, shared: dict[str, object]) -> object | None:
        """The saved state of this run and code, or None (no checkpoint, or another run's or
        another code's, or a file that does not unpickle: it is replaced at the next save)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            stamp, state = _Unpickler(io.BytesIO(data), shared).load()
        except Exception:  # noqa: BLE001 - any unreadable checkpoint is only a lost head start
            return None
        return state if self._resumes(stamp) else None

    def discard(self) -> None:
        """Delete the checkpoint (the run's file is written)."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
