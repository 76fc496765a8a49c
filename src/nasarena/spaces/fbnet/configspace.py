"""The FBNet space as a ConfigSpace: one categorical ``op_<layer>`` per searchable layer.

The configuration *vector* (``encode(arch, "config_vector")``, for tree surrogates) is
ConfigSpace's own: the block index of each parameter, in the ConfigurationSpace's order
(ConfigSpace sorts names, so ``op_0, op_1, op_10, op_11, ..., op_2, ...``). It is computed
directly from that order, and the tests check it against ConfigSpace's. ConfigSpace is
imported only when a space is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from .arch import FBNetArch
from .blocks import BLOCKS, NUM_LAYERS

#: Names of the ConfigSpace encodings of the space.
CONFIG_ENCODINGS = ("categorical",)
PARAMETER_NAMES = tuple(f"op_{layer}" for layer in range(NUM_LAYERS))


def _check_encoding(encoding: str) -> None:
    if encoding not in CONFIG_ENCODINGS:
        raise ValueError(f"unknown config encoding {encoding!r} for FBNet; available: {', '.join(CONFIG_ENCODINGS)}")


def config_space(encoding: str = "categorical"):
    """A new ``ConfigSpace.ConfigurationSpace`` with a categorical parameter per layer."""
    _check_encoding(encoding)
    try:
        import ConfigSpace
    except ImportError:
        raise ImportError("the FBNet ConfigSpace needs ConfigSpace: pip install 'ConfigSpace>=1.0'") from None
    space = ConfigSpace.ConfigurationSpace(name="fbnet")
    space.add([ConfigSpace.Categorical(name, BLOCKS) for name in PARAMETER_NAMES])
    return space


def to_config(arch: FBNetArch, encoding: str = "categorical") -> dict[str, str]:
    """The configuration of ``arch``: ``op_<layer>`` -> block name."""
    _check_encoding(encoding)
    return dict(zip(PARAMETER_NAMES, arch.blocks))


def from_config(values: Mapping, encoding: str = "categorical") -> FBNetArch:
    """The architecture of a configuration; a missing or unknown parameter is a KeyError."""
    _check_encoding(encoding)
    unknown = sorted(str(name) for name in values if name not in PARAMETER_NAMES)
    if unknown:
        raise KeyError(f"FBNet configuration: unknown parameter(s) {', '.join(unknown)}; "
                       f"expected op_0..op_{NUM_LAYERS - 1}")
    missing = [name for name in PARAMETER_NAMES if name not in values]
    if missing:
        raise KeyError(f"FBNet configuration: missing parameter(s) {', '.join(missing)}")
    return FBNetArch(tuple(str(values[name]) for name in PARAMETER_NAMES))


@lru_cache(maxsize=None)
def _layers_in_vector_order() -> np.ndarray:
    """For each position of ConfigSpace's vector, the layer of its parameter."""
    return np.array([PARAMETER_NAMES.index(name) for name in config_space().keys()])


def config_vector(arch: FBNetArch) -> np.ndarray:
    """ConfigSpace's vector of ``arch``'s configuration (float32[22])."""
    return np.array(arch.block_indices, dtype=np.float32)[_layers_in_vector_order()]
