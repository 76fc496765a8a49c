"""The 34 integer inputs (``x_cat``) of YAHPO Gym's nb301 model, from DARTS architectures.

The model (:mod:`.nb301_yahpo`) embeds each of NB301's 34 categorical architecture parameters
(:mod:`nasarena.spaces.darts.configspace` names them without NB301's prefix): its column order is
YAHPO Gym's ``cat_names`` of the nb301 scenario, ``edge_normal_0`` .. ``edge_normal_13``,
``edge_reduce_0`` .. ``edge_reduce_13`` (slots in numeric order, not the alphabetical order of
the encoding file's keys), then ``inputs_node_normal_3/4/5`` and ``inputs_node_reduce_3/4/5``.
Each value is the level's integer code in YAHPO's ``encoding_v2.json``; an inactive edge (one
whose input its node does not use) is the level ``#na#``. The ONNX model's embedding sizes (8
per edge, 4, 7, 11 per node's input pair: 7 ops, or 3, 6, 10 pairs, plus ``#na#``) agree with
this order, and a wrong edge order would feed the op of one edge to the embedding of another.

Encoding reads the written genotype directly: the slot of a pair ``(op, input)`` of node ``n``
is fixed by ``(n, input)`` whatever the order its node's two pairs are written in, so no
canonical form is built (the tests hold the result to the configuration of ``to_config``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import DataFileError
from ..spaces.darts.configspace import edge_parameter, inputs_parameter
from ..spaces.darts.genotype import DartsArch
from ..spaces.darts.structure import (
    CELL_TYPES,
    EDGE_SLOTS,
    EDGES_PER_CELL,
    EDGES_PER_NODE,
    INTERMEDIATE_NODES,
    OPS,
    PARENT_PAIRS,
    pair_name,
)

#: NB301's prefix of every architecture parameter in YAHPO's files.
PREFIX = "NetworkSelectorDatasetInfo_COLON_darts_COLON_"
#: The level of an inactive parameter in YAHPO's encoding.
NOT_ACTIVE = "#na#"
#: The nodes with an input-pair parameter (node 2 always reads nodes 0 and 1).
PAIR_NODES = INTERMEDIATE_NODES[1:]
#: The model's 34 categorical columns in YAHPO's order (names without the prefix).
COLUMNS: tuple[str, ...] = (
    *(edge_parameter(cell, slot) for cell in CELL_TYPES for slot in range(len(EDGE_SLOTS))),
    *(inputs_parameter(cell, node) for cell in CELL_TYPES for node in PAIR_NODES),
)
_FIRST_PAIR_COLUMN = len(CELL_TYPES) * len(EDGE_SLOTS)
#: The first slot of each intermediate node: slot (node, input) is _FIRST_SLOT[node] + input.
_FIRST_SLOT = {node: min(k for k, (n, _) in enumerate(EDGE_SLOTS) if n == node) for node in INTERMEDIATE_NODES}
_OP_INDEX = {op: i for i, op in enumerate(OPS)}
#: Per written position of a cell (0-7): the first slot of its node.
_POSITION_FIRST_SLOT = np.array([_FIRST_SLOT[INTERMEDIATE_NODES[p // EDGES_PER_NODE]] for p in range(EDGES_PER_CELL)])


@dataclass(frozen=True)
class ModelEncoding:
    """YAHPO's integer codes, as look-up arrays.

    ``inactive[c]``: the code of ``#na#`` in column ``c``; ``edges[cell, slot, op]``: the code of
    ``OPS[op]`` in column ``edge_<cell>_<slot>``; ``pairs[node][cell, low, high]``: the code of the
    pair ``low_high`` in column ``inputs_node_<cell>_<node>`` (-1 where no pair).
    """

    inactive: np.ndarray
    edges: np.ndarray
    pairs: Mapping[int, np.ndarray]

    @classmethod
    def from_levels(cls, codes: Mapping[str, Mapping[str, int]], origin: str) -> ModelEncoding:
        """The codes of YAHPO's encoding file (``{prefixed parameter: {level: code}}``); a parameter
        or level the model needs and the file lacks is a :class:`DataFileError`."""

        def column(name: str) -> Mapping[str, int]:
            levels = codes.get(PREFIX + name)
            if not isinstance(levels, Mapping):
                raise DataFileError(f"{origin}: no codes for the model input {PREFIX + name}")
            return levels

        def code(name: str, level: str) -> int:
            value = column(name).get(level)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise DataFileError(f"{origin}: {PREFIX + name} has no integer code for level {level!r}")
            return value

        inactive = np.array([code(name, NOT_ACTIVE) for name in COLUMNS], dtype=np.int32)
        edges = np.array([[[code(edge_parameter(cell, slot), op) for op in OPS] for slot in range(len(EDGE_SLOTS))]
                          for cell in CELL_TYPES], dtype=np.int32)
        pairs = {}
        for node in PAIR_NODES:
            table = np.full((len(CELL_TYPES), node, node), -1, dtype=np.int32)
            for c, cell in enumerate(CELL_TYPES):
                for low, high in PARENT_PAIRS[node]:
                    table[c, low, high] = code(inputs_parameter(cell, node), pair_name((low, high)))
            pairs[node] = table
        return cls(inactive, edges, pairs)

    def encode(self, archs: Sequence[DartsArch]) -> np.ndarray:
        """int32 (architectures, 34): the model's ``x_cat`` of each architecture."""
        n = len(archs)
        written = np.array([(_OP_INDEX[op], source) for arch in archs for cell in (arch.normal, arch.reduce)
                            for op, source in cell], dtype=np.int64).reshape(n, len(CELL_TYPES), EDGES_PER_CELL, 2)
        ops, sources = written[..., 0], written[..., 1]
        slots = _POSITION_FIRST_SLOT + sources  # (n, cells, 8): each written pair's slot
        cells = np.arange(len(CELL_TYPES))[None, :, None]
        x = np.tile(self.inactive, (n, 1))
        x[np.arange(n)[:, None, None], cells * len(EDGE_SLOTS) + slots] = self.edges[cells, slots, ops]
        for i, node in enumerate(PAIR_NODES):
            first, second = sources[..., EDGES_PER_NODE * (i + 1)], sources[..., EDGES_PER_NODE * (i + 1) + 1]
            columns = _FIRST_PAIR_COLUMN + np.arange(len(CELL_TYPES)) * len(PAIR_NODES) + i
            x[:, columns] = self.pairs[node][np.arange(len(CELL_TYPES)), np.minimum(first, second),
                                             np.maximum(first, second)]
        return x
