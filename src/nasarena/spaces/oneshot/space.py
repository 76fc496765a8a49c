"""A NAS-Bench-1Shot1 space as one object (the ``SearchSpace`` protocol of the design).

So that every discrete optimizer (random search, evolution, local search, BANANAS, SMAC, TPE,
...) and the runner work on the one-shot spaces through any NB101 table. How the paper
counts the architectures, and why its space-2 number differs, is written in
:mod:`.enumeration`: ``size`` is the authors' count with loose ends, ``count()`` and
``enumerate()`` give the other three sets.

The space is the free product of its choices (see :mod:`.choices`), so ``sample`` draws each
choice uniformly and independently (as the authors' sampler with loose ends does) and needs no
rejection. An architecture's identity is its NB101 module hash: architectures that differ only
in loose ends are one network, so the runner's cache and the optimizers' de-duplication treat
them as one, as NB101 treats isomorphic cells. Neighbours and mutations therefore change the
network: they are the one-choice changes whose cell differs from the parent's.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...errors import InvalidArchitectureError
from ..encoders import pick_encoder
from ..nb101 import encodings as nb101_encodings
from . import choices as choice_encoding
from .arch import OneShotArch
from .definitions import OneShotSpace, oneshot_space
from .enumeration import ArchitectureSet, architectures, count


def _cell_encoder(encode):
    return lambda space, arch: encode(arch.to_cell())


_ENCODERS = {
    "adjacency_one_hot": _cell_encoder(nb101_encodings.adjacency_one_hot),
    "path": _cell_encoder(nb101_encodings.path_encoding),
    "graph": _cell_encoder(nb101_encodings.graph),
    "one_hot": choice_encoding.one_hot,
    "choices": lambda space, arch: np.array(choice_encoding.to_categorical(space, arch), dtype=np.float32),
}
#: ``adjacency_one_hot``, ``path``, ``graph``: of the NB101 cell (equal for equal cells);
#: ``one_hot``, ``choices``: of the space's own choices (loose ends included).
ENCODINGS = tuple(_ENCODERS)


class OneShotSearchSpace:
    """Sampling, mutation, neighbourhoods, text form, encodings, ConfigSpace and enumeration."""

    encodings = ENCODINGS
    config_encodings = choice_encoding.CONFIG_ENCODINGS
    graph_size = nb101_encodings.GRAPH_SIZE  # (nodes, features) of the "graph" encoding
    supernet_truth = "nasarena.cli.supernet:oneshot_truth"

    def __init__(self, space: str | OneShotSpace):
        self.definition = oneshot_space(space)
        self.name = self.definition.name
        self.size = count(self.definition)

    def __repr__(self) -> str:
        return f"<OneShotSearchSpace {self.name}: {self.size:,} architectures with loose ends>"

    # --- membership and text ------------------------------------------------------------
    def violation(self, arch) -> str | None:
        """Why ``arch`` is not an architecture of this space, or None if it is one."""
        if not isinstance(arch, OneShotArch):
            return f"a {self.name} architecture is a OneShotArch (or its text), got {type(arch).__name__}"
        if arch.space != self.name:
            return f"the architecture belongs to {arch.space}, not to {self.name}"
        return None

    def contains(self, arch) -> bool:
        return self.violation(arch) is None

    def check(self, arch) -> OneShotArch:
        """``arch`` (a OneShotArch or its text) as an architecture of this space; InvalidArchitectureError otherwise."""
        if isinstance(arch, str):
            arch = OneShotArch.from_string(arch)
        reason = self.violation(arch)
        if reason is not None:
            raise InvalidArchitectureError(reason)
        return arch

    def identity(self, arch: OneShotArch) -> str:
        """The NB101 module hash of the architecture's cell (loose ends do not change it)."""
        module_hash = self.check(arch).to_cell().hash
        assert module_hash is not None  # every architecture of the space is a valid NB101 cell
        return module_hash

    def to_text(self, arch: OneShotArch) -> str:
        return self.check(arch).to_string()

    def from_text(self, text: str) -> OneShotArch:
        return self.check(text)

    # --- search operations ---------------------------------------------------------------
    def sample(self, rng: np.random.Generator) -> OneShotArch:
        """Each choice uniform and independent: uniform over the complete set with loose ends."""
        return self.from_categorical([int(rng.integers(d)) for d in self.categorical_dims()])

    def neighbours(self, arch: OneShotArch) -> list[OneShotArch]:
        """The one-choice changes of ``arch``, one per NB101 cell other than its own, in choice order."""
        values = list(choice_encoding.to_categorical(self.definition, self.check(arch)))
        seen = {arch.to_cell().row}
        result = []
        for position, size in enumerate(self.categorical_dims()):
            for option in range(size):
                if option == values[position]:
                    continue
                child = self.from_categorical(values[:position] + [option] + values[position + 1 :])
                row = child.to_cell().row
                if row not in seen:
                    seen.add(row)
                    result.append(child)
        return result

    def mutate(self, arch: OneShotArch, rng: np.random.Generator, rate: float = 1.0) -> OneShotArch:
        """One choice, chosen uniformly, gets another option, chosen uniformly, redrawn until the
        network changes (a child among :meth:`neighbours`). It always ends: changing the op of a
        block that reaches the output changes the cell's ops. ``rate`` belongs to the optimizers'
        interface and is not used, as a mutation here is always one change."""
        values = list(choice_encoding.to_categorical(self.definition, self.check(arch)))
        dims = self.categorical_dims()
        row = arch.to_cell().row
        while True:
            position = int(rng.integers(len(dims)))
            option = int(rng.integers(dims[position] - 1))
            option += option >= values[position]  # skip the current option
            child = self.from_categorical(values[:position] + [option] + values[position + 1 :])
            if child.to_cell().row != row:
                return child

    # --- encodings -------------------------------------------------------------------------
    def encode(self, arch: OneShotArch, kind: str = "adjacency_one_hot") -> np.ndarray:
        return pick_encoder(_ENCODERS, kind, self.name)(self.definition, self.check(arch))

    def categorical_dims(self) -> tuple[int, ...]:
        """The number of options of each choice (see :mod:`.choices`)."""
        return tuple(len(choice.options) for choice in choice_encoding.choices(self.definition))

    def from_categorical(self, values) -> OneShotArch:
        return choice_encoding.from_categorical(self.definition, values)

    def config_space(self, encoding: str = "categorical"):
        """The space as a new ``ConfigSpace.ConfigurationSpace`` (one categorical parameter per choice)."""
        return choice_encoding.config_space(self.definition, encoding)

    def from_config(self, values: Mapping, encoding: str = "categorical") -> OneShotArch:
        return choice_encoding.from_config(self.definition, values, encoding)

    def to_config(self, arch: OneShotArch, encoding: str = "categorical") -> dict[str, str]:
        """The configuration of ``arch`` (the inverse of ``from_config``)."""
        return choice_encoding.to_config(self.definition, self.check(arch), encoding)

    # --- the finite space ----------------------------------------------------------------
    def count(self, loose_ends: bool = True, complete: bool = False) -> int:
        """The size of one of the four sets of :mod:`.enumeration` (default: the paper's with loose ends)."""
        return count(self.definition, loose_ends, complete)

    def enumerate(self, loose_ends: bool = True, complete: bool = False) -> ArchitectureSet:
        """One of the four sets of :mod:`.enumeration` as a sequence of architectures."""
        return architectures(self.definition, loose_ends, complete)

    def rows(self, loose_ends: bool = True, complete: bool = False) -> np.ndarray:
        """The NB101 unique-cell row of every architecture of ``enumerate(loose_ends, complete)``."""
        return self.enumerate(loose_ends, complete).nb101_rows()


def search_space(name: str | OneShotSpace) -> OneShotSearchSpace:
    """The space called ``name`` (``nb1shot1-1``, ``-2``, ``-3``); UnknownNameError otherwise."""
    return OneShotSearchSpace(name)
