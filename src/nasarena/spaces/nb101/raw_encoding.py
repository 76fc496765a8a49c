"""The raw 7-vertex encoding of NB101 cells (an edge mask and an op code, see :mod:`.raw`) and
the conversions between it and matrices and op tuples.

Apart from :mod:`.raw` (which builds cells) so that :class:`~.cell.Cell` can fill in the
matrices of a cell built from its encoding without importing the module that builds it.
"""

from __future__ import annotations

from operator import itemgetter

from .vocabulary import INPUT, MAX_VERTICES, OPS, OUTPUT

EDGE_PAIRS = tuple((x, y) for x in range(MAX_VERTICES) for y in range(x + 1, MAX_VERTICES))
NUM_EDGE_BITS = len(EDGE_PAIRS)  # 21
NUM_INTERIOR = MAX_VERTICES - 2  # 5
NUM_OP_CODES = len(OPS) ** NUM_INTERIOR  # 243
#: Base-3 weight of interior vertex v (1..5) in an op code.
OP_WEIGHTS = tuple(len(OPS) ** (NUM_INTERIOR - v) for v in range(1, NUM_INTERIOR + 1))
# The first bit of row x of the matrix in the edge mask, and the width of that row's bits.
_ROW_START = tuple(sum(MAX_VERTICES - 1 - i for i in range(x)) for x in range(MAX_VERTICES))
_ROW_WIDTH = tuple(MAX_VERTICES - 1 - x for x in range(MAX_VERTICES))


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


def encoding_attributes(mask: int, opcode: int, interior: int) -> dict:
    """``original_matrix``, ``original_ops``, ``matrix`` and ``ops`` of a valid raw encoding
    (``interior``: the interior vertices pruning keeps), as ``Cell.from_checked`` builds them."""
    original = tuple([rows[mask >> start & full] for rows, start, full in _ROW_PARTS])
    ops = _OPS_OF_CODE[opcode]
    kept, pick = _PICKERS[interior]
    if pick is None:
        return dict(original_matrix=original, original_ops=ops, matrix=original, ops=ops)
    return dict(original_matrix=original, original_ops=ops, matrix=tuple([pick(original[i]) for i in kept]),
                ops=pick(ops))
