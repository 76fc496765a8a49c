"""Writing a whole report folder so that a failure part-way leaves the output as it was.

Every command that writes a folder first claims it with :func:`owned_output` (the one rule of
:func:`~nasarena.io.outputs.own_folder`: new, empty or nasarena's own, and writable, checked
before any work); a folder the command created is removed again when the command fails.
A report is drawn into a new hidden sibling of its output folder and its files are moved in
only once every one of them exists, the HTML page last (so a reader never opens a page whose
figures are missing). Files already in the output folder are kept, and the hidden folder,
which nasarena created, is removed whatever happens.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..errors import OutputError
from ..io.outputs import MARK_FILE, own_folder


@contextmanager
def owned_output(folder: Path, command: str, settings: Mapping | None = None,
                 recognised: Sequence[str] = ()) -> Iterator[Path]:
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
def staged_folder(out_dir: Path, last: str = "report.html") -> Iterator[Path]:
    """Yield a staging folder; when the block ends without error, move its files into ``out_dir``
    (``last`` after all others). An output location that cannot be written is an OutputError."""
    out_dir = Path(out_dir)
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.partial-"))
    except OSError as error:
        raise OutputError(f"cannot write the report to {out_dir}: {error.strerror or error}") from None
    try:
        yield staging
        files = sorted((p for p in staging.rglob("*") if p.is_file()), key=lambda p: p.name == last)
        for path in files:
            target = out_dir / path.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
