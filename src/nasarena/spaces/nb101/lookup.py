"""Hashing NB101 cells by look-up, and the package data it reads.

The enumeration (:mod:`.enumeration`) assigns every labelled full DAG of the space its module
hash. Every *valid pruned* cell is one of those labelled graphs, so its hash is a table
look-up keyed by (vertices, edge bitmask, labelling code): exact by construction and about
two orders of magnitude faster than running the md5 refinement. The tables ship as package
data (checksummed) and are rebuilt by ``nasarena nb101 enumerate``.

This module sits below :mod:`.cell` (a cell hashes itself through it) and :mod:`.table` (the
unique cells as :class:`~.cell.Cell` objects), so neither imports the other's users.
"""

from __future__ import annotations

import binascii
import itertools
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from ...io.packaged import CELLS_FILE, LOOKUP_FILE, load_arrays, save_arrays
from .enumeration import NUM_OPS, Enumeration, edge_pairs, masks_to_matrices
from .vocabulary import INPUT, OPS, OUTPUT


@dataclass(frozen=True)
class LabelledTable:
    """Maps every labelled full DAG (vertices, bitmask, labelling code) to its unique-cell row."""

    graph_vertices: np.ndarray  # (G,) uint8, enumeration order
    graph_bitmasks: np.ndarray  # (G,) uint32
    row_of_labelled: np.ndarray  # (L,) int32

    @cached_property
    def labelled_offsets(self) -> np.ndarray:
        per_graph = NUM_OPS ** (self.graph_vertices.astype(np.int64) - 2)
        return np.concatenate([[0], np.cumsum(per_graph)[:-1]])

    @cached_property
    def graph_keys(self) -> np.ndarray:
        """Sorted search keys ``vertices << 32 | bitmask`` (enumeration order is already sorted)."""
        keys = (self.graph_vertices.astype(np.int64) << 32) | self.graph_bitmasks.astype(np.int64)
        assert np.all(np.diff(keys) > 0)
        return keys

    def rows(self, vertices: np.ndarray, bitmasks: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Unique-cell rows of labelled graphs, vectorised."""
        keys = (vertices.astype(np.int64) << 32) | bitmasks.astype(np.int64)
        graphs = np.searchsorted(self.graph_keys, keys)
        graphs = np.minimum(graphs, len(self.graph_keys) - 1)
        if not np.array_equal(self.graph_keys[graphs], keys):
            raise ValueError("a pruned cell is not a full DAG of the space (internal error)")
        return self.row_of_labelled[self.labelled_offsets[graphs] + codes]


def _decode_hashes(digests: np.ndarray) -> np.ndarray:
    text = binascii.hexlify(np.ascontiguousarray(digests).tobytes())
    return np.frombuffer(text, dtype="S32").astype("U32")


@lru_cache(maxsize=None)
def labelled_table() -> LabelledTable:
    """The full DAGs and the row of every labelled graph (what hashing by look-up needs)."""
    arrays = load_arrays(LOOKUP_FILE)
    return LabelledTable(
        graph_vertices=arrays["graph_vertices"],
        graph_bitmasks=arrays["graph_bitmasks"],
        row_of_labelled=arrays["row_of_labelled"],
    )


@lru_cache(maxsize=None)
def cell_hashes() -> np.ndarray:
    """The module hashes of the 423,624 unique cells, sorted: row ``i`` is the official row ``i``."""
    return _decode_hashes(load_arrays(CELLS_FILE)["hashes"])


def save_enumeration(enumeration: Enumeration, directory: Path | None = None) -> None:
    """Store a freshly computed enumeration as the package's space tables."""
    digests = np.frombuffer(binascii.unhexlify(enumeration.hashes.tobytes()), dtype=np.uint8).reshape(-1, 16)
    _, first = np.unique(enumeration.row_of_labelled, return_index=True)  # first labelled graph per row
    graphs = np.searchsorted(enumeration.labelled_offsets, first, side="right") - 1
    provenance = ("computed by `nasarena nb101 enumerate` (nasarena.spaces.nb101.enumeration); checked against "
                  "the official hashes of tiga1231/nasbench-vis")
    save_arrays(
        CELLS_FILE,
        {
            "hashes": digests,
            "canonical_graph": graphs.astype(np.uint16),
            "canonical_labelling": (first - enumeration.labelled_offsets[graphs]).astype(np.uint8),
        },
        description=("NAS-Bench-101 space: md5 digests of the 423,624 unique cells (sorted) and each one's canonical "
                     "representative (graph index and labelling code in enumeration order)"),
        provenance=provenance,
        directory=directory,
    )
    save_arrays(
        LOOKUP_FILE,
        {
            "row_of_labelled": enumeration.row_of_labelled,
            "graph_vertices": enumeration.graph_vertices,
            "graph_bitmasks": enumeration.graph_bitmasks,
        },
        description=("NAS-Bench-101 space: the full DAGs (2-7 vertices, <= 9 edges) by vertices and edge bitmask, "
                     "and the unique-cell row of every labelled full DAG, in enumeration order"),
        provenance=provenance,
        directory=directory,
    )


# --- hashing by look-up ----------------------------------------------------------------------


class _Lookup:
    """Plain-Python views of the tables for the per-cell hot path (built once, on first use).

    Every valid pruned matrix is one of the few thousand full DAGs, and every interior op
    sequence one of 364, so both are keyed by the tuples a :class:`Cell` already holds:
    a look-up costs two tuple hashes instead of a loop over the matrix.
    """

    def __init__(self) -> None:
        table = labelled_table()
        self.offset_of_matrix: dict[tuple, int] = {}
        for vertices in np.unique(table.graph_vertices).tolist():
            selected = np.flatnonzero(table.graph_vertices == vertices)
            matrices = masks_to_matrices(table.graph_bitmasks[selected], vertices).astype(int).tolist()
            for index, matrix in zip(selected.tolist(), matrices):
                key = tuple(map(tuple, matrix))
                self.offset_of_matrix[key] = int(table.labelled_offsets[index])
        self.code_of_ops: dict[tuple, int] = {}
        for length in range(0, 6):
            for labels in itertools.product(range(NUM_OPS), repeat=length):
                code = 0
                for label in labels:
                    code = code * NUM_OPS + label
                self.code_of_ops[(INPUT, *(OPS[i] for i in labels), OUTPUT)] = code
        self.row_of_labelled = table.row_of_labelled


_LOOKUP: _Lookup | None = None


def row_of_pruned(matrix: tuple[tuple[int, ...], ...], ops: tuple[str, ...]) -> int:
    """Unique-cell row (sorted-hash position) of a valid pruned cell (as ``Cell`` holds it).

    This is the per-cell hot path of every optimizer and benchmark query: two dict look-ups
    and one array item, no numpy scalar arithmetic.
    """
    global _LOOKUP
    lookup = _LOOKUP or _Lookup()
    _LOOKUP = lookup
    return lookup.row_of_labelled.item(lookup.offset_of_matrix[matrix] + lookup.code_of_ops[ops])


def hash_of_row(row: int) -> str:
    return cell_hashes().item(row)


@dataclass(frozen=True)
class BatchHashes:
    """Result of :func:`hash_cells`: per cell, its unique-cell row (-1 if invalid) and hash."""

    rows: np.ndarray
    hashes: np.ndarray  # str, "" for invalid cells

    @property
    def valid(self) -> np.ndarray:
        return self.rows >= 0


def _labels_from_ops(ops) -> np.ndarray:
    """Hash labels (B, V) from op names (or pass integer labels through); -9 marks a bad name."""
    ops = np.asarray(ops)
    if np.issubdtype(ops.dtype, np.integer):
        return ops.astype(np.int64)
    labels = np.full(ops.shape, -9, dtype=np.int64)
    for name, label in ((INPUT, -1), (OUTPUT, -2), *((op, i) for i, op in enumerate(OPS))):
        labels[ops == name] = label
    return labels


def hash_cells(matrices, ops) -> BatchHashes:
    """Hashes of a batch of cells of equal size: matrices (B, V, V) 0/1, ops (B, V) op names
    (or integer hash labels: -1 input, -2 output, 0/1/2 for ``OPS``).

    Vectorised pruning and domain checks with the same semantics as :class:`Cell` (smaller
    cells can be padded with isolated vertices before the output, which pruning removes).
    Malformed input raises ``ValueError``; invalid cells get row -1 and hash "".
    """
    adjacency = np.asarray(matrices)
    if adjacency.ndim != 3 or adjacency.shape[1] != adjacency.shape[2]:
        raise ValueError(f"matrices must have shape (B, V, V), got {adjacency.shape}")
    batch, n, _ = adjacency.shape
    if np.shape(ops) != (batch, n):
        raise ValueError(f"ops must have shape {(batch, n)}, got {np.shape(ops)}")
    bad = np.argwhere((adjacency != 0) & (adjacency != 1))
    if len(bad):
        b, i, j = bad[0]
        raise ValueError(f"cell {b}: matrix entries must be 0 or 1: entry ({i}, {j}) is {adjacency[b, i, j].item()!r}")
    lower = np.argwhere(np.tril(adjacency) != 0)
    if len(lower):
        b, i, j = lower[0]
        raise ValueError(f"cell {b}: matrix must be strictly upper-triangular: entry ({i}, {j}) is 1")
    adjacency = adjacency.astype(bool)
    labels = _labels_from_ops(ops)

    forward = np.zeros((batch, n), dtype=bool)
    forward[:, 0] = True
    for v in range(1, n):  # index order is a topological order
        forward[:, v] = (forward[:, :v] & adjacency[:, :v, v]).any(axis=1)
    backward = np.zeros((batch, n), dtype=bool)
    backward[:, -1] = True
    for v in range(n - 2, -1, -1):
        backward[:, v] = (adjacency[:, v, v + 1 :] & backward[:, v + 1 :]).any(axis=1)
    kept = forward & backward
    new_index = np.cumsum(kept, axis=1) - 1
    vertices = kept.sum(axis=1)

    bitmasks = np.zeros(batch, dtype=np.int64)
    edges = np.zeros(batch, dtype=np.int64)
    for x, y in edge_pairs(n):
        present = adjacency[:, x, y] & kept[:, x] & kept[:, y]
        bit = new_index[:, x] + new_index[:, y] * (new_index[:, y] - 1) // 2
        bitmasks |= np.where(present, np.int64(1) << np.clip(bit, 0, 62), 0)
        edges += present
    codes = np.zeros(batch, dtype=np.int64)
    interior_ok = np.ones(batch, dtype=bool)
    for v in range(1, n - 1):
        use = kept[:, v]
        codes = np.where(use, codes * NUM_OPS + np.maximum(labels[:, v], 0), codes)
        interior_ok &= ~use | (labels[:, v] >= 0)
    valid = (
        kept[:, 0]
        & (vertices >= 2)
        & (vertices <= 7)
        & (edges <= 9)
        & (labels[:, 0] == -1)
        & (labels[:, -1] == -2)
        & interior_ok
    )
    rows = np.full(batch, -1, dtype=np.int64)
    if valid.any():
        rows[valid] = labelled_table().rows(vertices[valid], bitmasks[valid], codes[valid])
    table_hashes = cell_hashes()
    hashes = np.where(valid, table_hashes[np.maximum(rows, 0)], "")
    return BatchHashes(rows=rows, hashes=hashes)
