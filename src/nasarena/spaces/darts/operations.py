"""Search-space operations on DARTS architectures: sampling, mutation, neighbourhoods.

Each stochastic operation takes an explicit ``numpy.random.Generator``. Mutation is NB301's
and BANANAS': one cell, then either one edge's op or one edge's input changes. Unlike the
BANANAS code, which may redraw the current value (a mutation that changes nothing), the new
op or input is drawn among the *other* valid values, so a mutation always changes exactly
one thing. Mutation and neighbours keep the parent's written order of each node's pairs.
"""

from __future__ import annotations

import numpy as np

from .categorical import CATEGORICAL_DIMS, from_categorical
from .genotype import DartsArch, Edge, edge_node
from .structure import CELL_TYPES, EDGES_PER_CELL, EDGES_PER_NODE, OPS

#: Written positions of the edges whose input can change: those of nodes 3-5 (node 2's two
#: edges must come from inputs 0 and 1).
_MOVABLE = tuple(range(EDGES_PER_NODE, EDGES_PER_CELL))


def sample(rng: np.random.Generator) -> DartsArch:
    """Uniform over the architectures: per node, the input pair and each edge's op uniform."""
    return from_categorical(rng.integers(0, CATEGORICAL_DIMS).tolist())


def _sibling(position: int) -> int:
    """Written position of the other edge of the same node."""
    return position ^ 1


def _other_inputs(edges: tuple[Edge, ...], position: int) -> list[int]:
    """Inputs the edge at ``position`` may move to: earlier nodes its node does not use yet."""
    used = {edges[position][1], edges[_sibling(position)][1]}
    return [source for source in range(edge_node(position)) if source not in used]


def _with_edge(arch: DartsArch, cell_type: str, position: int, edge: Edge) -> DartsArch:
    edges = list(arch.cell(cell_type))
    edges[position] = edge
    return arch.replace_cell(cell_type, edges)


def mutate(arch: DartsArch, rng: np.random.Generator) -> DartsArch:
    """A cell uniformly, then with probability 1/2 an op change, else an input change.

    Op change: an edge uniformly among the cell's 8 gets one of the 6 other ops. Input
    change: an edge uniformly among the 6 of nodes 3-5 moves, keeping its op, to an input
    uniformly among the earlier nodes its node does not already use.
    """
    cell_type = CELL_TYPES[int(rng.integers(len(CELL_TYPES)))]
    edges = arch.cell(cell_type)
    if rng.integers(2) == 0:
        position = int(rng.integers(EDGES_PER_CELL))
        op, source = edges[position]
        others = [other for other in OPS if other != op]
        return _with_edge(arch, cell_type, position, (others[int(rng.integers(len(others)))], source))
    position = _MOVABLE[int(rng.integers(len(_MOVABLE)))]
    choices = _other_inputs(edges, position)
    return _with_edge(arch, cell_type, position, (edges[position][0], choices[int(rng.integers(len(choices)))]))


def neighbours(arch: DartsArch) -> list[DartsArch]:
    """Every single op or input change: 2 cells x (8 edges x 6 ops + 6 moves), 120 architectures.

    Op changes first (cell, edge, op order), then input changes (cell, edge, input order).
    They are all different architectures, so there is nothing to de-duplicate: an op change
    keeps every input pair and differs from the others in which op changed to what; an
    input change alters its node's input pair, and two moves within one node always give
    different pairs (moving input ``i`` of pair ``{i, j}`` to ``k`` gives ``{k, j}``, which
    no move of ``j`` or other move of ``i`` gives).
    """
    candidates = []
    for cell_type in CELL_TYPES:
        for position, (op, source) in enumerate(arch.cell(cell_type)):
            candidates += [_with_edge(arch, cell_type, position, (other, source)) for other in OPS if other != op]
    for cell_type in CELL_TYPES:
        edges = arch.cell(cell_type)
        for position in _MOVABLE:
            candidates += [_with_edge(arch, cell_type, position, (edges[position][0], source))
                           for source in _other_inputs(edges, position)]
    return candidates
