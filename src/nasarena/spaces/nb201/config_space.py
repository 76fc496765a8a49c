"""The NB201 cell space as a ``ConfigSpace.ConfigurationSpace``, for SMAC, TPE and other HPO tools.

One encoding, ``categorical``: a parameter ``edge_<from>_<to>`` per edge of the cell (in the
cell string's order) whose value is the op name. Every configuration is a cell of the
benchmark. ConfigSpace is imported only when a configuration space is built.
"""

from __future__ import annotations

from collections.abc import Mapping

from .cell import EDGES, OPS, Cell201

CONFIG_ENCODINGS = ("categorical",)
EDGE_NAMES = tuple(f"edge_{source}_{to}" for to, source in EDGES)


def check_encoding(encoding: str) -> None:
    if encoding not in CONFIG_ENCODINGS:
        raise ValueError(f"unknown NB201 config encoding {encoding!r}; available: {', '.join(CONFIG_ENCODINGS)}")


def build_config_space(encoding: str = "categorical"):
    """A new ``ConfigurationSpace`` of the encoding, seeded with 0 (consumers re-seed it)."""
    check_encoding(encoding)
    try:
        import ConfigSpace as cs
    except ImportError:
        raise ImportError("NB201 configuration spaces need ConfigSpace: pip install ConfigSpace") from None

    space = cs.ConfigurationSpace(name=f"nb201-{encoding}", seed=0)
    space.add(*(cs.Categorical(name, OPS) for name in EDGE_NAMES))
    return space


def decode_config(values: Mapping[str, object], encoding: str = "categorical") -> Cell201:
    """The cell of a configuration; a missing edge is a ``KeyError``, an unknown op a ``ValueError``."""
    check_encoding(encoding)
    ops = []
    for name in EDGE_NAMES:
        try:
            op = values[name]
        except KeyError:
            raise KeyError(f"the NB201 {encoding!r} configuration lacks the parameter {name!r}") from None
        if op not in OPS:
            raise ValueError(f"parameter {name!r} must be one of {', '.join(OPS)}; got {op!r}")
        ops.append(str(op))
    return Cell201(tuple(ops))


def encode_config(cell: Cell201, encoding: str = "categorical") -> dict[str, str]:
    """The configuration of a cell (for warm starts and round-trip checks)."""
    check_encoding(encoding)
    return dict(zip(EDGE_NAMES, cell.ops))
