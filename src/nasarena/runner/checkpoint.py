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
process's own. A checkpoint holds the run's settings hash and seed and a digest of nasarena's
source, and is used only by the same run of the same code; any other is ignored and replaced
(it is the runner's own file). It is written to a temporary sibling and swapped in, so a kill
while saving leaves the previous one, and it is deleted once the run's file is written.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import pickle
import time
import warnings
from functools import lru_cache
from pathlib import Path

from ..io.files import atomic_write_bytes

#: Wall seconds between two saves: a kill loses at most this much of a run.
INTERVAL_SECONDS = 300.0
_PACKAGE = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def source_digest() -> str:
    """A digest of nasarena's Python source: a checkpoint is resumed only by the code that saved it."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE)).encode())
        digest.update(path.read_bytes())
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
        source_digest()  # read now, near when the code was imported, not when the first save is due

    def _stamp(self) -> tuple[str, str]:
        return self.key, source_digest()

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
        return state if stamp == self._stamp() else None

    def discard(self) -> None:
        """Delete the checkpoint (the run's file is written)."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
