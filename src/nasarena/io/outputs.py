"""Output folders and files that nasarena owns, and the one rule for writing into them.

Every command that writes a folder writes only into an empty (or new) folder or one that
nasarena marked as its own for the same command: :func:`own_folder` puts a mark
(``.nasarena-output.json``: the command, and the settings the folder is written with) into the
folder before any work starts, and refuses a file, a folder of someone else's files, a folder of
another command or, where the command keeps one result per folder, other settings. The mark
appears in one step with its content (written privately, then hard-linked to its name, which
fails if the name exists), so of two processes starting on one new folder with other settings
exactly one wins and the other is refused, as it would be after the first one finished.
Creating the mark (or, for a marked folder, a probe file) also proves the folder writable before
any expensive work. An unmarked folder that nasarena wrote before it marked its folders is known by
what its files hold, not by their names (anyone may keep a ``report.html``).

A single output file (a collection's Parquet file, a fitted surrogate) has no folder to mark:
:func:`writer_lock` holds a sidecar lock next to it for the whole job, carrying the settings'
fingerprint, so a second writer with other settings is refused while the first one runs (and the
file's own recorded settings refuse it after).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from ..errors import OutputError
from .fingerprint import settings_fingerprint
from .processes import owner_alive, owner_text

MARK_FILE = ".nasarena-output.json"
#: How the mark's private copy is named while :func:`_place_exclusively` writes it: a second
#: process that finds one in a new folder sees a first one making the mark, not a user's file.
MARK_IN_FLIGHT = f".{MARK_FILE}."
LOCK_SUFFIX = ".nasarena-writer"

#: Whether a file is one a command wrote: its check of a file by which it recognises its earlier output.
Recogniser = Callable[[Path], bool]


def fingerprint(settings: Mapping | None) -> str:
    """A short stable digest of JSON-able settings (key order does not matter)."""
    return settings_fingerprint(settings)


def _canonical(settings: Mapping | None):
    """Settings as they read back from JSON (tuples become lists, paths text)."""
    return json.loads(json.dumps(settings, sort_keys=True, default=str))


def _place_exclusively(path: Path, content: str) -> bool:
    """Create ``path`` holding ``content`` in one step; False if it already exists."""
    handle, private = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # the mark's: MARK_IN_FLIGHT
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(content)
        os.chmod(private, 0o644)
        try:
            os.link(private, path)
        except FileExistsError:
            return False
        return True
    finally:
        Path(private).unlink(missing_ok=True)


def _read_mark(folder: Path) -> dict:
    path = folder / MARK_FILE
    try:
        mark = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise OutputError(f"{path} is not a readable nasarena mark ({error}); the folder is kept: choose "
                          "another output folder") from None
    if not isinstance(mark, dict) or not isinstance(mark.get("command"), str):
        raise OutputError(f"{path} is not a nasarena mark; the folder is kept: choose another output folder")
    return mark


def _differences(stored, wanted) -> list[str]:
    if isinstance(stored, dict) and isinstance(wanted, dict):
        return sorted(key for key in set(stored) | set(wanted) if stored.get(key) != wanted.get(key))
    return [] if stored == wanted else ["settings"]


def own_folder(folder: str | Path, command: str, settings: Mapping | None = None, *,
               recognised: Sequence[str] | Mapping[str, Recogniser] = (), what: str = "--out") -> Path:
    """Make ``folder`` ready for ``command`` to write into, before any work; returns it.

    Creates the folder (and its parents) when new. Accepts it when empty, when marked by
    nasarena for ``command`` or when it holds one of ``recognised`` (files by which a nasarena of
    before the mark knew its own folders; the mark is added). ``recognised`` maps each such name
    to the check of the file's content (a page or JSON the command writes): a file of that name
    that fails its check is someone else's, and the folder is refused naming it. A plain sequence
    of names recognises by the name alone (commands that have no check of their files yet). With
    ``settings``, a marked folder must have been written with equal settings: the command keeps
    one result per folder (a training run, a search, a report of one results folder), and a
    second writer with other settings is refused, whether the first has finished or is still
    running. Raises :class:`OutputError` naming the folder and the reason; nothing in the folder
    is touched then.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{what} {folder} is a file, not a folder; it is kept: choose a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"{what} {folder}: cannot create it ({error.strerror or error})") from None
    wanted = {"command": command, "settings": _canonical(settings)}
    if not (folder / MARK_FILE).exists():
        foreign = sorted(p.name for p in folder.iterdir()
                         if not p.name.startswith((MARK_FILE, MARK_IN_FLIGHT, ".nasarena-probe-")))
        if foreign and not _earlier_output(folder, command, recognised, what):
            raise OutputError(f"{what} {folder} holds files nasarena did not write there ({', '.join(foreign[:3])}"
                              f"{', ...' if len(foreign) > 3 else ''}); they are kept: choose an empty or new folder")
        try:
            if _place_exclusively(folder / MARK_FILE, json.dumps(wanted, indent=2, sort_keys=True) + "\n"):
                return folder
        except OSError as error:
            raise OutputError(f"{what} {folder}: cannot write into it ({error.strerror or error})") from None
    mark = _read_mark(folder)
    if mark["command"] != command:
        raise OutputError(f"{what} {folder} holds the output of `nasarena {mark['command']}`, not of "
                          f"`nasarena {command}`; it is kept: choose another folder")
    if settings is not None:
        if mark.get("settings") is None:
            raise OutputError(f"{what} {folder} was written by an earlier `nasarena {command}` that did not record "
                              "its settings, so they cannot be compared with these; it is kept: choose another "
                              "folder")
        differing = _differences(mark["settings"], wanted["settings"])
        if differing:
            raise OutputError(f"{what} {folder} was written by `nasarena {command}` with other settings "
                              f"({', '.join(differing)} differ); it is kept: use the same settings to resume or redo "
                              "it, or another folder")
    check_writable(folder, what)
    return folder


def _earlier_output(folder: Path, command: str, recognised: Sequence[str] | Mapping[str, Recogniser],
                    what: str) -> bool:
    """Whether the unmarked ``folder`` holds files of ``recognised`` (each passing its check, where
    it has one). One that fails its check is a user's file under nasarena's name: refused, named."""
    checks = recognised if isinstance(recognised, Mapping) else dict.fromkeys(recognised)
    present = [name for name in checks if (folder / name).exists()]
    for name in present:
        if checks[name] is not None and not checks[name](folder / name):
            raise OutputError(f"{what} {folder} holds {name}, which is not a file `nasarena {command}` wrote; the "
                              "folder and its files are kept: choose an empty or new folder")
    return bool(present)


def release_unused(folder: str | Path) -> None:
    """Take back the mark of a folder that holds nothing else: a command refused after it claimed
    some of its folders (one of several run folders belonged to another run) leaves them free
    for any settings again. A folder with anything besides the mark keeps it."""
    folder = Path(folder)
    try:
        if [p.name for p in folder.iterdir()] == [MARK_FILE]:
            (folder / MARK_FILE).unlink()
    except OSError:
        pass  # gone or unreadable: nothing of ours to take back


def check_writable(folder: Path, what: str = "--out") -> None:
    """Refuse a folder this process cannot create files in (read-only, full), before any work."""
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".nasarena-probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise OutputError(f"{what} {folder}: cannot write into it ({error.strerror or error})") from None


@contextlib.contextmanager
def writer_lock(target: str | Path, settings: Mapping, what: str = "--out") -> Iterator[None]:
    """Hold ``target``'s writer lock for the ``with`` block: a second writer with other settings
    is refused (:class:`OutputError`) while this one runs; one with equal settings may write
    alongside (both write the same content). A lock left by a killed writer is taken over."""
    target = Path(target)
    lock = target.with_name(f".{target.name}{LOCK_SUFFIX}")
    mine = json.dumps({"owner": owner_text().strip(), "settings": fingerprint(settings)})
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"{what} {target}: cannot create its folder ({error.strerror or error})") from None
    held = False
    for _ in range(3):
        try:
            held = _place_exclusively(lock, mine)
        except OSError as error:
            raise OutputError(f"{what} {target}: cannot write next to it ({error.strerror or error})") from None
        if held:
            break
        try:
            other = json.loads(lock.read_text())
        except FileNotFoundError:
            continue  # released meanwhile
        except (OSError, ValueError):
            other = {}
        if not isinstance(other, dict) or not owner_alive(str(other.get("owner", ""))):
            lock.unlink(missing_ok=True)  # its writer is gone (kill -9) or it is not ours to honour
            continue
        if other.get("settings") != fingerprint(settings):
            raise OutputError(f"{what} {target} is being written right now by another nasarena process "
                              f"(pid {str(other['owner']).split()[-1]}) with other settings; it is kept: "
                              "wait for it to finish, or choose another output")
        break  # the same settings: both write the same content
    try:
        yield
    finally:
        if held:
            lock.unlink(missing_ok=True)
