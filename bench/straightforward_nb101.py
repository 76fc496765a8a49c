"""The straightforward per-cell NB101 hashing and enumeration: the baseline for our benchmarks.

Written the way the original code does it: numpy pruning as in ``ModelSpec._prune`` and the
md5 refinement of :func:`nasarena.spaces.nb101.hashing.fingerprint` for every cell.
"""

from __future__ import annotations

import itertools

import numpy as np

from nasarena.spaces.nb101.cell import OPS
from nasarena.spaces.nb101.hashing import fingerprint


def prune(matrix: np.ndarray, ops: list[str]):
    n = matrix.shape[0]
    from_input, frontier = {0}, [0]
    while frontier:
        top = frontier.pop()
        for v in range(top + 1, n):
            if matrix[top, v] and v not in from_input:
                from_input.add(v)
                frontier.append(v)
    to_output, frontier = {n - 1}, [n - 1]
    while frontier:
        top = frontier.pop()
        for v in range(0, top):
            if matrix[v, top] and v not in to_output:
                to_output.add(v)
                frontier.append(v)
    extraneous = set(range(n)) - (from_input & to_output)
    if len(extraneous) > n - 2:
        return None, None
    matrix = np.delete(np.delete(matrix, list(extraneous), axis=0), list(extraneous), axis=1)
    ops = [op for i, op in enumerate(ops) if i not in extraneous]
    return matrix, ops


def straightforward_hash(matrix: np.ndarray, ops: list[str]) -> str | None:
    pruned, pruned_ops = prune(np.asarray(matrix), list(ops))
    if pruned is None or len(pruned) > 7 or pruned.sum() > 9:
        return None
    labels = [-1] + [OPS.index(op) for op in pruned_ops[1:-1]] + [-2]
    return fingerprint(pruned.tolist(), labels)


def straightforward_enumeration(max_vertices: int) -> dict[str, tuple]:
    """Hash -> first (matrix, labels) over all labelled full DAGs, as ``generate_graphs.py``."""
    buckets: dict[str, tuple] = {}
    for n in range(2, max_vertices + 1):
        pairs = [(x, y) for y in range(n) for x in range(y)]
        for bits in range(2 ** len(pairs)):
            matrix = np.zeros((n, n), dtype=np.int8)
            for i, (x, y) in enumerate(pairs):
                matrix[x, y] = (bits >> i) & 1
            if matrix.sum() > 9 or not matrix[:-1].any(axis=1).all() or not matrix[:, 1:].any(axis=0).all():
                continue
            rows = matrix.tolist()
            for labelling in itertools.product(range(3), repeat=n - 2):
                labels = [-1, *labelling, -2]
                buckets.setdefault(fingerprint(rows, labels), (rows, labels))
    return buckets
