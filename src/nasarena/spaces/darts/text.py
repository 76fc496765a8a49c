"""The genotype text form of the DARTS code, written and parsed without ``eval``.

Written as the repr of the DARTS ``Genotype`` namedtuple with lists::

    Genotype(normal=[('sep_conv_3x3', 0), ('sep_conv_3x3', 1), ...], normal_concat=[2, 3, 4, 5],
             reduce=[('max_pool_3x3', 0), ...], reduce_concat=[2, 3, 4, 5])

Parsing accepts what the DARTS code and its descendants print or store: any whitespace
and line breaks, single or double quotes, trailing commas, the fields in any order and
``range(2, 6)`` for a concat list (the DARTS search code builds genotypes that way), and the
pairs grouped per node, ``[[(op, input), (op, input)], ...]`` (how NAS-Benchmark's 214 random
DARTS architectures store them). The
text is read by a small tokenizer and recursive-descent parser over literals only (lists,
tuples, strings, integers and ``range``), so untrusted text cannot run code, and bounded in
what it can make the parser do: the text's length, the nesting depth and a ``range``'s length
are capped (``MAX_TEXT_LENGTH``, ``MAX_DEPTH``, ``MAX_RANGE``), and error messages quote at
most a short excerpt. Every node's pairs, ops and inputs are then checked by
:class:`~.genotype.DartsArch`.
"""

from __future__ import annotations

import re

from ...errors import InvalidArchitectureError
from .genotype import DartsArch
from .structure import CELL_TYPES, INTERMEDIATE_NODES

#: The concat list every cell of this space has: all intermediate nodes.
CONCAT: tuple[int, ...] = INTERMEDIATE_NODES
#: Far above any genotype (about 400 characters) yet small enough to parse in milliseconds.
MAX_TEXT_LENGTH = 100_000
#: Genotype(...) > cell list > node list > pair: 4 levels are needed.
MAX_DEPTH = 8
#: Longest ``range`` accepted (a concat list has 4 entries).
MAX_RANGE = 64
_FIELDS = tuple(field for cell_type in CELL_TYPES for field in (cell_type, f"{cell_type}_concat"))
_TOKEN = re.compile(r"""(?P<name>[A-Za-z_]\w*)|(?P<int>[+-]?\d+)|(?P<string>'[^'\\]*'|"[^"\\]*")"""
                    r"""|(?P<punct>[()\[\],=])""")


def _edges_text(edges) -> str:
    return "[" + ", ".join(f"({op!r}, {source})" for op, source in edges) + "]"


def to_text(arch: DartsArch) -> str:
    """The genotype text of ``arch``, its pairs in their written order."""
    fields = []
    for cell_type in CELL_TYPES:
        fields.append(f"{cell_type}={_edges_text(arch.cell(cell_type))}")
        fields.append(f"{cell_type}_concat={list(CONCAT)}")
    return "Genotype(" + ", ".join(fields) + ")"


class _Parser:
    """Recursive descent over the tokens of one genotype text."""

    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while True:
            while position < len(text) and text[position].isspace():
                position += 1
            if position == len(text):
                break
            match = _TOKEN.match(text, position)
            if match is None:
                raise self.error(f"unexpected character {text[position]!r} at position {position}")
            self.tokens.append((match.lastgroup, match.group(), position))
            position = match.end()
        self.next = 0

    def error(self, message: str) -> InvalidArchitectureError:
        return InvalidArchitectureError(f"genotype text: {message}")

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.next] if self.next < len(self.tokens) else ("end", "end of text", len(self.text))

    def take(self, expected: str | None = None, kind: str | None = None) -> str:
        token_kind, value, position = self.peek()
        if (expected is not None and value != expected) or (kind is not None and token_kind != kind):
            wanted = repr(expected) if expected is not None else f"a {kind}"
            raise self.error(f"expected {wanted} at position {position}, found {value!r}")
        self.next += 1
        return value

    def sequence(self, close: str, depth: int) -> list:
        """Comma-separated values up to ``close`` (already past the opening bracket)."""
        items = []
        while self.peek()[1] != close:
            items.append(self.value(depth))
            if self.peek()[1] != close:
                self.take(",")
        self.take(close)
        return items

    def value(self, depth: int = 1):
        kind, value, position = self.peek()
        if depth > MAX_DEPTH:
            raise self.error(f"brackets nested deeper than {MAX_DEPTH} levels at position {position}")
        if value == "[":
            self.take("[")
            return self.sequence("]", depth + 1)
        if value == "(":
            self.take("(")
            return tuple(self.sequence(")", depth + 1))
        if kind == "int":
            self.take()
            return int(value)
        if kind == "string":
            self.take()
            return value[1:-1]
        if value == "range":
            self.take()
            self.take("(")
            bounds = self.sequence(")", depth + 1)
            if not 1 <= len(bounds) <= 2 or not all(isinstance(b, int) for b in bounds):
                raise self.error(f"range at position {position} needs 1 or 2 integers, got {_excerpt(bounds)}")
            if len(range(*bounds)) > MAX_RANGE:
                raise self.error(f"range at position {position} has {len(range(*bounds)):,} entries; at most "
                                 f"{MAX_RANGE} are accepted")
            return list(range(*bounds))
        raise self.error(f"expected a list, tuple, string, integer or range at position {position}, found {value!r}")

    def genotype(self) -> dict:
        self.take("Genotype")
        self.take("(")
        fields: dict = {}
        while self.peek()[1] != ")":
            _, _, position = self.peek()
            name = self.take(kind="name")
            if name not in _FIELDS:
                raise self.error(f"unknown field {name!r} at position {position}; expected {', '.join(_FIELDS)}")
            if name in fields:
                raise self.error(f"field {name!r} is given twice")
            self.take("=")
            fields[name] = self.value(2)
            if self.peek()[1] != ")":
                self.take(",")
        self.take(")")
        if self.peek()[0] != "end":
            _, value, position = self.peek()
            raise self.error(f"unexpected {value!r} at position {position} after the closing ')'")
        missing = [name for name in _FIELDS if name not in fields]
        if missing:
            raise self.error(f"missing field(s) {', '.join(missing)}")
        return fields


def _excerpt(value, limit: int = 120) -> str:
    """``repr(value)``, cut to ``limit`` characters: messages never copy large input back."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def from_text(text: str) -> DartsArch:
    """The architecture of a genotype text; a ValueError says which field, node or op is wrong."""
    if not isinstance(text, str):
        raise InvalidArchitectureError(f"genotype text must be a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise InvalidArchitectureError(f"genotype text of {len(text):,} characters; at most {MAX_TEXT_LENGTH:,} are accepted")
    fields = _Parser(text).genotype()
    for cell_type in CELL_TYPES:
        concat = fields[f"{cell_type}_concat"]
        if not isinstance(concat, (list, tuple)) or tuple(concat) != CONCAT:
            raise InvalidArchitectureError(f"genotype text: {cell_type}_concat must be {list(CONCAT)} (this space concatenates every "
                             f"intermediate node), got {_excerpt(concat)}")
        if not isinstance(fields[cell_type], list):
            raise InvalidArchitectureError(f"genotype text: {cell_type} must be a list of (op, input) pairs, "
                             f"got {_excerpt(fields[cell_type])}")
        if fields[cell_type] and all(isinstance(node, list) for node in fields[cell_type]):  # grouped per node
            fields[cell_type] = [pair for node in fields[cell_type] for pair in node]
    return DartsArch(**{cell_type: fields[cell_type] for cell_type in CELL_TYPES})
