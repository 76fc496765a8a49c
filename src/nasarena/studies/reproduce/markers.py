"""The generated blocks of a markdown page: ``<!-- generated: NAME -->`` ... ``<!-- end generated: NAME -->``.

HTML comments, so the markers do not show in the rendered documentation. The text between them is
owned by ``nasarena reproduce``; everything outside is written by hand and never touched. A page
is rewritten through a temporary sibling swapped in atomically, so an interrupted regeneration
leaves the old page whole.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import InvalidSettingError
from ...io.files import atomic_write_bytes


def begin(name: str) -> str:
    return f"<!-- generated: {name} -->"


def end(name: str) -> str:
    return f"<!-- end generated: {name} -->"


def _span(text: str, name: str, where: str) -> tuple[int, int]:
    """Start and end offsets of block ``name``'s content (between its markers) in ``text``."""
    opening, closing = begin(name), end(name)
    starts = [m.start() for m in re.finditer(re.escape(opening), text)]
    ends = [m.start() for m in re.finditer(re.escape(closing), text)]
    if len(starts) != 1 or len(ends) != 1:
        raise InvalidSettingError(f"{where} must hold the generated block {name!r} once, between '{opening}' and "
                                  f"'{closing}'; found {len(starts)} opening and {len(ends)} closing markers")
    start, stop = starts[0] + len(opening), ends[0]
    if stop < start:
        raise InvalidSettingError(f"{where}: the closing marker of block {name!r} comes before its opening one")
    return start, stop


def block_text(text: str, name: str, where: str = "the page") -> str:
    """The content of block ``name`` (without its markers and the newlines next to them)."""
    start, stop = _span(text, name, where)
    return text[start:stop].strip("\n")


def replace_block(text: str, name: str, content: str, where: str = "the page") -> str:
    """``text`` with block ``name``'s content replaced by ``content``."""
    start, stop = _span(text, name, where)
    return text[:start] + "\n" + content.strip("\n") + "\n" + text[stop:]


def write_blocks(path: Path, contents: dict[str, str]) -> None:
    """Replace the named blocks of the page at ``path``, atomically; all markers are checked first."""
    if not path.is_file():
        raise InvalidSettingError(f"the page {path} does not exist: run reproduce from the repository root, or "
                                  "give --docs the folder holding the documentation")
    text = path.read_text(encoding="utf-8")
    for name, content in contents.items():
        text = replace_block(text, name, content, str(path))
    atomic_write_bytes(path, text.encode("utf-8"))
