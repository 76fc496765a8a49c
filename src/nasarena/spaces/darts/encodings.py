"""Fixed-size encodings of DARTS architectures for surrogates and predictors.

All encodings read the canonical form (each node's pairs sorted by input), so the two
writings of a node give one vector:

- ``config_vector`` (float32[34]): ConfigSpace's vector of the NB301 configuration, inactive
  edges -1 (see :mod:`.configspace`), the input of NB301's tree surrogates.
- ``one_hot`` (float32[150]): a one-hot of each dimension of the categorical vector (see
  :mod:`.categorical`), dimensions in order.
- ``adjacency_one_hot`` (float32[210]): per cell (normal, then reduce), the cell's 7x7
  adjacency row-major (nodes 0-5 and the output 6; ``[i, n] = 1`` when node ``n`` takes input
  ``i``, and ``[n, 6] = 1`` for every intermediate node), then a one-hot over ``OPS`` of each of
  the 8 edges in canonical order: NASLib's ``adjacency_one_hot`` layout with the op list
  one-hot and canonically ordered.
- ``graph`` (float32[30 * 30 + 30 * 11]): the architecture as one graph with ops on nodes,
  after Fig. 15 of the NB301 paper, flattened as [adjacency (row-major, ``[i, j] = 1`` for an
  arc i -> j), node features (one-hot labels over ``GRAPH_LABELS``)]. Nodes of the normal cell
  are 0-14 and those of the reduction cell 15-29, each block laid out as:

  ====== ==================================================================
  0, 1   the inputs c_{k-2} and c_{k-1} (labels ``input_0``, ``input_1``)
  2-5    the intermediate nodes 2-5 (label ``intermediate``)
  6      the cell output (label ``output``)
  7-14   one node per edge, labelled with its op: edge ``e`` of the canonical
         genotype is node ``7 + e``, so nodes 7, 8 feed node 2, 9, 10 node 3, ...
  ====== ==================================================================

  Arcs: input -> edge node -> intermediate node for each edge, every intermediate node ->
  the cell output, each cell's output -> both inputs of the other cell, and a self-loop on
  the normal cell's output (the paper found it necessary; it also tells the two cells apart,
  as they share labels). The paper labels inputs only as "input"; here c_{k-2} and c_{k-1}
  get distinct labels, since a cell that reads only c_{k-2} is a different network from one
  that reads only c_{k-1} and the graph would otherwise not tell them apart.
"""

from __future__ import annotations

import numpy as np

from ..encoders import pick_encoder
from .categorical import CATEGORICAL_DIMS, to_categorical
from .configspace import config_vector
from .genotype import DartsArch, canonical_cell
from .structure import CELL_TYPES, EDGES_PER_CELL, EDGES_PER_NODE, INPUT_NODES, INTERMEDIATE_NODES, OPS

ENCODINGS = ("config_vector", "one_hot", "adjacency_one_hot", "graph")

_CELL_NODES = len(INPUT_NODES) + len(INTERMEDIATE_NODES) + 1  # inputs, intermediates, output
_OUTPUT = _CELL_NODES - 1
_FIRST_EDGE_NODE = _CELL_NODES
_GRAPH_BLOCK = _CELL_NODES + EDGES_PER_CELL
#: Node labels of the graph encoding, in feature-column order.
GRAPH_LABELS: tuple[str, ...] = ("input_0", "input_1", "intermediate", "output", *OPS)
#: (nodes, features per node) of the graph encoding.
GRAPH_SIZE: tuple[int, int] = (_GRAPH_BLOCK * len(CELL_TYPES), len(GRAPH_LABELS))
_ONE_HOT_OFFSETS = np.concatenate([[0], np.cumsum(CATEGORICAL_DIMS)[:-1]])
_EDGE_TARGETS = np.repeat(INTERMEDIATE_NODES, EDGES_PER_NODE)


def one_hot(arch: DartsArch) -> np.ndarray:
    vector = np.zeros(sum(CATEGORICAL_DIMS), dtype=np.float32)
    vector[_ONE_HOT_OFFSETS + np.array(to_categorical(arch))] = 1.0
    return vector


def _canonical_arrays(arch: DartsArch) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, op indices) of the canonical edges, shape (2 cells, 8 edges) each."""
    cells = [canonical_cell(arch.cell(cell_type)) for cell_type in CELL_TYPES]
    sources = np.array([[source for _, source in edges] for edges in cells])
    ops = np.array([[OPS.index(op) for op, _ in edges] for edges in cells])
    return sources, ops


def adjacency_one_hot(arch: DartsArch) -> np.ndarray:
    sources, ops = _canonical_arrays(arch)
    parts = []
    for cell_sources, cell_ops in zip(sources, ops):
        adjacency = np.zeros((_CELL_NODES, _CELL_NODES), dtype=np.float32)
        adjacency[cell_sources, _EDGE_TARGETS] = 1.0
        adjacency[list(INTERMEDIATE_NODES), _OUTPUT] = 1.0
        parts += [adjacency.ravel(), np.eye(len(OPS), dtype=np.float32)[cell_ops].ravel()]
    return np.concatenate(parts)


def _fixed_graph() -> tuple[np.ndarray, np.ndarray]:
    """The arcs and labels every architecture shares (all but input -> edge node arcs and op labels)."""
    nodes, labels = GRAPH_SIZE
    adjacency = np.zeros((nodes, nodes), dtype=np.float32)
    features = np.zeros((nodes, labels), dtype=np.float32)
    for c in range(len(CELL_TYPES)):
        base, other = c * _GRAPH_BLOCK, (1 - c) * _GRAPH_BLOCK
        for e, target in enumerate(_EDGE_TARGETS):
            adjacency[base + _FIRST_EDGE_NODE + e, base + target] = 1.0
        for node in INTERMEDIATE_NODES:
            adjacency[base + node, base + _OUTPUT] = 1.0
        for node in INPUT_NODES:
            adjacency[base + _OUTPUT, other + node] = 1.0
            features[base + node, GRAPH_LABELS.index(f"input_{node}")] = 1.0
        features[base + np.array(INTERMEDIATE_NODES), GRAPH_LABELS.index("intermediate")] = 1.0
        features[base + _OUTPUT, GRAPH_LABELS.index("output")] = 1.0
    normal_output = CELL_TYPES.index("normal") * _GRAPH_BLOCK + _OUTPUT
    adjacency[normal_output, normal_output] = 1.0
    return adjacency, features


_FIXED_ADJACENCY, _FIXED_FEATURES = _fixed_graph()
_BLOCK_BASES = (np.arange(len(CELL_TYPES)) * _GRAPH_BLOCK)[:, None]
_EDGE_NODES = _BLOCK_BASES + _FIRST_EDGE_NODE + np.arange(EDGES_PER_CELL)
_FIRST_OP_LABEL = GRAPH_LABELS.index(OPS[0])


def graph(arch: DartsArch) -> np.ndarray:
    """The graph encoding (see the module): [adjacency 30x30, features 30x11] flattened."""
    sources, ops = _canonical_arrays(arch)
    adjacency = _FIXED_ADJACENCY.copy()
    adjacency[_BLOCK_BASES + sources, _EDGE_NODES] = 1.0
    features = _FIXED_FEATURES.copy()
    features[_EDGE_NODES, _FIRST_OP_LABEL + ops] = 1.0
    return np.concatenate([adjacency.ravel(), features.ravel()])


_ENCODERS = dict(zip(ENCODINGS, (config_vector, one_hot, adjacency_one_hot, graph)))


def encode(arch: DartsArch, kind: str = "config_vector") -> np.ndarray:
    """One architecture's encoding of the given kind."""
    return pick_encoder(_ENCODERS, kind, "DARTS")(arch)
