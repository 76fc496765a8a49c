"""The NAS-Bench-201 cell: 4 nodes, an op on each of the 6 edges i -> j (i < j).

Node j sums the ops applied to every earlier node. Cells are written as the benchmark's cell
string, ``|op~0|+|op~0|op~1|+|op~0|op~1|op~2|``: the groups are nodes 1, 2, 3 and ``op~i``
is the edge from node i.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

#: Ops in the benchmark's own order (the index used by ``op_indices`` and one-hot encodings).
OPS: tuple[str, ...] = ("none", "skip_connect", "nor_conv_1x1", "nor_conv_3x3", "avg_pool_3x3")
#: Edges (to, from) in cell-string order.
EDGES: tuple[tuple[int, int], ...] = ((1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2))
NUM_CELLS = len(OPS) ** len(EDGES)
_ZERO = "#"


@dataclass(frozen=True)
class Cell201:
    """An NB201 cell; identity is its op per edge (equivalently its cell string)."""

    ops: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.ops) != len(EDGES):
            raise ValueError(f"an NB201 cell has {len(EDGES)} edges, got {len(self.ops)} ops")
        for (to, source), op in zip(EDGES, self.ops):
            if op not in OPS:
                raise ValueError(f"edge {source}->{to}: unknown op {op!r}; expected one of {', '.join(OPS)}")

    @classmethod
    def from_string(cls, text: str) -> Cell201:
        groups = text.strip().split("+")
        if len(groups) != 3:
            raise ValueError(f"{text!r}: expected 3 node groups separated by '+', got {len(groups)}")
        ops = []
        for node, group in enumerate(groups, start=1):
            entries = [e for e in group.split("|") if e]
            if len(entries) != node:
                raise ValueError(f"{text!r}: node {node} needs {node} inputs, got {len(entries)}")
            for source, entry in enumerate(entries):
                op, _, index = entry.partition("~")
                if index != str(source):
                    raise ValueError(f"{text!r}: node {node} input {source} is written {entry!r}, expected '<op>~{source}'")
                ops.append(op)
        return cls(tuple(ops))

    @classmethod
    def from_indices(cls, indices) -> Cell201:
        return cls(tuple(OPS[int(i)] for i in indices))

    @cached_property
    def op_indices(self) -> tuple[int, ...]:
        return tuple(OPS.index(op) for op in self.ops)

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
        return cls.from_string(data["cell"])

    def canonical_form(self, algebraic: bool = False) -> str:
        """The expression the cell computes, for de-duplicating equivalent cells.

        By default, the benchmark's own rule, which gives its 6,466 unique architectures: skip
        connections are inlined, each node is the sorted sum of its input terms written as
        text, and a ``none`` edge, or any edge from a node that is exactly zero, is a zero term
        that stays in the sum (so a sum of zeros is not recognised as zero, and inlined sums are
        not flattened). ``algebraic=True`` applies the algebra fully instead: sums are flattened
        multisets and zero terms vanish, which merges more cells.
        """
        return self._algebraic_form() if algebraic else self._benchmark_form()

    def _benchmark_form(self) -> str:
        nodes = {0: "x"}
        for node in (1, 2, 3):
            terms = []
            for (to, source), op in zip(EDGES, self.ops):
                if to != node:
                    continue
                value = nodes[source]
                if op == "none" or value == _ZERO:
                    terms.append(_ZERO)
                elif op == "skip_connect":
                    terms.append(value)
                else:
                    terms.append(f"({value})@{op}")
            nodes[node] = "+".join(sorted(terms))
        return nodes[3]

    def _algebraic_form(self) -> str:
        nodes: dict[int, tuple] = {0: ("x",)}  # a node is the sorted multiset of its terms; () is zero
        for node in (1, 2, 3):
            terms: list = []
            for (to, source), op in zip(EDGES, self.ops):
                if to != node or op == "none" or not nodes[source]:
                    continue
                terms.extend(nodes[source] if op == "skip_connect" else [(op, nodes[source])])
            nodes[node] = tuple(sorted(terms, key=repr))
        return repr(nodes[3])

    def __str__(self) -> str:
        return self.to_string()
