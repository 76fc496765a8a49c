"""Writing a whole report folder so that a failure part-way leaves the output as it was.

A report is drawn into a new hidden sibling of its output folder and its files are moved in
only once every one of them exists, the HTML page last (so a reader never opens a page whose
figures are missing). Files already in the output folder are kept, and the hidden folder,
which nasarena created, is removed whatever happens.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import OutputError


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
