"""The NAS-Bench-101 cell, with the exact semantics of the original ``ModelSpec``.

A cell is a DAG given by a strictly upper-triangular 0/1 matrix and one op name per vertex.
Vertices not on a path from the input to the output are pruned (rows, columns and ops); the
pruned cell is then checked against the space's domain (at most 7 vertices and 9 edges,
``input`` first, ``output`` last, interior ops from the three allowed ones). The unpruned
original is kept because mutation in the original code works on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from ...errors import InvalidArchitectureError
from .lookup import hash_of_row, row_of_pruned
from .raw_encoding import encoding_attributes
from .vocabulary import CONV1X1, CONV3X3, INPUT, MAX_EDGES, MAX_VERTICES, MAXPOOL3X3, OPS, OUTPUT

__all__ = ["CONV1X1", "CONV3X3", "INPUT", "MAX_EDGES", "MAX_VERTICES", "MAXPOOL3X3", "OPS", "OUTPUT", "Cell"]


_BINARY = frozenset((0, 1))
_UNKNOWN = object()  # a cell's row before it is looked up


def _as_matrix(matrix) -> tuple[tuple[int, ...], ...]:
    """Validate the raw matrix and return it as nested tuples of 0/1 ints.

    Plain Python on purpose: for 7x7 cells it is ~10x faster than numpy's per-call overhead,
    and building cells is on the hot path of every optimizer.
    """
    if isinstance(matrix, np.ndarray) and matrix.ndim != 2:
        raise InvalidArchitectureError(f"matrix must be 2-D (vertices x vertices), got a {matrix.ndim}-D array "
                                       f"of shape {matrix.shape}")
    rows = matrix.tolist() if isinstance(matrix, np.ndarray) else matrix
    try:
        rows = [list(row) for row in rows]
    except TypeError:
        raise ValueError("matrix must be a square nested sequence of 0/1 entries") from None
    n = len(rows)
    if any(len(row) != n for row in rows):
        raise ValueError(f"matrix must be square, got rows of lengths {[len(row) for row in rows]}")
    if n < 2:
        raise ValueError("a cell needs at least two vertices (input and output)")
    for i, row in enumerate(rows):
        try:
            binary = _BINARY.issuperset(row)
        except TypeError:  # unhashable entries: a deeper nesting than a matrix
            raise InvalidArchitectureError(f"matrix row {i} holds nested sequences; expected 0/1 entries") from None
        if not binary:
            j = next(j for j, x in enumerate(row) if x not in _BINARY)
            raise ValueError(f"matrix entries must be 0 or 1: entry ({i}, {j}) is {row[j]!r}")
        if 1 in row[: i + 1]:
            j = next(j for j in range(i + 1) if row[j])
            raise ValueError(f"matrix must be strictly upper-triangular: entry ({i}, {j}) is 1 with {i} >= {j}")
    return tuple(tuple(map(int, row)) for row in rows)


def _prune(matrix: tuple[tuple[int, ...], ...]) -> list[int] | None:
    """Vertices on a path input -> output, ascending; None if the output is unreachable.

    One forward and one backward sweep in topological (index) order suffice for an
    upper-triangular matrix.
    """
    n = len(matrix)
    forward = [False] * n
    forward[0] = True
    for u in range(n - 1):
        if forward[u]:
            row = matrix[u]
            for v in range(u + 1, n):
                if row[v]:
                    forward[v] = True
    backward = [False] * n
    backward[n - 1] = True
    for v in range(n - 2, -1, -1):
        row = matrix[v]
        for w in range(v + 1, n):
            if row[w] and backward[w]:
                backward[v] = True
                break
    kept = [v for v in range(n) if forward[v] and backward[v]]
    return kept if len(kept) >= 2 else None


class Cell:
    """An NB101 cell; immutable value object whose identity is the official module hash.

    Malformed input (not square, not strictly upper-triangular, entries not 0/1, ops of the
    wrong length) raises ``ValueError``. A well-formed cell outside the space is *invalid*:
    ``is_valid`` is False, ``reason`` says why and ``hash`` is None.
    """

    def __init__(self, matrix, ops: Sequence[str]):
        original = _as_matrix(matrix)
        if isinstance(ops, str) or not hasattr(ops, "__iter__"):
            raise InvalidArchitectureError(f"ops must be a sequence of op names, one per vertex; got {ops!r}")
        ops = tuple(ops)
        if len(ops) != len(original):
            raise ValueError(f"len(ops) = {len(ops)} differs from the matrix size {len(original)}")
        if not all(isinstance(op, str) for op in ops):
            raise ValueError("ops must be strings")
        self._build(original, ops)

    @classmethod
    def from_checked(cls, matrix: tuple[tuple[int, ...], ...], ops: tuple[str, ...]) -> Cell:
        """A cell from input already known to be well-formed (a tuple of 0/1 int tuples,
        strictly upper-triangular, and a tuple of op names of the same length).

        For search operations that build cells by construction: it skips the input
        validation, which is most of the cost of ``Cell(...)``, but not pruning or the
        domain checks.
        """
        cell = cls.__new__(cls)
        cell._build(matrix, ops)
        return cell

    def _build(self, original: tuple[tuple[int, ...], ...], ops: tuple[str, ...]) -> None:
        self._row = _UNKNOWN
        self.original_matrix = original
        self.original_ops = ops
        kept = _prune(original)
        if kept is None:
            self.matrix, self.ops = None, None
            self.reason: str | None = "the input is not connected to the output"
            return
        if len(kept) == len(original):
            self.matrix, self.ops = original, ops
        else:
            pick = itemgetter(*kept)  # len(kept) >= 2, so it returns tuples
            self.matrix = tuple(pick(original[i]) for i in kept)
            self.ops = pick(ops)
        self.reason = _domain_violation(self.matrix, self.ops)

    #: The four encoding attributes a cell built from the raw tables fills in on first access.
    _ENCODING_ATTRIBUTES = frozenset(("original_matrix", "original_ops", "matrix", "ops"))

    def __getattr__(self, name: str):
        """Called only for an attribute the cell does not hold. A cell that a search operator built
        from its raw encoding (:func:`.raw.make_cell`, ``_raw`` set) holds its row but not yet its
        matrices and ops: most such cells are only hashed and looked up, and building the tuples
        costs more than the look-up. They are built here, once, on first access."""
        raw_encoding = self.__dict__.get("_raw")
        if raw_encoding is None or name not in Cell._ENCODING_ATTRIBUTES:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.__dict__.update(encoding_attributes(*raw_encoding))
        return self.__dict__[name]

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

    @property
    def row(self) -> int | None:
        """Position of the cell in ``unique_cells()`` (sorted-hash order); None if invalid.

        Computed once and kept (a plain attribute: ``functools.cached_property`` takes a lock
        on every first access, which costs more than the look-up itself).
        """
        row = self._row
        if row is _UNKNOWN:
            row = self._row = None if self.reason is not None else row_of_pruned(self.matrix, self.ops)
        return row

    @property
    def hash(self) -> str | None:
        """The official module hash (None for an invalid cell); a table look-up, see ``table``."""
        row = self.row
        return None if row is None else hash_of_row(row)

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
