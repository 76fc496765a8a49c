"""The NAS-Bench-101 cell, with the exact semantics of the original ``ModelSpec``.

A cell is a DAG given by a strictly upper-triangular 0/1 matrix and one op name per vertex.
Vertices not on a path from the input to the output are pruned (rows, columns and ops); the
pruned cell is then checked against the space's domain (at most 7 vertices and 9 edges,
``input`` first, ``output`` last, interior ops from the three allowed ones). The unpruned
original is kept because mutation in the original code works on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

INPUT = "input"
OUTPUT = "output"
CONV3X3 = "conv3x3-bn-relu"
CONV1X1 = "conv1x1-bn-relu"
MAXPOOL3X3 = "maxpool3x3"
#: Interior ops in label order (0, 1, 2), the order the hash and the enumeration use.
OPS: tuple[str, ...] = (CONV3X3, CONV1X1, MAXPOOL3X3)
MAX_VERTICES = 7
MAX_EDGES = 9


def _as_matrix(matrix) -> tuple[tuple[int, ...], ...]:
    """Validate the raw matrix and return it as nested tuples of 0/1 ints."""
    try:
        array = np.asarray(matrix)
    except Exception as error:  # ragged nested lists and the like
        raise ValueError(f"matrix is not a rectangular array: {error}") from None
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"matrix must be square, got shape {array.shape}")
    if array.shape[0] < 2:
        raise ValueError("a cell needs at least two vertices (input and output)")
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise ValueError("matrix entries must be the numbers 0 or 1")
    bad = np.argwhere((array != 0) & (array != 1))
    if len(bad):
        i, j = bad[0]
        raise ValueError(f"matrix entries must be 0 or 1: entry ({i}, {j}) is {array[i, j].item()!r}")
    lower = np.argwhere(np.tril(array) != 0)
    if len(lower):
        i, j = lower[0]
        raise ValueError(f"matrix must be strictly upper-triangular: entry ({i}, {j}) is 1 with {i} >= {j}")
    return tuple(tuple(int(x) for x in row) for row in array)


def _prune(matrix: tuple[tuple[int, ...], ...]) -> list[int] | None:
    """Vertices on a path input -> output, ascending; None if the output is unreachable."""
    n = len(matrix)
    forward = {0}
    frontier = [0]
    while frontier:
        top = frontier.pop()
        for v in range(top + 1, n):
            if matrix[top][v] and v not in forward:
                forward.add(v)
                frontier.append(v)
    backward = {n - 1}
    frontier = [n - 1]
    while frontier:
        top = frontier.pop()
        for v in range(top):
            if matrix[v][top] and v not in backward:
                backward.add(v)
                frontier.append(v)
    kept = sorted(forward & backward)
    return kept if len(kept) >= 2 else None


class Cell:
    """An NB101 cell; immutable value object whose identity is the official module hash.

    Malformed input (not square, not strictly upper-triangular, entries not 0/1, ops of the
    wrong length) raises ``ValueError``. A well-formed cell outside the space is *invalid*:
    ``is_valid`` is False, ``reason`` says why and ``hash`` is None.
    """

    def __init__(self, matrix, ops: Sequence[str]):
        original = _as_matrix(matrix)
        ops = tuple(ops)
        if len(ops) != len(original):
            raise ValueError(f"len(ops) = {len(ops)} differs from the matrix size {len(original)}")
        if not all(isinstance(op, str) for op in ops):
            raise ValueError("ops must be strings")
        self.original_matrix = original
        self.original_ops = ops
        kept = _prune(original)
        if kept is None:
            self.matrix, self.ops = None, None
            self.reason: str | None = "the input is not connected to the output"
            return
        self.matrix = tuple(tuple(original[i][j] for j in kept) for i in kept)
        self.ops = tuple(ops[i] for i in kept)
        self.reason = _domain_violation(self.matrix, self.ops)

    @property
    def is_valid(self) -> bool:
        return self.reason is None

    @property
    def num_vertices(self) -> int | None:
        return None if self.matrix is None else len(self.matrix)

    @property
    def num_edges(self) -> int | None:
        return None if self.matrix is None else sum(map(sum, self.matrix))

    @property
    def labels(self) -> tuple[int, ...]:
        """Hash labels of the pruned cell: -1 input, -2 output, 0/1/2 for ``OPS``."""
        self._require_valid()
        return (-1, *(OPS.index(op) for op in self.ops[1:-1]), -2)

    @cached_property
    def hash(self) -> str | None:
        """The official module hash (None for an invalid cell); a table look-up, see ``table``."""
        if not self.is_valid:
            return None
        from .table import hash_of_pruned

        return hash_of_pruned(self.matrix, self.labels)

    def _require_valid(self) -> None:
        if not self.is_valid:
            raise ValueError(f"invalid cell: {self.reason}")

    def to_dict(self) -> dict:
        return {"matrix": [list(row) for row in self.original_matrix], "ops": list(self.original_ops)}

    @classmethod
    def from_dict(cls, data: dict) -> Cell:
        return cls(data["matrix"], data["ops"])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Cell):
            return NotImplemented
        if self.is_valid and other.is_valid:
            return self.hash == other.hash
        return (self.original_matrix, self.original_ops) == (other.original_matrix, other.original_ops)

    def __hash__(self) -> int:
        return hash(self.hash if self.is_valid else (self.original_matrix, self.original_ops))

    def __repr__(self) -> str:
        if self.is_valid:
            return f"Cell(hash={self.hash!r}, vertices={self.num_vertices}, edges={self.num_edges})"
        return f"Cell(invalid: {self.reason})"


def _domain_violation(matrix, ops) -> str | None:
    """Why a pruned cell is outside the NB101 space, or None if it is inside."""
    n = len(matrix)
    if n > MAX_VERTICES:
        return f"too many vertices: {n} > {MAX_VERTICES}"
    edges = sum(map(sum, matrix))
    if edges > MAX_EDGES:
        return f"too many edges: {edges} > {MAX_EDGES}"
    if ops[0] != INPUT:
        return f"the first op must be {INPUT!r}, got {ops[0]!r}"
    if ops[-1] != OUTPUT:
        return f"the last op must be {OUTPUT!r}, got {ops[-1]!r}"
    for vertex, op in enumerate(ops[1:-1], start=1):
        if op not in OPS:
            return f"vertex {vertex} has op {op!r}, not one of {', '.join(OPS)}"
    return None
