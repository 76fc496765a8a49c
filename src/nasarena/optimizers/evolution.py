"""Regularized evolution (Real et al. 2019) and its non-regularized variant.

A population of the most recent ``population_size`` evaluated architectures; each new child
is a mutation of the best of ``tournament_size`` members sampled uniformly (with replacement,
as the original code). Regularized evolution removes the *oldest* member when the population
is full; the non-regularized variant removes the *worst*.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .base import Observation, Optimizer, Trial, register


class _Evolution(Optimizer):
    regularized = True

    def __init__(self, space, seed=0, population_size: int = 100, tournament_size: int = 10,
                 mutation_rate: float = 1.0):
        super().__init__(space, seed)
        if not 1 <= tournament_size <= population_size:
            raise ValueError(f"tournament_size must be in 1..population_size, got {tournament_size}")
        self.population_size = population_size
        self.tournament_size = tournament_size
        self.mutation_rate = mutation_rate
        self.population: deque[tuple[object, float]] = deque()
        self._asked = 0

    def settings(self) -> dict:
        return {"population_size": self.population_size, "tournament_size": self.tournament_size,
                "mutation_rate": self.mutation_rate}

    def ask(self) -> Trial:
        self._asked += 1
        if self._asked <= self.population_size or len(self.population) == 0:
            return Trial(self.space.sample(self.rng))
        size = len(self.population)
        picks = (self.rng.random(self.tournament_size) * size).astype(np.int64).tolist()  # uniform, with replacement
        parent = max((self.population[i] for i in picks), key=lambda member: member[1])[0]
        return Trial(self.space.mutate(parent, self.rng, self.mutation_rate))

    def tell(self, trial: Trial, observation: Observation) -> None:
        if not observation.valid:
            return
        self.population.append((trial.arch, observation.valid_accuracy))
        if len(self.population) > self.population_size:
            if self.regularized:
                self.population.popleft()
            else:
                worst = min(range(len(self.population)), key=lambda i: self.population[i][1])
                del self.population[worst]


@register("re", "regularized evolution (population 100, tournament 10, NB101 mutation; removes the oldest)")
class RegularizedEvolution(_Evolution):
    regularized = True


@register("nre", "non-regularized evolution (as RE but removes the worst member)")
class NonRegularizedEvolution(_Evolution):
    regularized = False
