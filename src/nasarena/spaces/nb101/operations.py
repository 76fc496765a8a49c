"""Search-space operations on NB101 cells: sampling, mutation, neighbourhoods.

Each stochastic operation takes an explicit ``numpy.random.Generator``. Sampling over the raw
encoding and mutation follow the original benchmarking and regularized-evolution code; they
work on the unpruned 7-vertex encoding, so several encodings (and isomorphisms) of one
architecture are distinct points, as in the paper's experiments.
"""

from __future__ import annotations

import numpy as np

from .cell import INPUT, MAX_VERTICES, OPS, OUTPUT, Cell
from .table import unique_cells

_OP_SPOTS = MAX_VERTICES - 2


def sample_raw(rng: np.random.Generator) -> Cell:
    """Uniform over the raw encoding, rejecting invalid cells (the original ``random_spec``).

    Edges are Bernoulli(0.5) in the upper triangle of a 7x7 matrix and the five interior ops
    uniform; this is *not* uniform over architectures (large, isomorphism-rich graphs are
    favoured), which is the distribution the NB101 paper's random search used.
    """
    while True:
        matrix = np.triu(rng.integers(0, 2, size=(MAX_VERTICES, MAX_VERTICES)), 1)
        interior = rng.integers(0, len(OPS), size=MAX_VERTICES - 2)
        cell = Cell(matrix, [INPUT, *(OPS[i] for i in interior), OUTPUT])
        if cell.is_valid:
            return cell


def sample_unique(rng: np.random.Generator) -> Cell:
    """Uniform over the 423,624 unique cells (returns each one's canonical encoding)."""
    table = unique_cells()
    return table.cell(int(rng.integers(len(table))))


def _padded_original(cell: Cell, rng: np.random.Generator) -> tuple[np.ndarray, list[str]]:
    """The unpruned encoding, widened to 7 vertices by isolated vertices before the output.

    Cells smaller than 7 vertices (e.g. canonical representatives) could otherwise never
    grow under mutation; the new vertices are pruned away until a mutation connects them,
    and their ops are drawn uniformly so that no op is favoured.
    """
    matrix = np.array(cell.original_matrix, dtype=np.int8)
    ops = list(cell.original_ops)
    missing = MAX_VERTICES - len(ops)
    if missing > 0:
        n = len(ops)
        widened = np.zeros((MAX_VERTICES, MAX_VERTICES), dtype=np.int8)
        widened[: n - 1, : n - 1] = matrix[: n - 1, : n - 1]
        widened[: n - 1, -1] = matrix[: n - 1, -1]
        matrix = widened
        ops = ops[:-1] + [OPS[i] for i in rng.integers(0, len(OPS), size=missing)] + [ops[-1]]
    return matrix, ops


def mutate(cell: Cell, rng: np.random.Generator, rate: float = 1.0) -> Cell:
    """Mutation of the original regularized-evolution code, repeated until the child is valid.

    On the unpruned encoding: each upper-triangle edge flips with probability ``rate / 7``,
    each interior op is resampled to one of the other two with probability ``rate / 5``.
    The child may be the same architecture as the parent, as in the original.
    """
    if not cell.is_valid:
        raise ValueError(f"cannot mutate an invalid cell: {cell.reason}")
    base_matrix, base_ops = _padded_original(cell, rng)
    n = len(base_ops)
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    while True:
        flips = (rng.random((n, n)) < rate / MAX_VERTICES) & upper
        matrix = np.where(flips, 1 - base_matrix, base_matrix)
        ops = list(base_ops)
        for vertex in range(1, n - 1):
            if rng.random() < rate / _OP_SPOTS:
                choices = [op for op in OPS if op != ops[vertex]]
                ops[vertex] = choices[int(rng.integers(len(choices)))]
        child = Cell(matrix, ops)
        if child.is_valid:
            return child


def neighbours(cell: Cell) -> list[Cell]:
    """All valid cells one edge flip or one interior op change away, de-duplicated by hash.

    Edits apply to the unpruned encoding; the cell itself is excluded, and so is an edit that
    yields the same architecture. (Widening to 7 vertices would add nothing: an isolated
    vertex needs two edge flips to join a path.)
    """
    if not cell.is_valid:
        raise ValueError(f"invalid cell has no neighbourhood: {cell.reason}")
    matrix = np.array(cell.original_matrix, dtype=np.int8)
    ops = list(cell.original_ops)
    n = len(ops)
    candidates = []
    for vertex in range(1, n - 1):
        for op in OPS:
            if op != ops[vertex]:
                candidates.append(Cell(matrix, ops[:vertex] + [op] + ops[vertex + 1 :]))
    for source in range(n - 1):
        for target in range(source + 1, n):
            flipped = matrix.copy()
            flipped[source, target] = 1 - flipped[source, target]
            candidates.append(Cell(flipped, ops))
    seen = {cell.hash}
    result = []
    for candidate in candidates:
        if candidate.is_valid and candidate.hash not in seen:
            seen.add(candidate.hash)
            result.append(candidate)
    return result
