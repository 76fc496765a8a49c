"""Fixed-size encodings of NAS-Bench-Graph architectures for surrogates and predictors.

Every encoding is of the network's representative (the package's drawing of it, :mod:`.keys`)
or of its network form (:mod:`.canonical`), so two drawings of one network always encode alike.
Sizes are for the 9 operations (proteins: 5); ``n`` is the number of operations.

- ``one_hot`` (float32[4 * (4 + n)] = 52): per computing node, a one-hot of its input node
  (0-3) and of its operation.
- ``choices`` (float32[7]): the categorical choices (inputs of nodes 2-4, then the operation
  indices of nodes 1-4), as tree models read them.
- ``path`` (int8[4,680]; proteins 340): the BANANAS path encoding. A path is the sequence of
  operations from the input to one output term, identities left out; the entry of each possible
  sequence of 1 to 4 non-identity operations is how many output terms it computes, ordered by
  length and then in product order of the operations. Networks that share a prefix and networks
  that repeat it encode alike (as in every path encoding).
- ``graph`` (float32[6 * 6 + 6 * (n + 2)]): the flat form a GNN surrogate reads:
  [adjacency row-major, node features row-major] of the representative as a DAG with operations
  on nodes: node 0 the input, nodes 1-4 the computing nodes, node 5 the output, an arc from
  each node's input to it and from every node no other node reads to the output; features are
  one-hot labels over ``("input", *operations, "output")``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ..encoders import pick_encoder
from .canonical import Form, paths
from .vocabulary import NUM_NODES, SKIP

ENCODINGS = ("one_hot", "choices", "path", "graph")
_OUTPUT = NUM_NODES + 1


class Encoder:
    """The encodings of one operation set (see the module)."""

    def __init__(self, operations: Sequence[str]):
        self.operations = tuple(operations)
        path_ops = tuple(op for op in self.operations if op != SKIP)
        self.path_index = {path: bit for bit, path in enumerate(
            p for length in range(1, NUM_NODES + 1) for p in itertools.product(path_ops, repeat=length))}
        self.graph_labels = ("input", *self.operations, "output")
        #: (nodes, features per node) of the ``graph`` encoding.
        self.graph_size = (NUM_NODES + 2, len(self.graph_labels))
        self._encoders = dict(zip(ENCODINGS, (self._one_hot, self._choices, self._path, self._graph)))

    def encode(self, links: tuple[int, ...], ops: tuple[str, ...], form: Form, kind: str) -> np.ndarray:
        """The ``kind`` encoding of a representative (``links``, ``ops``) whose network is ``form``."""
        return pick_encoder(self._encoders, kind, "NAS-Bench-Graph")(links, ops, form)

    def _one_hot(self, links, ops, form) -> np.ndarray:
        encoding = np.zeros((NUM_NODES, NUM_NODES + len(self.operations)), dtype=np.float32)
        encoding[np.arange(NUM_NODES), links] = 1.0
        encoding[np.arange(NUM_NODES), [NUM_NODES + self.operations.index(op) for op in ops]] = 1.0
        return encoding.ravel()

    def _choices(self, links, ops, form) -> np.ndarray:
        return np.array([*links[1:], *(self.operations.index(op) for op in ops)], dtype=np.float32)

    def _path(self, links, ops, form) -> np.ndarray:
        encoding = np.zeros(len(self.path_index), dtype=np.int8)
        for path, count in paths(form).items():
            encoding[self.path_index[path]] = count
        return encoding

    def _graph(self, links, ops, form) -> np.ndarray:
        nodes, features = self.graph_size
        adjacency = np.zeros((nodes, nodes), dtype=np.float32)
        adjacency[links, np.arange(1, NUM_NODES + 1)] = 1.0
        read = set(links)
        for node in range(1, NUM_NODES + 1):
            if node not in read:
                adjacency[node, _OUTPUT] = 1.0
        labels = np.zeros((nodes, features), dtype=np.float32)
        labels[np.arange(nodes), [0, *(1 + self.operations.index(op) for op in ops), features - 1]] = 1.0
        return np.concatenate([adjacency.ravel(), labels.ravel()])
