"""Depth and width of NB101 cells (NB101 paper, Fig. 5), and the hand-designed cells it names.

Depth is the number of edges on the longest input -> output path. Width is the maximum
directed cut: over the vertex sets ``S`` that contain the input, not the output, and every
predecessor of their members (so no edge enters ``S``), the largest number of edges leaving
``S``. A chain has width 1; ``k`` parallel branches have width ``k``. Both are computed for all
cells at once from the edge bitmasks (2^5 candidate sets at most).
"""

from __future__ import annotations

import itertools

import numpy as np

from ...spaces.nb101 import Cell
from ...spaces.nb101.vocabulary import CONV1X1, CONV3X3, INPUT, MAXPOOL3X3, OUTPUT
from .encoded import edge_bit, popcount

#: The ResNet-like and Inception-like cells of the NB101 paper (Sec. 3.1, Fig. 1 top-right: a
#: 1x1 branch, a 3x3 branch, two 3x3 in a row for the 5x5, a max-pool branch; the example cell
#: of the original code's README). The ResNet-like cell is two 3x3 convolutions plus the
#: input -> output skip (added as a projection by the space's combine rule).
NAMED_CELLS = {
    "ResNet-like": Cell([[0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]],
                        [INPUT, CONV3X3, CONV3X3, OUTPUT]),
    "Inception-like": Cell(
        [[0, 1, 1, 1, 0, 1, 0], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 1, 0, 0],
         [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0]],
        [INPUT, CONV1X1, CONV3X3, CONV3X3, CONV3X3, MAXPOOL3X3, OUTPUT]),
}


def _has(bitmasks: np.ndarray, x: int, y: int) -> np.ndarray:
    return ((bitmasks >> edge_bit(x, y)) & 1).astype(bool)


def _per_vertex_count(num_vertices, bitmasks, measure) -> np.ndarray:
    """``measure(n, masks)`` over the cells of each vertex count ``n`` at once (the edge-bit layout
    depends on ``n``), put back in the cells' order."""
    num_vertices = np.asarray(num_vertices, dtype=np.int64)
    bitmasks = np.asarray(bitmasks, dtype=np.int64)
    result = np.zeros(len(bitmasks), dtype=np.int64)
    for n in np.unique(num_vertices):
        group = np.flatnonzero(num_vertices == n)
        result[group] = measure(int(n), bitmasks[group])
    return result


def _depth_of_group(n: int, masks: np.ndarray) -> np.ndarray:
    longest = [np.zeros(len(masks), dtype=np.int64)]  # -1: not reachable from the input
    for y in range(1, n):
        best = np.full(len(masks), -1, dtype=np.int64)
        for x in range(y):
            best = np.where(_has(masks, x, y) & (longest[x] >= 0), np.maximum(best, longest[x] + 1), best)
        longest.append(best)
    return longest[-1]


def _width_of_group(n: int, masks: np.ndarray) -> np.ndarray:
    best = np.zeros(len(masks), dtype=np.int64)
    for chosen in itertools.product((False, True), repeat=n - 2):
        inside = [True, *chosen, False]
        crossing = entering = 0
        for y in range(1, n):
            for x in range(y):
                if inside[x] and not inside[y]:
                    crossing |= 1 << edge_bit(x, y)
                elif inside[y] and not inside[x]:
                    entering |= 1 << edge_bit(x, y)
        closed = (masks & entering) == 0
        best = np.where(closed, np.maximum(best, popcount(masks & crossing)), best)
    return best


def depth(num_vertices, bitmasks) -> np.ndarray:
    """Longest input -> output path (edges) of each cell given by vertex count and edge bitmask."""
    return _per_vertex_count(num_vertices, bitmasks, _depth_of_group)


def width(num_vertices, bitmasks) -> np.ndarray:
    """Maximum directed cut of each cell (see the module docstring)."""
    return _per_vertex_count(num_vertices, bitmasks, _width_of_group)
