"""Encodings of many architectures of the large spaces at once (DARTS, FBNet ``config_vector``).

The DARTS and FBNet spaces cannot be enumerated, so a surrogate of theirs has no prediction
table and every batch query is encoded and predicted by the models. Their per-architecture
encoders build a configuration dictionary (DARTS) or re-read the ConfigSpace order (FBNet) for
each architecture, ~0.3 ms apiece: a batch of 100,000 spent half a minute encoding before the
forest saw a row. Here each architecture contributes only its integers (op and input of every
edge, or block of every layer), read in one pass; the vector itself is built by numpy look-ups
into tables derived once from the same ConfigSpace the per-architecture encoders use, so the
rows are those encoders' exactly (the tests compare them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import chain
from operator import attrgetter, itemgetter

import numpy as np

#: Fewer architectures than this are encoded one at a time (cached by identity): building the
#: arrays has a fixed cost that pays off on batches only.
MIN_BATCH = 64


def batch_encoder(space_name: str, kind: str) -> Callable[[Sequence], np.ndarray] | None:
    """A function architectures -> (n, width) float32 rows equal to the space's ``encode(arch, kind)``,
    or None when there is no vectorised encoder for that space and kind."""
    if kind != "config_vector":
        return None
    return {"darts": darts_config_vectors, "fbnet": fbnet_config_vectors}.get(space_name)


# --- DARTS --------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _darts_tables() -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Look-up tables of ConfigSpace's DARTS vector: (width, edge position [cell, node, source],
    edge value [cell, node, source, op], pair position [cell, node], pair value [cell, node, a, b])."""
    from ..spaces.darts.configspace import config_space, edge_parameter, inputs_parameter
    from ..spaces.darts.structure import CELL_TYPES, INTERMEDIATE_NODES, OPS, PARENT_PAIRS, SLOT_INDEX, pair_name

    space = config_space()
    names = list(space.keys())
    position = {name: i for i, name in enumerate(names)}
    nodes = max(INTERMEDIATE_NODES) + 1
    edge_position = np.full((len(CELL_TYPES), nodes, nodes), -1, dtype=np.int64)
    edge_value = np.full((len(CELL_TYPES), nodes, nodes, len(OPS)), np.nan, dtype=np.float32)
    pair_position = np.full((len(CELL_TYPES), nodes), -1, dtype=np.int64)
    pair_value = np.full((len(CELL_TYPES), nodes, nodes, nodes), np.nan, dtype=np.float32)
    for c, cell_type in enumerate(CELL_TYPES):
        for (node, source), slot in SLOT_INDEX.items():
            name = edge_parameter(cell_type, slot)
            choices = [str(choice) for choice in space[name].choices]
            edge_position[c, node, source] = position[name]
            edge_value[c, node, source] = [choices.index(op) for op in OPS]
        for node in INTERMEDIATE_NODES[1:]:
            name = inputs_parameter(cell_type, node)
            choices = [str(choice) for choice in space[name].choices]
            pair_position[c, node] = position[name]
            for a, b in PARENT_PAIRS[node]:
                pair_value[c, node, a, b] = choices.index(pair_name((a, b)))
    return len(names), edge_position, edge_value, pair_position, pair_value


def darts_config_vectors(archs: Sequence) -> np.ndarray:
    """``encode(arch, "config_vector")`` of many DARTS architectures, (n, 34) float32."""
    from ..spaces.darts.configspace import INACTIVE
    from ..spaces.darts.structure import CELL_TYPES, EDGES_PER_NODE, INTERMEDIATE_NODES, OPS

    width, edge_position, edge_value, pair_position, pair_value = _darts_tables()
    op_index = {op: i for i, op in enumerate(OPS)}
    # every (op, source) edge of every cell, flattened and split by C-level iterators: a Python
    # generator step per edge cost two thirds of the encoding
    edges = list(chain.from_iterable(chain.from_iterable(map(attrgetter(*CELL_TYPES), archs))))
    n, cells, nodes = len(archs), len(CELL_TYPES), len(INTERMEDIATE_NODES)
    shape = (n, cells, nodes, EDGES_PER_NODE)
    ops = np.fromiter(map(op_index.__getitem__, map(itemgetter(0), edges)), dtype=np.int64,
                      count=len(edges)).reshape(shape)
    sources = np.fromiter(map(itemgetter(1), edges), dtype=np.int64, count=len(edges)).reshape(shape)
    # canonical form: each node's two edges sorted by input (a stable sort: equal inputs keep their order)
    swap = sources[..., 0] > sources[..., 1]
    sources[swap] = sources[swap][:, ::-1]
    ops[swap] = ops[swap][:, ::-1]
    vectors = np.full((n, width), INACTIVE, dtype=np.float32)
    arch_index = np.arange(n)[:, None, None, None]
    cell_index = np.arange(cells)[None, :, None, None]
    node_number = np.asarray(INTERMEDIATE_NODES)[None, None, :, None]
    vectors[arch_index, edge_position[cell_index, node_number, sources]] = \
        edge_value[cell_index, node_number, sources, ops]
    with_pair = np.asarray(INTERMEDIATE_NODES[1:])  # node 2's inputs are fixed: it has no pair parameter
    pair_nodes = with_pair - INTERMEDIATE_NODES[0]
    first, second = sources[:, :, pair_nodes, 0], sources[:, :, pair_nodes, 1]
    cell_index, node_number = np.arange(cells)[None, :, None], with_pair[None, None, :]
    vectors[np.arange(n)[:, None, None], pair_position[cell_index, node_number]] = \
        pair_value[cell_index, node_number, first, second]
    return vectors


# --- FBNet --------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _fbnet_tables() -> tuple[np.ndarray, dict[str, int]]:
    """(the layer of each position of ConfigSpace's FBNet vector, each block's index)."""
    from ..spaces.fbnet.blocks import BLOCKS
    from ..spaces.fbnet.configspace import PARAMETER_NAMES, config_space

    order = np.array([PARAMETER_NAMES.index(name) for name in config_space().keys()])
    return order, {block: i for i, block in enumerate(BLOCKS)}


def fbnet_config_vectors(archs: Sequence) -> np.ndarray:
    """``encode(arch, "config_vector")`` of many FBNet architectures, (n, 22) float32."""
    order, block_index = _fbnet_tables()
    layers = len(order)
    names = chain.from_iterable(map(attrgetter("blocks"), archs))  # C-level iteration, no generator step per block
    blocks = np.fromiter(map(block_index.__getitem__, names), dtype=np.int64,
                         count=len(archs) * layers).reshape(len(archs), layers)
    return blocks[:, order].astype(np.float32)
