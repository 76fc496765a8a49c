"""NB101 cells in the raw 7-vertex encoding as two integers, for the search hot paths.

Sampling, the paper's mutation and neighbourhoods work on the unpruned 7-vertex encoding
(:mod:`.operations`), and most of what they build is thrown away: an invalid draw, a mutation
that leaves the architecture unchanged, a neighbour seen twice. Building a :class:`~.cell.Cell`
for each (pruning, domain checks, hash look-up) costs ~10 us, more than a table query. Here an
encoding is an *edge mask* (21 bits; bit ``i`` is edge ``EDGE_PAIRS[i]``, the upper triangle in
row-major order, the order the original sampler draws it) and an *op code* (the five interior
ops as base-3 digits, vertex 1 most significant). Pruning and the edge limit depend on the
edge mask alone, so one vectorised pass over the 2^21 masks (on first use, ~0.35 s of CPU) gives every
mask the offset of its pruned graph in the labelled table and the interior vertices it keeps:
validity and the unique-cell row of any encoding are then two array look-ups, and only the
accepted cell is built, straight from the tables (:func:`make_cell`, checked attribute for
attribute against ``Cell.from_checked`` by the tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .cell import Cell
from .lookup import labelled_table
from .raw_encoding import (
    _PICKERS,
    EDGE_PAIRS,
    NUM_EDGE_BITS,
    NUM_INTERIOR,
    NUM_OP_CODES,
    OP_WEIGHTS,
    encode,
)
from .vocabulary import MAX_EDGES, MAX_VERTICES, OPS

_CHUNK = 1 << 18  # masks per step of the table pass (bounds its memory to a few tens of MB)



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


class Lookups(NamedTuple):
    """The arrays of :func:`raw_tables` as memoryviews: indexing one (``offset_of[mask]``,
    ``code_of[interior, opcode]``) gives a Python int in half the time of ``ndarray.item``, on
    the hot path of mutation."""

    offset_of: memoryview
    interior_of: memoryview
    code_of: memoryview
    row_of: memoryview


@lru_cache(maxsize=None)
def lookups() -> Lookups:
    tables = raw_tables()
    return Lookups(*(memoryview(array) for array in (tables.offsets, tables.interior, tables.codes,
                                                     tables.row_of_labelled)))


@lru_cache(maxsize=None)
def raw_tables() -> RawTables:
    """The tables of every raw encoding (computed once per process, ~0.3 s)."""
    table = labelled_table()
    offsets = np.full(1 << NUM_EDGE_BITS, -1, dtype=np.int32)
    interior = np.zeros(1 << NUM_EDGE_BITS, dtype=np.uint8)
    luts = _chunk_tables()
    for start in range(0, 1 << NUM_EDGE_BITS, _CHUNK):
        masks = np.arange(start, start + _CHUNK, dtype=np.int64)
        offsets[start : start + _CHUNK], interior[start : start + _CHUNK] = _prune_masks(masks, table, luts)
    return RawTables(offsets=offsets, interior=interior, codes=_codes(), row_of_labelled=table.row_of_labelled)


# The 21-bit edge mask in three 7-bit chunks: every table below is indexed by one chunk's bits
# (and, for the pruned bitmask, by the interior vertices kept), and the chunks' entries OR together.
_CHUNK_BITS = 7
_CHUNKS = NUM_EDGE_BITS // _CHUNK_BITS


def _chunk_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per chunk and chunk value: the edges as packed predecessor sets (byte y holds the sources
    of vertex y) and successor sets (byte x holds the targets of x); per kept interior set, chunk
    and value: the bits of the pruned graph in the enumeration's order (x + y(y-1)/2 over the
    kept vertices' new indices)."""
    predecessors = np.zeros((_CHUNKS, 1 << _CHUNK_BITS), dtype=np.int64)
    successors = np.zeros((_CHUNKS, 1 << _CHUNK_BITS), dtype=np.int64)
    pruned = np.zeros((1 << NUM_INTERIOR, _CHUNKS, 1 << _CHUNK_BITS), dtype=np.int64)
    for interior in range(1 << NUM_INTERIOR):
        kept = _PICKERS[interior][0]
        index = {vertex: i for i, vertex in enumerate(kept)}
        for chunk in range(_CHUNKS):
            for value in range(1 << _CHUNK_BITS):
                for bit in range(_CHUNK_BITS):
                    if value >> bit & 1:
                        x, y = EDGE_PAIRS[chunk * _CHUNK_BITS + bit]
                        if interior == 0:
                            predecessors[chunk, value] |= 1 << (8 * y + x)
                            successors[chunk, value] |= 1 << (8 * x + y)
                        if x in index and y in index:
                            nx, ny = index[x], index[y]
                            pruned[interior, chunk, value] |= 1 << (nx + ny * (ny - 1) // 2)
    return predecessors, successors, pruned


def _prune_masks(masks: np.ndarray, table, luts) -> tuple[np.ndarray, np.ndarray]:
    """Pruning (as ``Cell``) and the domain checks of a batch of edge masks, as vertex bit sets."""
    predecessor_lut, successor_lut, pruned_lut = luts
    chunks = [(masks >> (_CHUNK_BITS * c)) & ((1 << _CHUNK_BITS) - 1) for c in range(_CHUNKS)]
    predecessors = predecessor_lut[0, chunks[0]] | predecessor_lut[1, chunks[1]] | predecessor_lut[2, chunks[2]]
    successors = successor_lut[0, chunks[0]] | successor_lut[1, chunks[1]] | successor_lut[2, chunks[2]]
    forward = np.ones(len(masks), dtype=np.int64)  # vertices the input reaches (index order is topological)
    for v in range(1, MAX_VERTICES):
        forward |= (((predecessors >> (8 * v)) & forward) != 0).astype(np.int64) << v
    backward = np.full(len(masks), 1 << (MAX_VERTICES - 1), dtype=np.int64)  # vertices reaching the output
    for v in range(MAX_VERTICES - 2, -1, -1):
        backward |= (((successors >> (8 * v)) & backward) != 0).astype(np.int64) << v
    kept = forward & backward  # empty when the output is unreachable
    interior = ((kept >> 1) & ((1 << NUM_INTERIOR) - 1)).astype(np.uint8)
    bitmasks = (pruned_lut[interior, 0, chunks[0]] | pruned_lut[interior, 1, chunks[1]]
                | pruned_lut[interior, 2, chunks[2]])
    valid = (kept >> (MAX_VERTICES - 1)).astype(bool) & (np.bitwise_count(bitmasks) <= MAX_EDGES)
    keys = (np.bitwise_count(kept[valid]).astype(np.int64) << 32) | bitmasks[valid]
    graphs = np.minimum(np.searchsorted(table.graph_keys, keys), len(table.graph_keys) - 1)
    if not np.array_equal(table.graph_keys[graphs], keys):
        raise ValueError("a pruned cell is not a full DAG of the space (internal error)")
    offsets = np.full(len(masks), -1, dtype=np.int64)
    offsets[valid] = table.labelled_offsets[graphs]
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

def make_cell(mask: int, opcode: int, row: int, interior: int) -> Cell:
    """The valid cell of an encoding whose ``row`` and kept ``interior`` are known: equal to the
    cell ``Cell.from_checked`` builds (and looks up), without pruning. It keeps the encoding
    (``_raw``) and builds its matrices and ops only when they are first read (see
    ``Cell.__getattr__``): a search hot path mostly hashes and looks cells up."""
    cell = Cell.__new__(Cell)
    cell.__dict__.update(_row=row, reason=None, _raw=(mask, opcode, interior))
    return cell


def encoding_of(cell: Cell) -> tuple[int, int] | None:
    """The (edge mask, op code) of a cell's unpruned encoding: kept by a cell :func:`make_cell`
    built, else computed (None when the encoding is not 7 vertices)."""
    kept = cell.__dict__.get("_raw")
    if kept is not None:
        return kept[0], kept[1]
    return encode(cell.original_matrix, cell.original_ops)


def cell_of(tables: RawTables, mask: int, opcode: int) -> Cell | None:
    """The cell of an encoding, or None when it is invalid."""
    row = tables.row(mask, opcode)
    return None if row < 0 else make_cell(mask, opcode, row, tables.interior.item(mask))
