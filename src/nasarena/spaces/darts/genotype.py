"""The DARTS architecture: a normal and a reduction cell, each written as a genotype.

A cell is written as the DARTS code writes it: 8 ``(op, input)`` pairs, two per
intermediate node 2-5 in node order (pairs 0-1 feed node 2, pairs 2-3 node 3, ...). The
written order of a node's two pairs is kept, so a published genotype reads back exactly as
written; it carries no meaning, since a node sums its inputs. :meth:`DartsArch.canonical`
sorts each node's pairs by input, and that form is what identities, encodings and
configurations are computed from. The concatenated nodes are always 2-5 in this space, so
they are not stored.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

from .structure import CELL_TYPES, EDGES_PER_CELL, EDGES_PER_NODE, INTERMEDIATE_NODES, OPS

Edge = tuple[str, int]


def edge_node(position: int) -> int:
    """The intermediate node fed by the pair at ``position`` of a written cell."""
    return INTERMEDIATE_NODES[position // EDGES_PER_NODE]


def _checked_edge(entry, cell_type: str, position: int) -> Edge:
    node = edge_node(position)
    if isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence) or len(entry) != 2:
        raise ValueError(f"{cell_type} cell, node {node}: expected an (op, input) pair, got {entry!r}")
    op, source = entry
    if op not in OPS:
        raise ValueError(f"{cell_type} cell, node {node}: unknown op {op!r}; expected one of {', '.join(OPS)}")
    if isinstance(source, bool) or not hasattr(type(source), "__index__"):  # an int or a numpy integer
        raise ValueError(f"{cell_type} cell, node {node}: input must be a node number, got {source!r}")
    source = operator.index(source)
    if not 0 <= source < node:
        raise ValueError(f"{cell_type} cell, node {node}: input {source} is not an earlier node "
                         f"(expected 0..{node - 1})")
    return str(op), source


def _checked_cell(edges, cell_type: str) -> tuple[Edge, ...]:
    """The cell as a tuple of (op, input) tuples; a ValueError names the node at fault."""
    is_sequence = isinstance(edges, Sequence) and not isinstance(edges, (str, bytes))
    if not is_sequence or len(edges) != EDGES_PER_CELL:
        got = len(edges) if is_sequence else repr(edges)
        raise ValueError(f"{cell_type} cell: expected {EDGES_PER_CELL} (op, input) pairs, {EDGES_PER_NODE} for "
                         f"each of nodes {INTERMEDIATE_NODES[0]}-{INTERMEDIATE_NODES[-1]}, got {got}")
    checked = tuple(_checked_edge(entry, cell_type, position) for position, entry in enumerate(edges))
    for start in range(0, EDGES_PER_CELL, EDGES_PER_NODE):
        (_, first), (_, second) = checked[start : start + EDGES_PER_NODE]
        if first == second:
            raise ValueError(f"{cell_type} cell, node {edge_node(start)}: both inputs are node {first}; "
                             "a node's two inputs must be different nodes")
    return checked


def canonical_cell(edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """The cell with each node's two pairs sorted by input."""
    return tuple(edge for start in range(0, EDGES_PER_CELL, EDGES_PER_NODE)
                 for edge in sorted(edges[start : start + EDGES_PER_NODE], key=operator.itemgetter(1)))


@dataclass(frozen=True)
class DartsArch:
    """A DARTS architecture: the written (op, input) pairs of its normal and reduction cell.

    Equality and hashing are those of the written form; two writings of one architecture
    (a node's pairs swapped) are equal after :meth:`canonical`, and share one identity.
    """

    normal: tuple[Edge, ...]
    reduce: tuple[Edge, ...]

    def __post_init__(self) -> None:
        for cell_type in CELL_TYPES:
            object.__setattr__(self, cell_type, _checked_cell(getattr(self, cell_type), cell_type))

    def cell(self, cell_type: str) -> tuple[Edge, ...]:
        """The written pairs of the ``"normal"`` or ``"reduce"`` cell."""
        if cell_type not in CELL_TYPES:
            raise ValueError(f"unknown cell type {cell_type!r}; expected one of {', '.join(CELL_TYPES)}")
        return getattr(self, cell_type)

    def replace_cell(self, cell_type: str, edges) -> DartsArch:
        """This architecture with one cell replaced."""
        cells = {name: self.cell(name) for name in CELL_TYPES}
        cells[cell_type] = edges
        return DartsArch(**cells)

    def canonical(self) -> DartsArch:
        """The same architecture with each node's pairs sorted by input."""
        return DartsArch(*(canonical_cell(self.cell(cell_type)) for cell_type in CELL_TYPES))

    def to_dict(self) -> dict:
        return {cell_type: [list(edge) for edge in self.cell(cell_type)] for cell_type in CELL_TYPES}

    @classmethod
    def from_dict(cls, data: dict) -> DartsArch:
        missing = [cell_type for cell_type in CELL_TYPES if cell_type not in data]
        if missing:
            raise ValueError(f"a DARTS architecture record needs {' and '.join(repr(c) for c in CELL_TYPES)} "
                             f"lists of (op, input) pairs; missing {', '.join(missing)} in keys {sorted(data)}")
        return cls(**{cell_type: data[cell_type] for cell_type in CELL_TYPES})
