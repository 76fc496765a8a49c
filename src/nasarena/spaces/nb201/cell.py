"""The NAS-Bench-201 cell: 4 nodes, an op on each of the 6 edges i -> j (i < j).

Node j sums the ops applied to every earlier node. Cells are written as the benchmark's cell
string, ``|op~0|+|op~0|op~1|+|op~0|op~1|op~2|``: the groups are nodes 1, 2, 3 and ``op~i``
is the edge from node i. A cell's identity is its op per edge; its official index and its
equivalence class are derived from that (see :mod:`.order` and :mod:`.canonical`).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cached_property

from ...errors import InvalidArchitectureError
from .canonical import algebraic_form, benchmark_form
from .order import index_at_rank, op_indices_by_index, product_rank
from .vocabulary import EDGES, NUM_CELLS, OPS

__all__ = ["EDGES", "NUM_CELLS", "OPS", "Cell201"]

_NODE_INPUTS = tuple(tuple(source for to, source in EDGES if to == node) for node in (1, 2, 3))


@dataclass(frozen=True)
class Cell201:
    """An NB201 cell: the op name of each edge, edges in cell-string order (``EDGES``)."""

    ops: tuple[str, ...]

    def __post_init__(self) -> None:
        if isinstance(self.ops, str) or len(self.ops) != len(EDGES):
            raise ValueError(f"an NB201 cell has {len(EDGES)} edges; give a tuple of {len(EDGES)} op names, "
                             f"got {self.ops!r}")
        object.__setattr__(self, "ops", tuple(self.ops))
        for (to, source), op in zip(EDGES, self.ops):
            if op not in OPS:
                raise ValueError(f"edge {source}->{to}: unknown op {op!r}; expected one of {', '.join(OPS)}")

    @classmethod
    def from_string(cls, text: str) -> Cell201:
        """Parse a cell string; a ``ValueError`` names the group, entry or edge at fault."""
        if not isinstance(text, str):
            raise InvalidArchitectureError(f"an NB201 cell string is text like '|conv_3x3~0|+|...|+|...|', "
                                           f"got {type(text).__name__} {text!r:.80}")
        groups = text.strip().split("+")
        if len(groups) != 3:
            raise InvalidArchitectureError(f"{text!r}: expected 3 node groups separated by '+', got {len(groups)}")
        ops = []
        for node, (group, sources) in enumerate(zip(groups, _NODE_INPUTS), start=1):
            if len(group) < 2 or group[0] != "|" or group[-1] != "|":
                raise InvalidArchitectureError(f"{text!r}: node {node}'s group {group!r} must start and end with '|'")
            entries = group[1:-1].split("|")
            if len(entries) != len(sources):
                raise InvalidArchitectureError(f"{text!r}: node {node} needs {len(sources)} inputs, got {len(entries)}")
            for source, entry in zip(sources, entries):
                op, _, written = entry.partition("~")
                if written != str(source):
                    raise InvalidArchitectureError(f"{text!r}: node {node} input {source} is written {entry!r}, "
                                     f"expected '<op>~{source}'")
                ops.append(op)
        return cls(tuple(ops))

    @classmethod
    def from_indices(cls, indices) -> Cell201:
        """The cell with op ``OPS[indices[e]]`` on edge ``e``."""
        indices = [operator.index(i) for i in indices]
        if len(indices) != len(EDGES) or not all(0 <= i < len(OPS) for i in indices):
            raise ValueError(f"expected {len(EDGES)} op indices in 0..{len(OPS) - 1}, got {indices}")
        return cls(tuple(OPS[i] for i in indices))

    @classmethod
    def from_index(cls, index: int) -> Cell201:
        """The cell at an official benchmark index."""
        index = operator.index(index)
        if not 0 <= index < NUM_CELLS:
            raise ValueError(f"NB201 index must be in 0..{NUM_CELLS - 1}, got {index}")
        return cls.from_indices(op_indices_by_index()[index].tolist())

    @cached_property
    def op_indices(self) -> tuple[int, ...]:
        """Each edge's op as its position in ``OPS``."""
        return tuple(OPS.index(op) for op in self.ops)

    @cached_property
    def index(self) -> int:
        """The official benchmark index (the row of every NB201 table)."""
        return int(index_at_rank()[product_rank(self.op_indices)])

    def to_string(self) -> str:
        groups = []
        for node in (1, 2, 3):
            entries = [f"{op}~{source}" for (to, source), op in zip(EDGES, self.ops) if to == node]
            groups.append("|" + "|".join(entries) + "|")
        return "+".join(groups)

    def to_dict(self) -> dict:
        return {"cell": self.to_string()}

    @classmethod
    def from_dict(cls, data: dict) -> Cell201:
        if "cell" not in data:
            raise ValueError(f"an NB201 cell record needs a 'cell' string, got keys {sorted(data)}")
        return cls.from_string(data["cell"])

    def canonical_form(self, algebraic: bool = False) -> str:
        """The expression the cell computes: equal forms mean equivalent cells.

        The default is the benchmark's rule (6,466 classes); ``algebraic=True`` applies the
        algebra fully and merges more. :mod:`.canonical` says exactly what each one equates.
        """
        return algebraic_form(self.ops) if algebraic else benchmark_form(self.ops)

    def __str__(self) -> str:
        return self.to_string()
