"""Ask/tell NAS optimizers (see ``base``); ``make(name, space, seed=..., **settings)``."""

from .base import Observation, Optimizer, Trial, available, make

__all__ = ["Observation", "Optimizer", "Trial", "available", "make"]
