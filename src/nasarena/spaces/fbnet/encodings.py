"""Fixed-size encodings of FBNet architectures for surrogates and predictors.

- ``config_vector`` (float32[22]): ConfigSpace's vector (see :mod:`.configspace`).
- ``one_hot`` (float32[198]): a one-hot over ``BLOCKS`` of each layer, layer 0 first.
- ``graph`` (float32[24 * 24 + 24 * 11]): the network as a chain, flattened as [adjacency
  (row-major, ``[i, j] = 1`` for an arc i -> j), node features (one-hot labels over
  ``GRAPH_LABELS``)]. Node 0 is the input (the fixed stem), nodes 1-22 the searchable layers
  labelled with their block (``skip`` too, so every graph has the same nodes), node 23 the
  output (the fixed head); arcs go from each node to the next.
"""

from __future__ import annotations

import numpy as np

from ..encoders import pick_encoder
from .arch import FBNetArch
from .blocks import BLOCKS, NUM_LAYERS
from .configspace import config_vector

ENCODINGS = ("config_vector", "one_hot", "graph")
#: Node labels of the graph encoding, in feature-column order.
GRAPH_LABELS: tuple[str, ...] = ("input", *BLOCKS, "output")
#: (nodes, features per node) of the graph encoding.
GRAPH_SIZE: tuple[int, int] = (NUM_LAYERS + 2, len(GRAPH_LABELS))
_CHAIN = np.eye(GRAPH_SIZE[0], k=1, dtype=np.float32).ravel()
_LAYER_NODES = np.arange(1, NUM_LAYERS + 1)


def one_hot(arch: FBNetArch) -> np.ndarray:
    return np.eye(len(BLOCKS), dtype=np.float32)[list(arch.block_indices)].ravel()


def graph(arch: FBNetArch) -> np.ndarray:
    features = np.zeros(GRAPH_SIZE, dtype=np.float32)
    features[0, 0] = features[-1, -1] = 1.0
    features[_LAYER_NODES, 1 + np.array(arch.block_indices)] = 1.0
    return np.concatenate([_CHAIN, features.ravel()])


_ENCODERS = dict(zip(ENCODINGS, (config_vector, one_hot, graph)))


def encode(arch: FBNetArch, kind: str = "config_vector") -> np.ndarray:
    """One architecture's encoding of the given kind."""
    return pick_encoder(_ENCODERS, kind, "FBNet")(arch)
