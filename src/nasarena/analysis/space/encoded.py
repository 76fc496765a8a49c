"""The 510M-point encoded NB101 space: every 7-vertex upper-triangular matrix x 3^5 op labellings.

Optimizers and the paper's locality study (Sec. 3, Fig. 6) move through *encodings*, not
unique cells: a cell appears once per isomorphic relabelling and once per way of adding
vertices that pruning removes again. Validity and pruning depend on the matrix alone, so one
pass over the 2^21 matrices (which full DAG each prunes to, which interior vertices it keeps)
gives the unique-cell row of any encoded point by table look-up, and the exact number of
encoded points of every unique cell as one weighted ``bincount``.

Edge bit ``x + y(y-1)/2`` is the edge x -> y (the convention of ``spaces.nb101.lookup``);
labels are 0/1/2 for conv3x3/conv1x1/maxpool3x3; an op labelling is the base-3 number of the
five interior labels, vertex 1 most significant.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from ...spaces.nb101.lookup import labelled_table

VERTICES = 7
INTERIOR = VERTICES - 2
NUM_EDGE_BITS = VERTICES * (VERTICES - 1) // 2  # 21
NUM_MATRICES = 1 << NUM_EDGE_BITS
NUM_LABELLINGS = 3**INTERIOR  # 243
NUM_POINTS = NUM_MATRICES * NUM_LABELLINGS  # 509,607,936
MAX_EDGES = 9


def edge_bit(x: int, y: int) -> int:
    return x + y * (y - 1) // 2


def popcount(values: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(values, dtype=np.uint64)).astype(np.int64)


def labellings_digits(labellings: np.ndarray) -> np.ndarray:
    """(N, 5) interior labels of op-labelling numbers (vertex 1 first)."""
    labellings = np.asarray(labellings, dtype=np.int64)
    powers = 3 ** np.arange(INTERIOR - 1, -1, -1)
    return (labellings[:, None] // powers) % 3


def digits_labellings(digits: np.ndarray) -> np.ndarray:
    powers = 3 ** np.arange(INTERIOR - 1, -1, -1)
    return (np.asarray(digits, dtype=np.int64) * powers).sum(axis=1)


@dataclass(frozen=True)
class EncodedSpace:
    """Per 7-vertex matrix: the full DAG it prunes to (-1: invalid) and the interior vertices kept."""

    graph: np.ndarray  # (2^21,) int32, index into labelled_table().graph_* or -1
    kept: np.ndarray  # (2^21, 5) bool, interior vertex 1..5 kept by pruning

    @cached_property
    def valid(self) -> np.ndarray:
        return self.graph >= 0

    def rows(self, matrices: np.ndarray, labellings: np.ndarray) -> np.ndarray:
        """Unique-cell row of each encoded point (matrix number, op-labelling number); -1 if invalid."""
        matrices = np.asarray(matrices, dtype=np.int64)
        graphs = self.graph[matrices]
        digits = labellings_digits(labellings)
        kept = self.kept[matrices]
        code = np.zeros(len(matrices), dtype=np.int64)
        for i in range(INTERIOR):  # the pruned cell's code: kept labels in vertex order, base 3
            code = np.where(kept[:, i], code * 3 + digits[:, i], code)
        table = labelled_table()
        ok = graphs >= 0
        rows = np.full(len(matrices), -1, dtype=np.int64)
        rows[ok] = table.row_of_labelled[table.labelled_offsets[graphs[ok]] + code[ok]]
        return rows

    @cached_property
    def points_per_row(self) -> np.ndarray:
        """Exact number of encoded points (of the 510M) that hash to each unique cell.

        A valid matrix that prunes to full DAG ``g`` keeping ``k`` interior vertices stands for
        ``3^(5-k)`` encodings per labelling of ``g`` (the removed vertices' labels are free),
        and the labellings of ``g`` map to rows through the labelled table.
        """
        table = labelled_table()
        valid = self.valid
        weight = 3.0 ** (INTERIOR - self.kept[valid].sum(axis=1))
        per_graph = np.bincount(self.graph[valid], weights=weight, minlength=len(table.graph_vertices))
        per_labelled = np.repeat(per_graph, 3 ** (table.graph_vertices.astype(np.int64) - 2))
        counts = np.bincount(table.row_of_labelled, weights=per_labelled)
        return np.rint(counts).astype(np.int64)

    @cached_property
    def labelled_per_row(self) -> np.ndarray:
        """Number of distinct labelled pruned graphs (isomorphic copies) of each unique cell."""
        return np.bincount(labelled_table().row_of_labelled).astype(np.int64)

    @cached_property
    def _by_graph(self) -> tuple[np.ndarray, np.ndarray]:
        """Matrix numbers sorted by the full DAG they prune to, and those DAGs."""
        order = np.argsort(self.graph, kind="stable")
        return order, self.graph[order]

    def points_of_rows(self, rows) -> tuple[np.ndarray, np.ndarray]:
        """Every encoded point (matrix, labelling) of the given unique cells, as two arrays."""
        table = labelled_table()
        wanted = np.flatnonzero(np.isin(table.row_of_labelled, np.asarray(rows)))
        graphs = np.searchsorted(table.labelled_offsets, wanted, side="right") - 1
        codes = wanted - table.labelled_offsets[graphs]
        order, sorted_graphs = self._by_graph
        starts = np.searchsorted(sorted_graphs, graphs, side="left")
        ends = np.searchsorted(sorted_graphs, graphs, side="right")
        all_digits = labellings_digits(np.arange(NUM_LABELLINGS))
        matrices, labellings = [], []
        for graph, code, start, end in zip(graphs, codes, starts, ends):
            interior = int(table.graph_vertices[graph]) - 2
            pruned = [(int(code) // 3 ** (interior - 1 - j)) % 3 for j in range(interior)]
            for matrix in order[start:end]:
                kept = np.flatnonzero(self.kept[matrix])
                match = np.all(all_digits[:, kept] == np.array(pruned, dtype=np.int64), axis=1)
                labelling = np.flatnonzero(match)
                matrices.append(np.full(len(labelling), matrix, dtype=np.int64))
                labellings.append(labelling)
        return np.concatenate(matrices), np.concatenate(labellings)


@lru_cache(maxsize=1)
def encoded_space() -> EncodedSpace:
    """Prune all 2^21 matrices at once (bit operations on the matrix numbers)."""
    masks = np.arange(NUM_MATRICES, dtype=np.int64)
    has = {(x, y): ((masks >> edge_bit(x, y)) & 1).astype(bool) for y in range(1, VERTICES) for x in range(y)}
    forward = [np.ones(NUM_MATRICES, dtype=bool)]
    for y in range(1, VERTICES):
        reach = np.zeros(NUM_MATRICES, dtype=bool)
        for x in range(y):
            reach |= forward[x] & has[x, y]
        forward.append(reach)
    backward = [None] * VERTICES
    backward[-1] = np.ones(NUM_MATRICES, dtype=bool)
    for x in range(VERTICES - 2, -1, -1):
        reach = np.zeros(NUM_MATRICES, dtype=bool)
        for y in range(x + 1, VERTICES):
            reach |= backward[y] & has[x, y]
        backward[x] = reach
    kept = np.stack([forward[v] & backward[v] for v in range(VERTICES)], axis=1)
    kept[:, 0] = kept[:, -1] = forward[-1]
    index = np.cumsum(kept, axis=1) - 1
    pruned = np.zeros(NUM_MATRICES, dtype=np.int64)
    edges = np.zeros(NUM_MATRICES, dtype=np.int64)
    for (x, y), present in has.items():
        present = present & kept[:, x] & kept[:, y]
        bit = index[:, x] + index[:, y] * (index[:, y] - 1) // 2
        pruned |= np.where(present, np.int64(1) << np.clip(bit, 0, 62), 0)
        edges += present
    vertices = kept.sum(axis=1)
    table = labelled_table()
    keys = (vertices << 32) | pruned
    graphs = np.minimum(np.searchsorted(table.graph_keys, keys), len(table.graph_keys) - 1)
    valid = forward[-1] & (edges <= MAX_EDGES) & (table.graph_keys[graphs] == keys)
    return EncodedSpace(graph=np.where(valid, graphs, -1).astype(np.int32), kept=kept[:, 1:-1].copy())


def matrix_number(matrix) -> int:
    """Matrix number of a 7x7 upper-triangular 0/1 matrix."""
    matrix = np.asarray(matrix)
    return sum(1 << edge_bit(x, y) for y in range(VERTICES) for x in range(y) if matrix[x, y])
