"""A self-contained HTML page: inline CSS, figures as base64 ``data:`` URIs, no external resource.

A report must open anywhere, offline, years later, and travel as one file (an e-mail
attachment, a CI artefact), so nothing is linked. Every text passed in is escaped here.

Every table fits the page (a 1,280-pixel window) without horizontal scrolling: cells wrap, even
inside a word (an NB201 cell string is one 93-character word), tables of more than
:data:`WIDE_COLUMNS` columns are set smaller, and a table of more than :data:`MAX_COLUMNS` is split
into several that repeat its leading key columns.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path

CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 74rem; margin: 2rem auto;
       padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; padding-bottom: 0.2rem; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin-top: 1.4rem; }
table { border-collapse: collapse; margin: 0.6rem 0 1rem; font-size: 0.88rem; max-width: 100%; }
table.wide { font-size: 0.78rem; }
caption { caption-side: top; text-align: left; font-size: 0.85rem; color: #555; padding-bottom: 0.3rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
table.wide th, table.wide td { padding: 0.2rem 0.35rem; }
th { border-bottom: 2px solid #999; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.strong td { font-weight: 600; }
code, td.code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.82rem; }
td.code { font-size: 0.93em; }
figure { margin: 1rem 0 1.8rem; }
figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.85rem; color: #444; }
.note { background: #fff6dd; border-left: 4px solid #e6a700; padding: 0.4rem 0.8rem; }
.muted { color: #666; font-size: 0.85rem; }
"""


#: Tables with more columns than this are set in a smaller font, with narrower padding.
WIDE_COLUMNS = 8
#: No table has more columns than this: a wider one is split (13 is the configuration table's width).
MAX_COLUMNS = 13

HEAD = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>'


def page(title: str, body: Iterable[str]) -> str:
    """The whole document."""
    return (f"{HEAD}{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{escape(title)}</h1>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def is_page(path: Path, title: str) -> bool:
    """Whether ``path`` is a page of :func:`page` whose title starts with ``title``: how a command
    knows its own page in a folder nasarena wrote before it marked its folders, where the file's
    name alone proves nothing (anyone may keep a ``report.html``)."""
    start = (HEAD + escape(title)).encode("utf-8")
    try:
        with open(path, "rb") as stream:
            return stream.read(len(start)) == start
    except OSError:
        return False


def heading(text: str, level: int = 2) -> str:
    return f"<h{level}>{escape(text)}</h{level}>"


def paragraph(text: str, kind: str | None = None) -> str:
    """A paragraph; ``kind`` is a CSS class (``"note"`` for warnings, ``"muted"``)."""
    attribute = f' class="{kind}"' if kind else ""
    return f"<p{attribute}>{escape(text)}</p>"


def table(header: Sequence[str], rows: Iterable[Sequence[object]], strong: Iterable[bool] = (),
          caption: str | None = None, code_columns: Sequence[int] = (), keys: int = 1) -> str:
    """A table; numbers are right-aligned, rows flagged in ``strong`` are bold.

    A table of more than :data:`MAX_COLUMNS` columns becomes several tables, each repeating the
    first ``keys`` columns (what names a row) beside the next share of the others, so that none
    is wider than the page."""
    rows, strong = [list(row) for row in rows], list(strong)
    width = MAX_COLUMNS - keys
    parts = [list(range(keys)) + list(range(start, min(start + width, len(header))))
             for start in range(keys, len(header), width)] if len(header) > MAX_COLUMNS else [range(len(header))]
    return "\n".join(
        _table([header[j] for j in columns], [[row[j] for j in columns] for row in rows], strong,
               caption if number == 1 else f"Continued from the table above (part {number} of {len(parts)}).",
               [k for k, j in enumerate(columns) if j in code_columns])
        for number, columns in enumerate(parts, start=1))


def _table(header: Sequence[str], rows: list[list[object]], strong: list[bool], caption: str | None,
           code_columns: Sequence[int]) -> str:
    lines = ['<table class="wide">' if len(header) > WIDE_COLUMNS else "<table>"]
    if caption:
        lines.append(f"<caption>{escape(caption)}</caption>")
    lines.append("<tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>")
    for i, row in enumerate(rows):
        marked = ' class="strong"' if i < len(strong) and strong[i] else ""
        cells = []
        for j, cell in enumerate(row):
            kind = "num" if isinstance(cell, (int, float)) or _numeric(cell) else "code" if j in code_columns else ""
            attribute = f' class="{kind}"' if kind else ""
            cells.append(f"<td{attribute}>{escape(str(cell))}</td>")
        lines.append(f"<tr{marked}>" + "".join(cells) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def image(png: Path, caption: str) -> str:
    """A figure with its PNG embedded as a ``data:`` URI."""
    data = base64.b64encode(Path(png).read_bytes()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{escape(caption)}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def _numeric(text: object) -> bool:
    try:
        float(str(text).lstrip("<"))
    except ValueError:
        return False
    return True
