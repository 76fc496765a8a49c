"""NB101 cells in the raw 7-vertex encoding as two integers, for the search hot paths.

Sampling, the paper's mutation and neighbourhoods work on the unpruned 7-vertex encoding
(:mod:`.operations`), and most of what they build is thrown away: an invalid draw, a mutation
that leaves the architecture unchanged, a neighbour seen twice. Building a :class:`~.cell.Cell`
for each (pruning, domain checks, hash look-up) costs ~10 us, more than a table query. Here an
encoding is an *edge mask* (21 bits; bit ``i`` is edge ``EDGE_PAIRS[i]``, the upper triangle in
row-major order, the order the original sampler draws it) and an *op code* (the five interior
ops as base-3 digits, vertex 1 most significant). Pruning and the edge limit depend on the
edge mask alone, so one vectorised pass over the 2^21 masks (on first use, ~1 s) gives every
mask the offset of its pruned graph in the labelled table and the interior vertices it keeps:
validity and the unique-cell row of any encoding are then two array look-ups, and only the
accepted cell is built, straight from the tables (:func:`make_cell`, checked attribute for
attribute against ``Cell.from_checked`` by the tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

import numpy as np

from .cell import Cell
from .lookup import labelled_table
from .vocabulary import INPUT, MAX_EDGES, MAX_VERTICES, OPS, OUTPUT

EDGE_PAIRS = tuple((x, y) for x in range(MAX_VERTICES) for y in range(x + 1, MAX_VERTICES))
NUM_EDGE_BITS = len(EDGE_PAIRS)  # 21
NUM_INTERIOR = MAX_VERTICES - 2  # 5
NUM_OP_CODES = len(OPS) ** NUM_INTERIOR  # 243
#: Base-3 weight of interior vertex v (1..5) in an op code.
OP_WEIGHTS = tuple(len(OPS) ** (NUM_INTERIOR - v) for v in range(1, NUM_INTERIOR + 1))
_CHUNK = 1 << 18  # masks per step of the table pass (bounds its memory to a few tens of MB)

# The first bit of row x of the matrix in the edge mask, and the width of that row's bits.
_ROW_START = tuple(sum(MAX_VERTICES - 1 - i for i in range(x)) for x in range(MAX_VERTICES))
_ROW_WIDTH = tuple(MAX_VERTICES - 1 - x for x in range(MAX_VERTICES))


@dataclass(frozen=True)
class RawTables:
    """Per edge mask: ``offsets`` of its pruned graph in ``row_of_labelled`` (-1: invalid) and
    ``interior`` (bit v-1 set when interior vertex v survives pruning); per (interior, op code):
    ``codes``, the labelling code of the surviving ops."""

    offsets: np.ndarray  # (2^21,) int32
    interior: np.ndarray  # (2^21,) uint8
    codes: np.ndarray  # (32, 243) int64
    row_of_labelled: np.ndarray

    def rows(self, masks: np.ndarray, opcodes: np.ndarray) -> np.ndarray:
        """Unique-cell rows of encodings, vectorised; -1 for an invalid one."""
        masks = np.asarray(masks, dtype=np.int64)
        offsets = self.offsets[masks]
        valid = offsets >= 0
        rows = np.full(masks.shape, -1, dtype=np.int64)
        labelled = offsets[valid] + self.codes[self.interior[masks[valid]], np.asarray(opcodes)[valid]]
        rows[valid] = self.row_of_labelled[labelled]
        return rows

    def row(self, mask: int, opcode: int) -> int:
        """The unique-cell row of one encoding (plain ints), -1 when it is invalid."""
        offset = self.offsets.item(mask)
        if offset < 0:
            return -1
        return self.row_of_labelled.item(offset + self.codes.item(self.interior.item(mask), opcode))


@lru_cache(maxsize=None)
def raw_tables() -> RawTables:
    """The tables of every raw encoding (computed once per process)."""
    table = labelled_table()
    offsets = np.full(1 << NUM_EDGE_BITS, -1, dtype=np.int32)
    interior = np.zeros(1 << NUM_EDGE_BITS, dtype=np.uint8)
    for start in range(0, 1 << NUM_EDGE_BITS, _CHUNK):
        masks = np.arange(start, start + _CHUNK, dtype=np.int64)
        chunk_offsets, chunk_interior = _prune_masks(masks, table)
        offsets[start : start + _CHUNK] = chunk_offsets
        interior[start : start + _CHUNK] = chunk_interior
    return RawTables(offsets=offsets, interior=interior, codes=_codes(), row_of_labelled=table.row_of_labelled)


def _prune_masks(masks: np.ndarray, table) -> tuple[np.ndarray, np.ndarray]:
    """Pruning (as ``Cell``) and the domain checks of a batch of edge masks."""
    n = MAX_VERTICES
    edge = {pair: ((masks >> i) & 1).astype(bool) for i, pair in enumerate(EDGE_PAIRS)}
    forward = [np.ones(len(masks), dtype=bool)]
    for v in range(1, n):  # index order is a topological order
        forward.append(np.logical_or.reduce([forward[u] & edge[u, v] for u in range(v)]))
    backward = [np.ones(len(masks), dtype=bool)] * n
    for v in range(n - 2, -1, -1):
        backward[v] = np.logical_or.reduce([edge[v, w] & backward[w] for w in range(v + 1, n)])
    kept = [forward[v] & backward[v] for v in range(n)]
    position = np.cumsum(np.stack(kept, axis=1), axis=1) - 1  # index of each vertex after pruning
    bitmasks = np.zeros(len(masks), dtype=np.int64)
    edges = np.zeros(len(masks), dtype=np.int64)
    for (x, y) in EDGE_PAIRS:
        present = edge[x, y] & kept[x] & kept[y]
        px, py = position[:, x], position[:, y]
        bit = np.clip(px + py * (py - 1) // 2, 0, 62)  # the enumeration's bit order: x + y(y-1)/2
        bitmasks |= np.where(present, np.int64(1) << bit, 0)
        edges += present
    valid = kept[n - 1] & (edges <= MAX_EDGES)  # the output is kept iff the input reaches it
    vertices = np.stack(kept, axis=1).sum(axis=1)
    keys = (vertices[valid].astype(np.int64) << 32) | bitmasks[valid]
    graphs = np.minimum(np.searchsorted(table.graph_keys, keys), len(table.graph_keys) - 1)
    if not np.array_equal(table.graph_keys[graphs], keys):
        raise ValueError("a pruned cell is not a full DAG of the space (internal error)")
    offsets = np.full(len(masks), -1, dtype=np.int64)
    offsets[valid] = table.labelled_offsets[graphs]
    interior = sum(kept[v].astype(np.uint8) << (v - 1) for v in range(1, n - 1))
    return offsets, interior


def _codes() -> np.ndarray:
    """Labelling code (base 3 over the kept interior ops, first vertex most significant)."""
    codes = np.zeros((1 << NUM_INTERIOR, NUM_OP_CODES), dtype=np.int64)
    for kept in range(1 << NUM_INTERIOR):
        for opcode in range(NUM_OP_CODES):
            code = 0
            for v in range(1, NUM_INTERIOR + 1):
                if kept >> (v - 1) & 1:
                    code = code * len(OPS) + opcode // OP_WEIGHTS[v - 1] % len(OPS)
            codes[kept, opcode] = code
    return codes


# --- between encodings and cells ---------------------------------------------------------------

#: Row x of a 7x7 matrix as a tuple, by the bits of that row (bit 0: edge x -> x+1).
_ROW_TUPLES = tuple(
    tuple(tuple([0] * (x + 1) + [bits >> j & 1 for j in range(_ROW_WIDTH[x])]) for bits in range(1 << _ROW_WIDTH[x]))
    for x in range(MAX_VERTICES)
)
_BITS_OF_ROW = tuple({row: bits for bits, row in enumerate(rows)} for rows in _ROW_TUPLES)
_ROW_PARTS = tuple(zip(_ROW_TUPLES, _ROW_START, ((1 << w) - 1 for w in _ROW_WIDTH)))
_OPS_OF_CODE = tuple(
    (INPUT, *(OPS[opcode // w % len(OPS)] for w in OP_WEIGHTS), OUTPUT) for opcode in range(NUM_OP_CODES)
)
_CODE_OF_OPS = {ops: opcode for opcode, ops in enumerate(_OPS_OF_CODE)}


def _kept_picker(interior: int) -> tuple[list[int], itemgetter | None]:
    kept = [0, *(v for v in range(1, NUM_INTERIOR + 1) if interior >> (v - 1) & 1), MAX_VERTICES - 1]
    return kept, None if len(kept) == MAX_VERTICES else itemgetter(*kept)


_PICKERS = tuple(_kept_picker(interior) for interior in range(1 << NUM_INTERIOR))


def encode(matrix, ops) -> tuple[int, int] | None:
    """The (edge mask, op code) of a 7-vertex unpruned encoding (rows as tuples or lists);
    None for another size, which the callers handle with the general code."""
    if len(ops) != MAX_VERTICES:
        return None
    mask = 0
    for x, row in enumerate(matrix):
        mask |= _BITS_OF_ROW[x][tuple(row)] << _ROW_START[x]
    return mask, _CODE_OF_OPS[tuple(ops)]


def make_cell(mask: int, opcode: int, row: int, interior: int) -> Cell:
    """The valid cell of an encoding whose ``row`` and kept ``interior`` are known, built from
    the tables: the same object ``Cell.from_checked`` builds (and looks up), without pruning."""
    original = tuple([rows[mask >> start & full] for rows, start, full in _ROW_PARTS])
    ops = _OPS_OF_CODE[opcode]
    kept, pick = _PICKERS[interior]
    if pick is None:
        matrix, pruned_ops = original, ops
    else:
        matrix, pruned_ops = tuple([pick(original[i]) for i in kept]), pick(ops)
    cell = Cell.__new__(Cell)
    cell.__dict__.update(_row=row, original_matrix=original, original_ops=ops, matrix=matrix, ops=pruned_ops,
                         reason=None)
    return cell


def cell_of(tables: RawTables, mask: int, opcode: int) -> Cell | None:
    """The cell of an encoding, or None when it is invalid."""
    row = tables.row(mask, opcode)
    return None if row < 0 else make_cell(mask, opcode, row, tables.interior.item(mask))
