"""A NAS-Bench-Graph architecture: the input and the operation of each of its 4 computing nodes.

Node 0 is the graph's node features; computing node ``i`` (1-4) applies ``ops[i - 1]`` to the
output of node ``links[i - 1]``, an earlier node (so ``links[0]`` is always 0). Nodes that no
other node reads feed the output. This is the package's ``Arch(links, ops)``.

Its text form names each node's operation and input, node 1 first:
``gcn(0),gin(1),fc(2),cheb(1)`` is the package README's example ``Arch([0, 1, 2, 1], ['gcn',
'gin', 'fc', 'cheb'])``. Spaces around the entries are ignored when parsing.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import InvalidArchitectureError
from .vocabulary import NUM_NODES, OPERATIONS

_ENTRY = re.compile(r"^\s*([a-z]+)\s*\(\s*(\d+)\s*\)\s*$")


@dataclass(frozen=True)
class GraphArch:
    """The input node (``links``) and the operation (``ops``) of each computing node, node 1 first."""

    links: tuple[int, ...]
    ops: tuple[str, ...]

    def __post_init__(self) -> None:
        links, ops = self.links, self.ops
        if isinstance(links, (str, bytes)) or not isinstance(links, Sequence) or len(links) != NUM_NODES:
            raise InvalidArchitectureError(f"a NAS-Bench-Graph architecture has {NUM_NODES} computing nodes; give "
                                           f"{NUM_NODES} input nodes (links), got {links!r}")
        if isinstance(ops, (str, bytes)) or not isinstance(ops, Sequence) or len(ops) != NUM_NODES:
            raise InvalidArchitectureError(f"a NAS-Bench-Graph architecture has {NUM_NODES} computing nodes; give "
                                           f"{NUM_NODES} operation names, got {ops!r}")
        checked = []
        for node, link in enumerate(links, start=1):
            try:
                link = operator.index(link)
            except TypeError:
                raise InvalidArchitectureError(f"node {node}: its input must be a whole number, got {link!r}") from None
            if isinstance(link, bool) or not 0 <= link < node:
                raise InvalidArchitectureError(f"node {node}: input {link!r} is not an earlier node (0..{node - 1}; "
                                               "0 is the input features)")
            checked.append(int(link))
        for node, op in enumerate(ops, start=1):
            if op not in OPERATIONS:
                raise InvalidArchitectureError(f"node {node}: unknown operation {op!r}; expected one of "
                                               f"{', '.join(OPERATIONS)}")
        object.__setattr__(self, "links", tuple(checked))
        object.__setattr__(self, "ops", tuple(str(op) for op in ops))

    def to_text(self) -> str:
        return ",".join(f"{op}({link})" for op, link in zip(self.ops, self.links))

    @classmethod
    def from_text(cls, text: str) -> GraphArch:
        """Parse :meth:`to_text`'s form; an :class:`InvalidArchitectureError` names the entry at fault."""
        if not isinstance(text, str):
            raise InvalidArchitectureError(f"a NAS-Bench-Graph architecture text is like 'gcn(0),gin(1),fc(2),"
                                           f"cheb(1)', got {type(text).__name__} {text!r:.80}")
        entries = text.split(",")
        if len(entries) != NUM_NODES:
            raise InvalidArchitectureError(f"{text!r}: expected {NUM_NODES} comma-separated entries 'op(input)', "
                                           f"one per computing node, got {len(entries)}")
        links, ops = [], []
        for node, entry in enumerate(entries, start=1):
            match = _ENTRY.match(entry)
            if match is None:
                raise InvalidArchitectureError(f"{text!r}: node {node}'s entry {entry.strip()!r} is not "
                                               "'op(input)', e.g. 'gcn(0)'")
            ops.append(match[1])
            links.append(int(match[2]))
        return cls(tuple(links), tuple(ops))

    def to_dict(self) -> dict:
        """The package's ``Arch`` arguments as JSON: ``{"links": [...], "ops": [...]}``."""
        return {"links": list(self.links), "ops": list(self.ops)}

    @classmethod
    def from_dict(cls, data: dict) -> GraphArch:
        missing = [key for key in ("links", "ops") if key not in data]
        if missing:
            raise InvalidArchitectureError(f"a NAS-Bench-Graph architecture record needs 'links' and 'ops' lists, "
                                           f"lacks {', '.join(missing)} (keys: {sorted(data)})")
        return cls(tuple(data["links"]), tuple(data["ops"]))

    def __str__(self) -> str:
        return self.to_text()
