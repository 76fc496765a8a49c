"""Random search: independent samples from the space's sampler."""

from __future__ import annotations

from .base import Observation, Optimizer, Trial


class RandomSearch(Optimizer):
    name = "rs"
    summary = "random search (the space's sampler; NB101: the original Bernoulli(0.5) encoding)"

    def _ask(self, number: int) -> Trial:
        return Trial(self.space.sample(self.rng))

    def _tell(self, trial: Trial, observation: Observation) -> None:
        pass
