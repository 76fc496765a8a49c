"""The DARTS space as a flat vector of independent categorical choices.

Per cell (normal, then reduce) and per intermediate node: the index of the node's input
pair among ``PARENT_PAIRS[node]`` (3, 6 and 10 choices for nodes 3, 4, 5), then the op
index of each of its two edges, the edge from the lower input first. Node 2 has a single
possible pair (0, 1), so it has no pair choice: a constant dimension would only add a
parameter to every model-based optimizer (and raise BOHB's minimum of ``d + 1`` points).
That gives 11 choices per cell, 22 in all, and every vector is one architecture: the
vector is a bijection with the canonical architectures, so a uniform vector is a uniform
architecture.
"""

from __future__ import annotations

import operator

from .genotype import DartsArch, canonical_cell
from .structure import CELL_TYPES, EDGES_PER_NODE, INTERMEDIATE_NODES, OPS, PARENT_PAIRS


def _cell_dims() -> tuple[int, ...]:
    dims: list[int] = []
    for node in INTERMEDIATE_NODES:
        if len(PARENT_PAIRS[node]) > 1:
            dims.append(len(PARENT_PAIRS[node]))
        dims.extend([len(OPS)] * EDGES_PER_NODE)
    return tuple(dims)


CELL_DIMS = _cell_dims()
#: Number of choices of each dimension, normal cell then reduction cell.
CATEGORICAL_DIMS: tuple[int, ...] = CELL_DIMS * len(CELL_TYPES)
_PAIR_INDEX = {node: {pair: i for i, pair in enumerate(pairs)} for node, pairs in PARENT_PAIRS.items()}


def to_categorical(arch: DartsArch) -> tuple[int, ...]:
    """The choice of each dimension of :data:`CATEGORICAL_DIMS` for ``arch``."""
    values: list[int] = []
    for cell_type in CELL_TYPES:
        edges = canonical_cell(arch.cell(cell_type))
        for i, node in enumerate(INTERMEDIATE_NODES):
            (low_op, low), (high_op, high) = edges[EDGES_PER_NODE * i : EDGES_PER_NODE * (i + 1)]
            if len(PARENT_PAIRS[node]) > 1:
                values.append(_PAIR_INDEX[node][(low, high)])
            values.extend((OPS.index(low_op), OPS.index(high_op)))
    return tuple(values)


def from_categorical(values) -> DartsArch:
    """The (canonical) architecture of one choice per dimension; a ValueError names the bad dimension."""
    try:
        values = [operator.index(v) for v in values]
    except TypeError:
        raise ValueError(f"categorical values must be integers, got {values!r}") from None
    if len(values) != len(CATEGORICAL_DIMS):
        raise ValueError(f"expected {len(CATEGORICAL_DIMS)} categorical values, got {len(values)}")
    for dim, (value, size) in enumerate(zip(values, CATEGORICAL_DIMS)):
        if not 0 <= value < size:
            raise ValueError(f"categorical dimension {dim} must be in 0..{size - 1}, got {value}")
    choices = iter(values)
    cells = {}
    for cell_type in CELL_TYPES:
        edges = []
        for node in INTERMEDIATE_NODES:
            pairs = PARENT_PAIRS[node]
            low, high = pairs[next(choices)] if len(pairs) > 1 else pairs[0]
            edges.extend(((OPS[next(choices)], low), (OPS[next(choices)], high)))
        cells[cell_type] = edges
    return DartsArch(**cells)
