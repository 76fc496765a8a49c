"""The benchmark's index order of the 15,625 cells, computed instead of shipped.

The benchmark enumerated its cells in product order and then shuffled that list once with
Python's ``random`` module seeded with 88; the shuffled position is a cell's official index.
In detail:

1. *Product order*: the op of every edge, edges in cell-string order (``EDGES``), ops in
   ``OPS`` order, the last edge (3 <- 2) varying fastest. A cell's *rank* in this order is
   its op indices read as a base-5 number, edge 1 <- 0 the most significant digit.
2. *Shuffle*: Fisher-Yates from the back. For ``i`` from 15,624 down to 1, draw
   ``j`` uniform in ``0..i`` and swap positions ``i`` and ``j``. Each draw takes
   ``k = (i + 1).bit_length()`` bits from a Mersenne Twister seeded with ``random.seed(88)``
   (``getrandbits(k)``), redrawing while the value exceeds ``i``: CPython's
   ``random.shuffle``.

The draws are spelled out here rather than delegated to ``random.shuffle`` so that the rule
is written down and does not rest on how one CPython version implements ``shuffle``; only the
seeded Mersenne Twister bit stream comes from ``random``. The tests check the result against
the benchmark's own list of cells at all 15,625 positions.
"""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from .vocabulary import EDGES, NUM_CELLS, OPS

SHUFFLE_SEED = 88
#: Place value of each edge's op index in the product rank.
_PLACE = np.array([len(OPS) ** (len(EDGES) - 1 - e) for e in range(len(EDGES))], dtype=np.int64)


def product_rank(op_indices) -> int:
    """Position of a cell (as op indices, edge order) in the product enumeration."""
    return int(np.dot(op_indices, _PLACE))


def _below(stream: random.Random, bound: int) -> int:
    """Uniform in ``0..bound - 1`` by rejection on ``bound.bit_length()`` random bits."""
    bits = bound.bit_length()
    draw = stream.getrandbits(bits)
    while draw >= bound:
        draw = stream.getrandbits(bits)
    return draw


@lru_cache(maxsize=None)
def rank_at_index() -> np.ndarray:
    """Product rank of the cell at each official index (read-only, length 15,625)."""
    stream = random.Random(SHUFFLE_SEED)
    ranks = list(range(NUM_CELLS))
    for i in range(NUM_CELLS - 1, 0, -1):
        j = _below(stream, i + 1)
        ranks[i], ranks[j] = ranks[j], ranks[i]
    table = np.array(ranks, dtype=np.int64)
    table.setflags(write=False)
    return table


@lru_cache(maxsize=None)
def index_at_rank() -> np.ndarray:
    """Official index of the cell at each product rank (the inverse permutation)."""
    table = np.empty(NUM_CELLS, dtype=np.int64)
    table[rank_at_index()] = np.arange(NUM_CELLS)
    table.setflags(write=False)
    return table


@lru_cache(maxsize=None)
def op_indices_by_index() -> np.ndarray:
    """Op indices (uint8, shape (15,625, 6)) of every cell in official index order."""
    digits = (rank_at_index()[:, None] // _PLACE) % len(OPS)
    table = digits.astype(np.uint8)
    table.setflags(write=False)
    return table
