"""The FBNet search space as one object (the ``SearchSpace`` protocol of the design).

The space is the full product of 9 blocks in 22 layers, so sampling and mutation need no
rejection, and every architecture is its own identity. Each stochastic operation takes an
explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import configspace
from .arch import FBNetArch
from .blocks import BLOCKS, NUM_LAYERS, SIZE
from .encodings import ENCODINGS, GRAPH_SIZE, encode


def sample(rng: np.random.Generator) -> FBNetArch:
    """Uniform over the 9^22 architectures: each layer's block uniform and independent."""
    return FBNetArch.from_indices(rng.integers(0, len(BLOCKS), size=NUM_LAYERS).tolist())


def mutate(arch: FBNetArch, rng: np.random.Generator) -> FBNetArch:
    """One layer, chosen uniformly, gets a different block, chosen uniformly among the other 8."""
    layer = int(rng.integers(NUM_LAYERS))
    others = [block for block in BLOCKS if block != arch.blocks[layer]]
    return FBNetArch(arch.blocks[:layer] + (others[int(rng.integers(len(others)))],) + arch.blocks[layer + 1 :])


def neighbours(arch: FBNetArch) -> list[FBNetArch]:
    """The 22 x 8 = 176 architectures that differ in exactly one layer, by layer and then block order."""
    return [FBNetArch(arch.blocks[:layer] + (block,) + arch.blocks[layer + 1 :])
            for layer in range(NUM_LAYERS) for block in BLOCKS if block != arch.blocks[layer]]


class FBNetSpace:
    """Sampling, mutation, neighbourhoods, text form, encodings and the ConfigSpace of FBNet."""

    name = "fbnet"
    size = SIZE
    encodings = ENCODINGS
    config_encodings = configspace.CONFIG_ENCODINGS
    graph_size = GRAPH_SIZE

    def violation(self, arch: FBNetArch) -> str | None:
        """Every :class:`FBNetArch` is in the space (its constructor checks it)."""
        return None if isinstance(arch, FBNetArch) else f"not a FBNet FBNetArch but {type(arch).__name__}"

    def contains(self, arch: FBNetArch) -> bool:
        return self.violation(arch) is None

    def sample(self, rng: np.random.Generator) -> FBNetArch:
        return sample(rng)

    def mutate(self, arch: FBNetArch, rng: np.random.Generator, rate: float = 1.0) -> FBNetArch:
        """:func:`mutate`; ``rate`` belongs to the optimizers' interface and is not used, as
        an FBNet mutation is always one change."""
        return mutate(arch, rng)

    def neighbours(self, arch: FBNetArch) -> list[FBNetArch]:
        return neighbours(arch)

    def identity(self, arch: FBNetArch) -> str:
        """The text form: every assignment of blocks to layers is a different network."""
        return arch.to_text()

    def to_text(self, arch: FBNetArch) -> str:
        return arch.to_text()

    def from_text(self, text: str) -> FBNetArch:
        return FBNetArch.from_text(text)

    def categorical_dims(self) -> tuple[int, ...]:
        return (len(BLOCKS),) * NUM_LAYERS

    def from_categorical(self, values) -> FBNetArch:
        return FBNetArch.from_indices(values)

    def encode(self, arch: FBNetArch, kind: str = "config_vector") -> np.ndarray:
        return encode(arch, kind)

    def config_space(self, encoding: str = "categorical"):
        return configspace.config_space(encoding)

    def from_config(self, values: Mapping, encoding: str = "categorical") -> FBNetArch:
        return configspace.from_config(values, encoding)

    def to_config(self, arch: FBNetArch, encoding: str = "categorical") -> dict[str, str]:
        """The configuration of ``arch`` (the inverse of ``from_config``)."""
        return configspace.to_config(arch, encoding)
