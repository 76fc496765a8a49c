"""Writing a whole report folder so that a failure part-way leaves the output as it was.

Every command that writes a folder first claims it with :func:`owned_output` (the one rule of
:func:`~nasarena.io.outputs.own_folder`: new, empty or nasarena's own, and writable, checked
before any work); a folder the command created is removed again when the command fails.
A report is drawn into a new hidden sibling of its output folder and its files are moved in
only once every one of them exists, the HTML page last (so a reader never opens a page whose
figures are missing). Files already in the output folder are kept, and the hidden folder,
which nasarena created, is removed whatever happens; only a folder that holds one version of one
output (a report redrawn) loses the files of its earlier version that this one no longer writes,
and of those only the ones that still hold what nasarena wrote.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..errors import OutputError
from ..io.files import atomic_write_bytes
from ..io.outputs import MARK_FILE, Recogniser, own_folder

#: The files a staged version moved into its folder, with their digests (``replaces_earlier``).
WRITTEN_FILE = ".nasarena-written.json"


@contextmanager
def owned_output(folder: Path, command: str, settings: Mapping | None = None,
                 recognised: Sequence[str] | Mapping[str, Recogniser] = ()) -> Iterator[Path]:
    """Yield ``folder`` made ready for ``command`` by :func:`~nasarena.io.outputs.own_folder`
    (a file, an unwritable folder or one holding files nasarena did not write is refused before
    any work). When the block raises an error before anything was written into the folder, the
    folders this call created are removed, so a failed command leaves no empty output; a folder
    that holds any result (a resumable command's finished work, or another process's writing
    into the same new folder) is kept, as is any folder after an interrupt (Ctrl-C)."""
    created = _first_missing(Path(folder).absolute())
    owned = own_folder(folder, command, settings, recognised=recognised)
    try:
        yield owned
    except Exception:
        if created is not None and not _holds_results(owned):
            shutil.rmtree(created, ignore_errors=True)
        raise


def _holds_results(folder: Path) -> bool:
    """Whether ``folder`` holds any file besides nasarena's mark."""
    return any(path.is_file() and path.name != MARK_FILE for path in folder.rglob("*"))


def _first_missing(folder: Path) -> Path | None:
    """The outermost of ``folder`` and its parents that does not exist yet (None: it exists)."""
    missing = None
    for path in (folder, *folder.parents):
        if path.exists():
            break
        missing = path
    return missing


@contextmanager
def staged_folder(out_dir: Path, last: str = "report.html", *, replaces_earlier: bool = False) -> Iterator[Path]:
    """Yield a staging folder; when the block ends without error, move its files into ``out_dir``
    (``last`` after all others). An output location that cannot be written is an OutputError.

    With ``replaces_earlier`` the folder holds one version of one output (a report redrawn with
    other pairs or from grown results): the files moved in are recorded in :data:`WRITTEN_FILE`
    with their digests, and the files the earlier version recorded that this one did not write
    are removed, so no figure of another drawing stays beside this one's; a file whose content
    is no longer what nasarena wrote (a user's file saved under its name) is kept."""
    out_dir = Path(out_dir)
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.partial-"))
    except OSError as error:
        raise OutputError(f"cannot write the report to {out_dir}: {error.strerror or error}") from None
    try:
        yield staging
        files = sorted((p for p in staging.rglob("*") if p.is_file()), key=lambda p: p.name == last)
        written = {path.relative_to(staging).as_posix(): _digest(path) for path in files} if replaces_earlier else {}
        for path in files:
            target = out_dir / path.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
        if replaces_earlier:
            _remove_earlier(out_dir, written)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _remove_earlier(out_dir: Path, written: dict[str, str]) -> None:
    """Remove the files of the earlier version's record that are not in ``written`` and still hold
    what it wrote, then record ``written``. Without a readable record (the first version, or one
    drawn before versions were recorded) nothing is known to be nasarena's, and nothing is removed."""
    try:
        earlier = json.loads((out_dir / WRITTEN_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        earlier = {}
    for name, digest in earlier.items() if isinstance(earlier, dict) else ():
        path = out_dir / name
        if name not in written and ".." not in Path(name).parts and not Path(name).is_absolute() \
                and path.is_file() and _digest(path) == digest:
            path.unlink(missing_ok=True)
    atomic_write_bytes(out_dir / WRITTEN_FILE, json.dumps(written, indent=1, sort_keys=True).encode("utf-8"))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
