"""Fixed-size encodings of NB201 cells for surrogates and predictors.

Every encoding is computed by one vectorised function over a matrix of op indices (one row
per cell, edges in ``EDGES`` order), so the encoding of one cell and the row of that cell in
:func:`encode_all` are the same computation:

- ``one_hot`` (float32[30]): for each edge in order, a one-hot of its op over ``OPS``.
- ``op_indices`` (int64[6]): each edge's position in ``OPS``.
- ``path`` (int8[84]): BANANAS path encoding. The cell has four input->output routes
  (0->3, 0->1->3, 0->2->3, 0->1->2->3); a route is a path when none of its edges is ``none``,
  and the path is its sequence of ops. One bit per possible sequence of 1 to 3 ops drawn
  from the four non-``none`` ops: 4 + 16 + 64 = 84 bits, ordered by length and then in
  product order of ``PATH_OPS``. Sequences of length 2 can come from two routes, so two
  different cells can share an encoding.
- ``adjacency`` (uint8[8, 8]) and ``node_features`` (float32[8, 7]): the cell as a DAG with
  ops on nodes, the usual conversion of NB201 cells for graph predictors. Node 0 is the
  input, nodes 1-6 are the six edges' ops in ``EDGES`` order and node 7 the output. The op
  of edge i -> j feeds every op of an edge leaving j, or the output when j = 3, and is fed by
  the input when i = 0 or by every op of an edge entering i. A ``none`` op carries nothing,
  so its node keeps its label but loses all its arcs; every graph has 8 nodes so that they
  batch. Features are a one-hot of each node's label over ``GRAPH_LABELS``.
- ``graph`` (float32[120]): the flat form a GNN surrogate reads, shared by every space:
  [adjacency row-major (8 x 8), node features row-major (8 x 7)], sized by ``GRAPH_SIZE``.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from ..encoders import pick_encoder
from .cell import Cell201
from .order import op_indices_by_index
from .vocabulary import EDGES, OPS

ENCODINGS = ("one_hot", "op_indices", "path", "adjacency", "node_features", "graph")
#: Ops that carry a path onwards (a ``none`` edge breaks it), in path-encoding order.
PATH_OPS = tuple(op for op in OPS if op != "none")
#: Every op sequence of a path, each with its bit in the path encoding.
PATH_INDEX = {path: bit for bit, path in enumerate(
    p for length in (1, 2, 3) for p in itertools.product(PATH_OPS, repeat=length))}
#: Input -> output routes as positions in ``EDGES``: 0->3, 0->1->3, 0->2->3, 0->1->2->3.
ROUTES = ((3,), (0, 4), (1, 5), (0, 2, 5))
#: Node labels of the graph encoding, in feature-column order.
GRAPH_LABELS = ("input", *OPS, "output")

_PATH_RANK = np.array([PATH_OPS.index(op) if op in PATH_OPS else -1 for op in OPS])
_PATH_OFFSET = {1: 0, 2: len(PATH_OPS), 3: len(PATH_OPS) + len(PATH_OPS) ** 2}
_NONE = OPS.index("none")
_OUTPUT_NODE = len(EDGES) + 1
#: (nodes, features per node) of the ``graph`` encoding.
GRAPH_SIZE = (_OUTPUT_NODE + 1, len(GRAPH_LABELS))


def _full_adjacency() -> np.ndarray:
    """The op-on-node DAG of a cell with no ``none`` edge."""
    adjacency = np.zeros((_OUTPUT_NODE + 1, _OUTPUT_NODE + 1), dtype=np.uint8)
    for e, (to, source) in enumerate(EDGES):
        if source == 0:
            adjacency[0, 1 + e] = 1
        if to == 3:
            adjacency[1 + e, _OUTPUT_NODE] = 1
        for f, (_, next_source) in enumerate(EDGES):
            if next_source == to:
                adjacency[1 + e, 1 + f] = 1
    return adjacency


_FULL_ADJACENCY = _full_adjacency()


class CellGraph(NamedTuple):
    """A cell as a DAG with ops on nodes (see the module)."""

    adjacency: np.ndarray
    labels: tuple[str, ...]
    features: np.ndarray


def _one_hot(ops: np.ndarray) -> np.ndarray:
    return np.eye(len(OPS), dtype=np.float32)[ops].reshape(len(ops), -1)


def _op_indices(ops: np.ndarray) -> np.ndarray:
    return ops.astype(np.int64)


def _path(ops: np.ndarray) -> np.ndarray:
    encoding = np.zeros((len(ops), len(PATH_INDEX)), dtype=np.int8)
    ranks = _PATH_RANK[ops]
    rows = np.arange(len(ops))
    for route in ROUTES:
        route_ranks = ranks[:, route]
        bit = _PATH_OFFSET[len(route)] + route_ranks @ (len(PATH_OPS) ** np.arange(len(route) - 1, -1, -1))
        present = (route_ranks >= 0).all(axis=1)
        encoding[rows[present], bit[present]] = 1
    return encoding


def _adjacency(ops: np.ndarray) -> np.ndarray:
    alive = np.ones((len(ops), _OUTPUT_NODE + 1), dtype=np.uint8)
    alive[:, 1:_OUTPUT_NODE] = ops != _NONE
    return _FULL_ADJACENCY * alive[:, :, None] * alive[:, None, :]


def _node_features(ops: np.ndarray) -> np.ndarray:
    labels = np.empty((len(ops), _OUTPUT_NODE + 1), dtype=np.int64)
    labels[:, 0], labels[:, _OUTPUT_NODE] = 0, len(GRAPH_LABELS) - 1
    labels[:, 1:_OUTPUT_NODE] = ops.astype(np.int64) + 1
    return np.eye(len(GRAPH_LABELS), dtype=np.float32)[labels]


def _graph(ops: np.ndarray) -> np.ndarray:
    flat_adjacency = _adjacency(ops).reshape(len(ops), -1).astype(np.float32)
    return np.concatenate([flat_adjacency, _node_features(ops).reshape(len(ops), -1)], axis=1)


_ENCODERS = dict(zip(ENCODINGS, (_one_hot, _op_indices, _path, _adjacency, _node_features, _graph)))


def _encoder(kind: str):
    return pick_encoder(_ENCODERS, kind, "NB201")


def encode(cell: Cell201, kind: str = "one_hot") -> np.ndarray:
    """One cell's encoding of the given kind."""
    return _encoder(kind)(np.array([cell.op_indices]))[0]


def encode_all(kind: str = "one_hot") -> np.ndarray:
    """The encoding of all 15,625 cells, row ``i`` for official index ``i``."""
    return _encoder(kind)(op_indices_by_index())


def one_hot(cell: Cell201) -> np.ndarray:
    return encode(cell, "one_hot")


def op_indices(cell: Cell201) -> np.ndarray:
    return encode(cell, "op_indices")


def path_encoding(cell: Cell201) -> np.ndarray:
    return encode(cell, "path")


def graph(cell: Cell201) -> CellGraph:
    ops = np.array([cell.op_indices])
    return CellGraph(_adjacency(ops)[0], ("input", *cell.ops, "output"), _node_features(ops)[0])
