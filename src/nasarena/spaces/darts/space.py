"""The DARTS search space as one object (the ``SearchSpace`` protocol of the design).

The space of DARTS (Liu et al. 2019) as NB301 (Siems et al.) benchmarks it: a normal and a
reduction cell, each with four intermediate nodes summing two ops on two different earlier
nodes, ops among 7. It has :data:`~.structure.SIZE` architectures (about 1.08e18, the NB301
paper's "10^18"), counted as its ConfigSpace counts them (see :func:`~.structure.cell_size`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from . import configspace, operations, text
from .categorical import CATEGORICAL_DIMS, from_categorical
from .encodings import ENCODINGS, GRAPH_SIZE, encode
from .genotype import DartsArch
from .structure import SIZE


class DartsSpace:
    """Sampling, mutation, neighbourhoods, text form, encodings and the ConfigSpace of DARTS."""

    name = "darts"
    size = SIZE
    encodings = ENCODINGS
    config_encodings = configspace.CONFIG_ENCODINGS
    graph_size = GRAPH_SIZE
    # Optional capabilities (see :mod:`..protocol`): the training network, named, not imported.
    architecture = DartsArch
    network = "nasarena.training.networks.darts:DartsNetwork"
    network_scale = MappingProxyType({"channels": 36, "layers": 20, "auxiliary": True, "num_classes": 10})
    network_minimums = MappingProxyType({"layers": (3, "two of them are reduction cells")})

    def violation(self, arch: DartsArch) -> str | None:
        """Every :class:`DartsArch` is in the space (its constructor checks it)."""
        return None if isinstance(arch, DartsArch) else f"not a DARTS DartsArch but {type(arch).__name__}"

    def contains(self, arch: DartsArch) -> bool:
        return self.violation(arch) is None

    def sample(self, rng: np.random.Generator) -> DartsArch:
        return operations.sample(rng)

    def mutate(self, arch: DartsArch, rng: np.random.Generator, rate: float = 1.0) -> DartsArch:
        """:func:`.operations.mutate`; ``rate`` belongs to the optimizers' interface and is not
        used, as a DARTS mutation is always one change (NB301's and BANANAS' one edit)."""
        return operations.mutate(arch, rng)

    def neighbours(self, arch: DartsArch) -> list[DartsArch]:
        return operations.neighbours(arch)

    def identity(self, arch: DartsArch) -> str:
        """The genotype text of the canonical form: one string however the nodes' pairs are written."""
        return text.to_text(arch.canonical())

    def to_text(self, arch: DartsArch) -> str:
        """The DARTS genotype text, pairs in their written order."""
        return text.to_text(arch)

    def from_text(self, genotype: str) -> DartsArch:
        return text.from_text(genotype)

    def categorical_dims(self) -> tuple[int, ...]:
        """Per cell: per node its input-pair choice (nodes 3-5) and its two ops (see :mod:`.categorical`)."""
        return CATEGORICAL_DIMS

    def from_categorical(self, values) -> DartsArch:
        return from_categorical(values)

    def encode(self, arch: DartsArch, kind: str = "config_vector") -> np.ndarray:
        return encode(arch, kind)

    def config_space(self, encoding: str = "categorical"):
        """NB301's ConfigurationSpace of the architecture (see :mod:`.configspace`)."""
        return configspace.config_space(encoding)

    def from_config(self, values: Mapping, encoding: str = "categorical") -> DartsArch:
        return configspace.from_config(values, encoding)

    def to_config(self, arch: DartsArch, encoding: str = "categorical") -> dict[str, str]:
        """The active parameter values of ``arch``'s configuration (the inverse of ``from_config``)."""
        return configspace.to_config(arch, encoding)
