"""Vector encodings of NB101 cells for optimizers and predictors.

Encodings describe the *architecture*, not the user's vertex order: they are computed from
the canonical representative of the cell's hash (see :mod:`.table`), so isomorphic cells get
identical vectors. Smaller cells are widened to 7 vertices with empty vertices before the
output; edge bit ``i`` is edge ``(x, y)`` with ``i = x + y(y-1)/2``, an order in which the
edges among the first ``n`` vertices are always the first ``n(n-1)/2`` bits.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from .cell import INPUT, MAX_EDGES, MAX_VERTICES, OPS, OUTPUT, Cell
from .enumeration import edge_pairs, masks_to_matrices
from .table import unique_cells

NUM_EDGE_SLOTS = MAX_VERTICES * (MAX_VERTICES - 1) // 2  # 21
NUM_OP_SLOTS = MAX_VERTICES - 2  # 5
EDGE_PAIRS = edge_pairs(MAX_VERTICES)


def _canonical(cell: Cell) -> tuple[np.ndarray, np.ndarray]:
    """(21 edge bits, 5 interior labels with -1 for absent) of the cell's canonical form, widened to 7."""
    table = unique_cells()
    row = table.index_of(cell.hash)
    n = int(table.num_vertices[row])
    bits = (int(table.bitmasks[row]) >> np.arange(n * (n - 1) // 2)) & 1
    edges = np.zeros(NUM_EDGE_SLOTS, dtype=np.int8)
    # widening inserts empty vertices before the output: move output edges to vertex 6
    for i, (x, y) in enumerate(edge_pairs(n)):
        if bits[i]:
            target = MAX_VERTICES - 1 if y == n - 1 else y
            edges[EDGE_PAIRS.index((x, target))] = 1
    return edges, table.labellings[row].astype(np.int64)


def adjacency_one_hot(cell: Cell) -> np.ndarray:
    """21 upper-triangle edge bits + one-hot (3 ops) of each of the 5 interior slots: 36 floats."""
    edges, labels = _canonical(cell)
    ops = np.zeros((NUM_OP_SLOTS, len(OPS)), dtype=np.float32)
    present = labels >= 0
    ops[np.flatnonzero(present), labels[present]] = 1.0
    return np.concatenate([edges.astype(np.float32), ops.ravel()])


#: Node labels of the graph encoding, in feature-column order.
GRAPH_LABELS = (INPUT, *OPS, OUTPUT)
#: (nodes, features per node) of the graph encoding.
GRAPH_SIZE = (MAX_VERTICES, len(GRAPH_LABELS))


def graph(cell: Cell) -> np.ndarray:
    """The cell as a graph for a GNN: [7x7 adjacency row-major, 7x5 one-hot node labels], 84 floats.

    Adjacency ``[x, y] = 1`` for an edge x -> y of the canonical form widened to 7 vertices;
    the empty vertices inserted before the output have no edges and all-zero features, so a
    GNN that ignores featureless nodes sees the pruned cell itself.
    """
    edges, labels = _canonical(cell)
    adjacency = np.zeros((MAX_VERTICES, MAX_VERTICES), dtype=np.float32)
    for bit, (x, y) in zip(edges, EDGE_PAIRS):
        adjacency[x, y] = bit
    features = np.zeros(GRAPH_SIZE, dtype=np.float32)
    features[0, 0] = features[-1, -1] = 1.0
    present = np.flatnonzero(labels >= 0)
    features[1 + present, 1 + labels[present]] = 1.0
    return np.concatenate([adjacency.ravel(), features.ravel()])


def graph_batch(rows) -> np.ndarray:
    """:func:`graph` of many rows of ``unique_cells()`` at once, (len(rows), 84) float32.

    Fitting a GNN surrogate encodes hundreds of thousands of cells; this works on the
    table's columns, one group of equal vertex count at a time, instead of cell by cell.
    """
    table = unique_cells()
    rows = np.asarray(rows, dtype=np.int64)
    if rows.ndim != 1:
        raise ValueError(f"rows must be 1-D, got shape {rows.shape}")
    if len(rows) and (rows.min() < 0 or rows.max() >= len(table)):
        raise ValueError(f"rows must be in 0..{len(table) - 1}, got values in {rows.min()}..{rows.max()}")
    adjacency = np.zeros((len(rows), MAX_VERTICES, MAX_VERTICES), dtype=np.float32)
    vertices = table.num_vertices[rows].astype(np.int64)
    for n in np.unique(vertices).tolist():
        selected = np.flatnonzero(vertices == n)
        matrices = masks_to_matrices(table.bitmasks[rows[selected]], n)
        # widening inserts empty vertices before the output: the output column moves to vertex 6
        adjacency[np.ix_(selected, np.arange(n - 1), np.arange(n - 1))] = matrices[:, : n - 1, : n - 1]
        adjacency[np.ix_(selected, np.arange(n - 1), [MAX_VERTICES - 1])] = matrices[:, : n - 1, n - 1 :]
    features = np.zeros((len(rows), *GRAPH_SIZE), dtype=np.float32)
    features[:, 0, 0] = features[:, -1, -1] = 1.0
    labels = table.labellings[rows].astype(np.int64)
    cells, slots = np.nonzero(labels >= 0)
    features[cells, 1 + slots, 1 + labels[cells, slots]] = 1.0
    return np.concatenate([adjacency.reshape(len(rows), -1), features.reshape(len(rows), -1)], axis=1)


def variable_size(cell: Cell) -> np.ndarray:
    """The anytime paper's variable-size encoding: [n, edge bits of the n x n matrix padded to 21, 5 labels].

    The number of vertices is a parameter; edges and labels beyond it are 0 and -1
    (inactive, like conditional parameters in a configuration space).
    """
    table = unique_cells()
    row = table.index_of(cell.hash)
    n = int(table.num_vertices[row])
    edges = np.zeros(NUM_EDGE_SLOTS, dtype=np.int64)
    edges[: n * (n - 1) // 2] = (int(table.bitmasks[row]) >> np.arange(n * (n - 1) // 2)) & 1
    return np.concatenate([[n], edges, table.labellings[row].astype(np.int64)])


def from_variable_size(num_vertices: int, edges: Sequence[int], labels: Sequence[int]) -> Cell:
    """Cell of ``num_vertices`` vertices from the first n(n-1)/2 edge bits and n-2 labels."""
    if not 2 <= num_vertices <= MAX_VERTICES:
        raise ValueError(f"num_vertices must be in 2..{MAX_VERTICES}, got {num_vertices}")
    matrix = np.zeros((num_vertices, num_vertices), dtype=np.int8)
    for i, (x, y) in enumerate(edge_pairs(num_vertices)):
        matrix[x, y] = edges[i]
    interior = [OPS[int(label)] for label in labels[: num_vertices - 2]]
    return Cell(matrix, [INPUT, *interior, OUTPUT])


def continuous(cell: Cell) -> tuple[np.ndarray, int, np.ndarray]:
    """NB101 Supplement S3 encoding: (21 edge scores in [0, 1], N in 0..9, 5 labels).

    A cell is encoded with score 1 on its edges and 0 elsewhere and N = its edge count, so
    that :func:`from_continuous` maps it back to the same architecture.
    """
    edges, labels = _canonical(cell)
    labels = np.where(labels >= 0, labels, 0)  # empty slots are pruned; any op decodes the same
    return edges.astype(np.float64), int(edges.sum()), labels


def from_continuous(scores: Sequence[float], num_edges: int, labels: Sequence[int]) -> Cell:
    """Decode S3: the ``num_edges`` highest-scoring edges (ties: lower edge index first)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != (NUM_EDGE_SLOTS,):
        raise ValueError(f"expected {NUM_EDGE_SLOTS} edge scores, got shape {scores.shape}")
    if not 0 <= num_edges <= MAX_EDGES:
        raise ValueError(f"N must be in 0..{MAX_EDGES}, got {num_edges}")
    chosen = np.argsort(-scores, kind="stable")[:num_edges]
    matrix = np.zeros((MAX_VERTICES, MAX_VERTICES), dtype=np.int8)
    for i in chosen:
        x, y = EDGE_PAIRS[i]
        matrix[x, y] = 1
    return Cell(matrix, [INPUT, *(OPS[int(label)] for label in labels), OUTPUT])


def _path_index() -> dict[tuple[int, ...], int]:
    """Index of every possible input->output op sequence (lengths 0..5): 364 paths."""
    index = {}
    for length in range(NUM_OP_SLOTS + 1):
        for path in itertools.product(range(len(OPS)), repeat=length):
            index[path] = len(index)
    return index


PATH_INDEX = _path_index()
NUM_PATHS = len(PATH_INDEX)


def path_encoding(cell: Cell) -> np.ndarray:
    """BANANAS path encoding: one bit per op sequence of an input->output path (364 bits)."""
    if not cell.is_valid:
        raise ValueError(f"invalid cell: {cell.reason}")
    matrix, labels = cell.matrix, cell.labels
    n = len(matrix)
    encoding = np.zeros(NUM_PATHS, dtype=np.int8)
    stack = [(0, ())]
    while stack:
        vertex, ops = stack.pop()
        if vertex == n - 1:
            encoding[PATH_INDEX[ops]] = 1
            continue
        for successor in range(vertex + 1, n):
            if matrix[vertex][successor]:
                step = ops if successor == n - 1 else ops + (labels[successor],)
                stack.append((successor, step))
    return encoding


def adjacency_one_hot_rows(rows) -> np.ndarray:
    """:func:`adjacency_one_hot` of many rows of ``unique_cells()``, (len(rows), 36) float32.

    The same canonical, widened form as the per-cell encoding (tested equal), computed from the
    table's columns one vertex count at a time: edge bit i of an n-vertex cell is edge (x, y)
    in ``edge_pairs(n)`` order, and widening to 7 vertices moves the output (y = n - 1) to 6.
    """
    table = unique_cells()
    rows = np.asarray(rows, dtype=np.int64)
    out = np.zeros((len(rows), 36), dtype=np.float32)
    vertices = table.num_vertices[rows].astype(np.int64)
    for n in np.unique(vertices).tolist():
        selected = np.flatnonzero(vertices == n)
        masks = table.bitmasks[rows[selected]].astype(np.int64)
        for bit, (x, y) in enumerate(edge_pairs(n)):
            target = 6 if y == n - 1 else y
            out[selected, x + target * (target - 1) // 2] = (masks >> bit) & 1
    labels = table.labellings[rows].astype(np.int64)
    out[:, 21:] = (labels[:, :, None] == np.arange(3)).reshape(len(rows), 15)
    return out
