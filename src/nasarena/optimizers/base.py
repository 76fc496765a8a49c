"""The ask/tell optimizer interface and the optimizer registry.

Optimizers know nothing about the loop that drives them (like Optuna's samplers): ``ask``
proposes a trial, ``tell`` reports what training it produced. What they are told is an
:class:`Observation` — validation accuracy and cost only; test accuracy never reaches them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Trial:
    """An architecture to evaluate at a fidelity (None: the benchmark's highest)."""

    arch: object
    fidelity: int | None = None


@dataclass(frozen=True)
class Observation:
    """What an optimizer may learn from an evaluation.

    ``valid`` is False for an architecture outside the space; it then has accuracy 0 and
    cost 0 and does not count towards the budget, as in the original protocol.
    """

    valid_accuracy: float
    cost_seconds: float
    valid: bool = True


class Optimizer(ABC):
    """An ask/tell NAS optimizer over a search space, seeded explicitly."""

    name: str = "optimizer"

    def __init__(self, space, seed: int | np.random.Generator = 0):
        self.space = space
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    @abstractmethod
    def ask(self) -> Trial:
        """The next trial to evaluate."""

    @abstractmethod
    def tell(self, trial: Trial, observation: Observation) -> None:
        """Report the outcome of an earlier ``ask``."""

    def settings(self) -> dict:
        """The optimizer's settings (recorded with every trajectory)."""
        return {}


@dataclass(frozen=True)
class OptimizerEntry:
    name: str
    summary: str
    factory: Callable[..., Optimizer]


REGISTRY: dict[str, OptimizerEntry] = {}


def register(name: str, summary: str):
    """Class decorator adding an optimizer to the registry under ``name``."""

    def decorate(cls):
        cls.name = name
        REGISTRY[name] = OptimizerEntry(name, summary, cls)
        return cls

    return decorate


def make(name: str, space, seed: int | np.random.Generator = 0, **settings) -> Optimizer:
    """An optimizer by registry name, with the papers' defaults unless ``settings`` override them."""
    from . import catalogue  # noqa: F401  (registers the built-in optimizers)

    try:
        entry = REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown optimizer {name!r}; available: {', '.join(sorted(REGISTRY))}") from None
    try:
        return entry.factory(space, seed=seed, **settings)
    except TypeError as error:
        raise TypeError(f"bad settings for optimizer {name!r}: {error}") from None


def available() -> list[OptimizerEntry]:
    from . import catalogue  # noqa: F401

    return [REGISTRY[name] for name in sorted(REGISTRY)]
