"""The DARTS space as a ConfigSpace, exactly as NB301 represents it.

NB301's ``configspace.json`` (its architecture part, without the ``NetworkSelectorDatasetInfo:
darts:`` prefix and the fixed training settings):

- ``inputs_node_<cell>_<node>`` for nodes 3, 4, 5: the node's input pair, choices ``"0_1"``,
  ``"0_2"``, ... (node 2's inputs are always 0 and 1, so it has no such parameter);
- ``edge_<cell>_<k>`` for the 14 edge slots ``k`` of :data:`~.structure.EDGE_SLOTS`: the op of
  the edge, over ``OPS``. Slots 0 and 1 (node 2) are always active; the slot of (node, input)
  is active exactly when ``inputs_node_<cell>_<node>`` is a pair containing that input, so
  every configuration has 8 active edges per cell.

The configuration *vector* (``encode(arch, "config_vector")``, for tree surrogates) is
ConfigSpace's own: one value per parameter in the ConfigurationSpace's order, the index of
the chosen value, with NB301's imputation of -1 for inactive edges (ConfigSpace writes NaN).
It is computed here directly (building a ``Configuration`` per architecture is slow) from
the order and choices of the built space, and the tests check it against ConfigSpace's.

ConfigSpace is imported only when a space is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from .genotype import DartsArch, canonical_cell
from .structure import (
    CELL_TYPES,
    EDGE_SLOTS,
    EDGES_PER_NODE,
    INTERMEDIATE_NODES,
    OPS,
    PARENT_PAIRS,
    SLOT_INDEX,
    pair_name,
)

#: Names of the ConfigSpace encodings of the space.
CONFIG_ENCODINGS = ("categorical",)
INACTIVE = -1.0


def inputs_parameter(cell_type: str, node: int) -> str:
    """Name of the input-pair parameter of a node, e.g. ``inputs_node_normal_3``."""
    return f"inputs_node_{cell_type}_{node}"


def edge_parameter(cell_type: str, slot: int) -> str:
    """Name of the op parameter of an edge slot, e.g. ``edge_normal_0``."""
    return f"edge_{cell_type}_{slot}"


_PAIR_NODES = INTERMEDIATE_NODES[1:]
_PAIRS_BY_NAME = {node: {pair_name(pair): pair for pair in PARENT_PAIRS[node]} for node in _PAIR_NODES}
PARAMETER_NAMES = frozenset([inputs_parameter(c, n) for c in CELL_TYPES for n in _PAIR_NODES]
                            + [edge_parameter(c, k) for c in CELL_TYPES for k in range(len(EDGE_SLOTS))])


def _check_encoding(encoding: str) -> None:
    if encoding not in CONFIG_ENCODINGS:
        raise ValueError(f"unknown config encoding {encoding!r} for DARTS; available: {', '.join(CONFIG_ENCODINGS)}")


def _configspace():
    try:
        import ConfigSpace
    except ImportError:
        raise ImportError("the DARTS ConfigSpace needs ConfigSpace: pip install 'ConfigSpace>=1.0'") from None
    return ConfigSpace


def config_space(encoding: str = "categorical"):
    """A new ``ConfigSpace.ConfigurationSpace`` of the architecture parameters (see the module)."""
    _check_encoding(encoding)
    cs = _configspace()
    space = cs.ConfigurationSpace(name="darts")
    conditions = []
    for cell_type in CELL_TYPES:
        edges = [cs.Categorical(edge_parameter(cell_type, k), OPS) for k in range(len(EDGE_SLOTS))]
        space.add(edges)
        for node in _PAIR_NODES:
            names = list(_PAIRS_BY_NAME[node])
            pairs = cs.Categorical(inputs_parameter(cell_type, node), names)
            space.add(pairs)
            for source in range(node):
                using = [name for name, pair in _PAIRS_BY_NAME[node].items() if source in pair]
                conditions.append(cs.InCondition(edges[SLOT_INDEX[node, source]], pairs, using))
    space.add(conditions)
    return space


def to_config(arch: DartsArch, encoding: str = "categorical") -> dict[str, str]:
    """The values of the active parameters of ``arch``'s configuration."""
    _check_encoding(encoding)
    values = {}
    for cell_type in CELL_TYPES:
        edges = canonical_cell(arch.cell(cell_type))
        for start, node in zip(range(0, len(edges), EDGES_PER_NODE), INTERMEDIATE_NODES):
            pair = edges[start : start + EDGES_PER_NODE]
            if node in _PAIRS_BY_NAME:
                values[inputs_parameter(cell_type, node)] = pair_name(tuple(source for _, source in pair))
            for op, source in pair:
                values[edge_parameter(cell_type, SLOT_INDEX[node, source])] = op
    return values


def _value(values: Mapping, name: str, reason: str) -> str:
    if name not in values:
        raise KeyError(f"DARTS configuration: parameter {name!r} is missing ({reason})")
    return str(values[name])


def from_config(values: Mapping, encoding: str = "categorical") -> DartsArch:
    """The architecture of a configuration (a ``Configuration`` or a mapping of its values).

    Only active parameters are read: a value for an inactive edge is ignored, so a full
    assignment of all 34 parameters decodes as well. An unknown or missing parameter is a
    KeyError, an impossible value a ValueError; both name the parameter.
    """
    _check_encoding(encoding)
    unknown = sorted(str(name) for name in values if name not in PARAMETER_NAMES)
    if unknown:
        raise KeyError(f"DARTS configuration: unknown parameter(s) {', '.join(unknown)}; expected "
                       "inputs_node_<normal|reduce>_<3..5> and edge_<normal|reduce>_<0..13>")
    cells = {}
    for cell_type in CELL_TYPES:
        edges = []
        for node in INTERMEDIATE_NODES:
            pair = (0, 1)
            if node in _PAIRS_BY_NAME:
                name = inputs_parameter(cell_type, node)
                chosen = _value(values, name, f"the input pair of node {node}")
                if chosen not in _PAIRS_BY_NAME[node]:
                    raise ValueError(f"DARTS configuration: {name} = {chosen!r} is not a pair of earlier nodes; "
                                     f"expected one of {', '.join(_PAIRS_BY_NAME[node])}")
                pair = _PAIRS_BY_NAME[node][chosen]
            for source in pair:
                name = edge_parameter(cell_type, SLOT_INDEX[node, source])
                op = _value(values, name, f"active: node {node} uses input {source}")
                if op not in OPS:
                    raise ValueError(f"DARTS configuration: {name} = {op!r} is not an op; "
                                     f"expected one of {', '.join(OPS)}")
                edges.append((op, source))
        cells[cell_type] = edges
    return DartsArch(**cells)


@lru_cache(maxsize=None)
def _vector_layout() -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """(position of each parameter in the vector, index of each of its choices), from ConfigSpace."""
    space = config_space()
    positions = {name: i for i, name in enumerate(space.keys())}
    choices = {name: {str(choice): j for j, choice in enumerate(space[name].choices)} for name in positions}
    return positions, choices


def config_vector(arch: DartsArch) -> np.ndarray:
    """ConfigSpace's vector of ``arch``'s configuration, inactive edges -1 (float32[34])."""
    positions, choices = _vector_layout()
    vector = np.full(len(positions), INACTIVE, dtype=np.float32)
    for name, value in to_config(arch).items():
        vector[positions[name]] = choices[name][value]
    return vector
