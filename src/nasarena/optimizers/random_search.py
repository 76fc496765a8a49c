"""Random search: independent samples from the space's sampler."""

from __future__ import annotations

from ..spaces.protocol import sample_many
from .base import Observation, Optimizer, Trial

#: Architectures drawn at a time (the space's ``sample_many``: the same ones as one at a time).
BATCH = 64


class RandomSearch(Optimizer):
    name = "rs"
    summary = "random search (the space's sampler; NB101: the original Bernoulli(0.5) encoding)"

    def __init__(self, space, seed=0):
        super().__init__(space, seed)
        self._drawn: list = []  # drawn, not yet asked; the next one last

    def _ask(self, number: int) -> Trial:
        if not self._drawn:
            self._drawn = sample_many(self.space, self.rng, BATCH)[::-1]
        return Trial.from_fields(self._drawn.pop(), None, number)

    def _tell(self, trial: Trial, observation: Observation) -> None:
        pass
