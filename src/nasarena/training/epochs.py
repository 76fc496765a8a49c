"""The one epoch driver of nasarena: every training runs its epochs, checkpoints and resumes here.

Two kinds of training use it: :func:`nasarena.training.loop.train` (``nasarena train``, the live
benchmark and data collection, which call it) and the one-shot search
(:func:`nasarena.oneshot.run.run_search`). Each supplies

- an :class:`EpochStep`, the strategy of one epoch: the training loop's plain epoch (a pass over
  the training set, then validation and test), or the search's epoch (architecture and weight
  updates, the discretised architecture looked up in the tabular benchmark). It returns the
  epoch's :class:`EpochRecord` and holds all state an exact resume needs (``state_dict``);
- an :class:`EpochStore`, the run's folder: it was taken before any work (the folder claimed,
  a checkpoint of other settings refused by :func:`refuse_other_settings`); it puts the step
  back to its checkpoint (a damaged one is refused by :func:`read_torch_file`), and after each
  epoch it writes the epoch's files, the checkpoint (atomically, :func:`write_torch_file`) and
  then the records.

:func:`run_epochs` then runs the epochs from where the checkpoint left off to the last one asked
for. Because the checkpoint is written after the epoch's other files and before the records, a
``kill -9`` at any moment leaves a folder that resumes exactly: at worst the last epoch is run
again from the previous checkpoint, with the same random streams (both steps keep them in their
state or derive them from the seed and the epoch), and its records rewritten.

The checkpoint's layout stays each user's own (the training checkpoint of
:mod:`.checkpoint`, the search's ``{"search", "records"}``): folders written before this module
existed resume, and the files of a run stay byte for byte what they were.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from ..errors import DataFileError, InvalidSettingError
from ..io.files import atomic_write_bytes
from ..io.fingerprint import canonical_json


@dataclass(frozen=True)
class EpochRecord:
    """What every training records after an epoch: the base of the two kinds of epoch records.

    ``epoch`` counts finished epochs from 1; the record of epoch ``e`` is the ``e``-th of its run.
    The subclasses add their measurements: :class:`nasarena.training.loop.TrainingEpochRecord`
    (losses and accuracies of the three splits, throughput) and
    :class:`nasarena.oneshot.records.SearchEpochRecord` (one-shot errors, the discretised
    architecture and its benchmark numbers). Both also have a learning rate and a training loss,
    but those stay in the subclasses at their places: a record's dictionary keeps the field order
    its files always had (``record.json``, ``records.jsonl``), so the files stay byte for byte.
    One base and two subclasses rather than one class, because the fields differ but for these:
    one class would be mostly empty fields in either file.
    """

    epoch: int

    def to_dict(self) -> dict[str, object]:
        """The fields in declaration order (JSON-able: numbers and text)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: Mapping[str, object]):
        """The record of :meth:`to_dict`'s dictionary (other keys are ignored)."""
        return cls(**{f.name: values[f.name] for f in dataclasses.fields(cls)})


R = TypeVar("R", bound=EpochRecord)


class EpochStep(Protocol[R]):
    """One user's epoch: runs it and holds everything an exact resume needs."""

    def run_epoch(self, epoch: int) -> R:
        """Train epoch ``epoch`` (counted from 0) and return its record."""

    def state_dict(self) -> dict:
        """The state after the last epoch run (weights, optimizers, random generators, ...)."""

    def load_state_dict(self, state: dict) -> None:
        """Put the step back to :meth:`state_dict`'s state."""


class EpochStore(Protocol[R]):
    """A run's folder, taken before any work (claimed, its checkpoint read and checked)."""

    def resume(self, step: EpochStep[R]) -> list[R]:
        """Put ``step`` back to the checkpoint and return the finished epochs' records; for a new
        run, write what its folder holds from the start and return no records."""

    def save(self, step: EpochStep[R], records: Sequence[R]) -> None:
        """After an epoch: its own files, then the checkpoint (atomically), then the records."""


def run_epochs(step: EpochStep[R], last: int, store: EpochStore[R] | None = None,
               progress: Callable[[R], None] | None = None) -> list[R]:
    """Run ``step``'s epochs up to ``last`` (exclusive, counted from 0) and return all records.

    With a ``store``, the step is first put back to its checkpoint and only the epochs after it
    run (none if it is at ``last`` or beyond); every epoch is saved to the store as it finishes.
    ``progress(record)`` after each epoch is saved.
    """
    records = [] if store is None else store.resume(step)
    for epoch in range(len(records), last):
        records.append(step.run_epoch(epoch))
        if store is not None:
            store.save(step, records)
        if progress is not None:
            progress(records[-1])
    return records


def refuse_other_settings(where: Path | str, stored: Mapping, current: Mapping) -> None:
    """Raise :class:`InvalidSettingError` if the run in ``where`` was started with ``stored``
    settings other than ``current``, naming every differing setting (nested ones dotted) with its
    old and new value. Nothing is written or deleted: the run stays resumable."""
    differing = sorted(_differences(stored, current))
    if differing:
        raise InvalidSettingError(
            f"{where} was started with other settings ({'; '.join(differing)}); its finished epochs are kept: "
            "resume with the same settings or write to another folder")


def _differences(old: Mapping, new: Mapping, prefix: str = "") -> list[str]:
    found = []
    for key in set(old) | set(new):
        a, b = old.get(key), new.get(key)
        name = f"{prefix}{key}"
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            found.extend(_differences(a, b, f"{name}."))
        elif canonical_json(a) != canonical_json(b):
            found.append(f"{name}: {a!r} -> {b!r}")
    return found


#: What torch raises for a file it cannot read, whose message says why (a short or foreign file).
_EXPLAINED_ERRORS = (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError)


def read_torch_file(file: Path, kind: str, remedy: str) -> dict:
    """``file`` as torch saved it, on the CPU (generator states must stay there). A damaged file
    (cut short by a full disk or a partial copy, or not torch's) is a :class:`DataFileError`
    naming it and the ``remedy``, not torch's traceback, and the file is kept.

    Any exception of the load is such a file: torch's loader takes bytes after a pickle header
    (``\\x80\\x04``) for a pickle and, on junk, fails deep inside with whatever its opcodes
    produce (``KeyError: 2154524277``, ``IndexError: pop from empty list``), none of which says
    that the file is not a checkpoint. Its warning about the junk's pickle protocol is silenced
    with it: nasarena's own files are written with torch's protocol."""
    import torch

    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            state = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001  (junk bytes make the unpickler raise anything; see above)
        reason = error_reason(error) if isinstance(error, _EXPLAINED_ERRORS) else \
            f"its bytes do not decode as a torch file: {type(error).__name__} {error_reason(error)}"
        raise DataFileError(f"{file}: not a readable {kind} ({reason}); it is kept: {remedy}") from None
    if not isinstance(state, dict):
        raise DataFileError(f"{file}: not a {kind} (it holds a {type(state).__name__}); it is kept: {remedy}")
    return state


def write_torch_file(file: Path, payload: dict) -> None:
    """Save ``payload`` with torch into ``file`` atomically: a kill leaves the previous file intact."""
    import torch

    buffer = io.BytesIO()
    torch.save(payload, buffer)
    atomic_write_bytes(file, buffer.getvalue())


def error_reason(error: BaseException) -> str:
    """The first sentence of ``error``'s text, for a one-line message: torch's and pandas' reasons
    go on for lines of advice."""
    text = str(error).strip()
    return text.splitlines()[0].split(". ")[0] if text else type(error).__name__
