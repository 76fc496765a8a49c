"""A NAS-Bench-Graph space as a ConfigSpace, and its categorical choices.

The choices are the package's own (its NNI search space, ``runnni.py``): the input of computing
nodes 2, 3 and 4 (node 1 always reads the input features) and the operation of each node, as
the parameters ``input_2`` (0-1), ``input_3`` (0-2), ``input_4`` (0-3) and ``op_1`` ... ``op_4``
(the space's operations). Every combination is an architecture; the all-``skip`` ones are
outside the space (no network). ConfigSpace is imported only when a space is built.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence

from ...errors import InvalidArchitectureError
from .arch import GraphArch
from .vocabulary import NUM_NODES

#: Names of the ConfigSpace encodings of the space.
CONFIG_ENCODINGS = ("categorical",)
INPUT_NAMES = tuple(f"input_{node}" for node in range(2, NUM_NODES + 1))
OP_NAMES = tuple(f"op_{node}" for node in range(1, NUM_NODES + 1))


def _check_encoding(encoding: str) -> None:
    if encoding not in CONFIG_ENCODINGS:
        raise ValueError(f"unknown config encoding {encoding!r} for NAS-Bench-Graph; available: "
                         f"{', '.join(CONFIG_ENCODINGS)}")


def categorical_dims(operations: Sequence[str]) -> tuple[int, ...]:
    """The number of choices of each categorical dimension: inputs of nodes 2-4, then operations."""
    return tuple(range(2, NUM_NODES + 1)) + (len(operations),) * NUM_NODES


def from_categorical(values, operations: Sequence[str]) -> GraphArch:
    """The architecture of one index per categorical dimension; a wrong count or an index out of
    range is an :class:`InvalidArchitectureError` naming the dimension."""
    dims = categorical_dims(operations)
    try:
        values = [operator.index(v) for v in values]
    except TypeError:
        raise InvalidArchitectureError(f"categorical values must be whole numbers, got {values!r}") from None
    if len(values) != len(dims):
        raise InvalidArchitectureError(f"expected {len(dims)} categorical values (inputs of nodes 2-4, operations of "
                                       f"nodes 1-4), got {len(values)}")
    for name, value, size in zip(INPUT_NAMES + OP_NAMES, values, dims):
        if not 0 <= value < size:
            raise InvalidArchitectureError(f"{name}: index {value} is outside 0..{size - 1}")
    return GraphArch((0, *values[: NUM_NODES - 1]), tuple(operations[v] for v in values[NUM_NODES - 1:]))


def config_space(name: str, operations: Sequence[str], encoding: str = "categorical"):
    """A new ``ConfigSpace.ConfigurationSpace``: a categorical parameter per choice (see the module)."""
    _check_encoding(encoding)
    import ConfigSpace as cs

    space = cs.ConfigurationSpace(name=name, seed=0)
    space.add([cs.Categorical(input_name, list(range(node))) for node, input_name in enumerate(INPUT_NAMES, start=2)])
    space.add([cs.Categorical(op_name, list(operations)) for op_name in OP_NAMES])
    return space


def to_config(arch: GraphArch, encoding: str = "categorical") -> dict:
    """The configuration of ``arch`` (the inverse of :func:`from_config`)."""
    _check_encoding(encoding)
    return {**dict(zip(INPUT_NAMES, arch.links[1:])), **dict(zip(OP_NAMES, arch.ops))}


def from_config(values: Mapping, encoding: str = "categorical") -> GraphArch:
    """The architecture of a configuration; a missing or unknown parameter is a ``KeyError``
    naming it, a bad value an :class:`InvalidArchitectureError` (from :class:`GraphArch`)."""
    _check_encoding(encoding)
    unknown = sorted(str(name) for name in values if name not in INPUT_NAMES + OP_NAMES)
    if unknown:
        raise KeyError(f"NAS-Bench-Graph configuration: unknown parameter(s) {', '.join(unknown)}; expected "
                       f"{', '.join(INPUT_NAMES + OP_NAMES)}")
    missing = [name for name in INPUT_NAMES + OP_NAMES if name not in values]
    if missing:
        raise KeyError(f"NAS-Bench-Graph configuration: missing parameter(s) {', '.join(missing)}")
    return GraphArch((0, *(values[name] for name in INPUT_NAMES)), tuple(str(values[name]) for name in OP_NAMES))
