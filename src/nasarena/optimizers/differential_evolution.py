"""Differential evolution, rand/1/bin (Storn & Price 1997), on the [0, 1] vector of the
space's categorical encoding; a value x of a dimension with k choices decodes to floor(x * k).

Generation-based with asynchronous tells: the initial population is drawn uniformly; then for
each target i in turn a mutant a + F (b - c) is formed from three other distinct members,
crossed with the target (each coordinate from the mutant with probability CR, one forced),
clipped to [0, 1], and replaces the target when its accuracy is at least the target's.
Invalid architectures score 0, the original benchmarking convention.
"""

from __future__ import annotations

import numpy as np

from .base import Observation, Optimizer, Trial, register


@register("de", "differential evolution rand/1/bin on the [0,1] encoding (population 20, F 0.5, CR 0.5)")
class DifferentialEvolution(Optimizer):
    def __init__(self, space, seed=0, population_size: int = 20, mutation_factor: float = 0.5,
                 crossover_rate: float = 0.5):
        super().__init__(space, seed)
        if population_size < 4:
            raise ValueError(f"rand/1 needs a population of at least 4, got {population_size}")
        self.population_size = population_size
        self.mutation_factor = mutation_factor
        self.crossover_rate = crossover_rate
        self.dims = np.array(space.categorical_dims())
        self.vectors = np.empty((0, len(self.dims)))
        self.scores = np.empty(0)
        self._next_target = 0
        self._pending: dict[int, tuple[int | None, np.ndarray]] = {}

    def settings(self) -> dict:
        return {"population_size": self.population_size, "mutation_factor": self.mutation_factor,
                "crossover_rate": self.crossover_rate}

    def decode(self, vector: np.ndarray):
        return self.space.from_categorical(np.minimum((vector * self.dims).astype(int), self.dims - 1))

    def ask(self) -> Trial:
        if len(self.vectors) + sum(t is None for t, _ in self._pending.values()) < self.population_size:
            target, vector = None, self.rng.random(len(self.dims))
        else:
            target, vector = self._next_target, self._trial_vector(self._next_target)
            self._next_target = (self._next_target + 1) % len(self.vectors)
        trial = Trial(self.decode(vector))
        self._pending[id(trial)] = (target, vector)
        return trial

    def _trial_vector(self, target: int) -> np.ndarray:
        others = [i for i in range(len(self.vectors)) if i != target]
        a, b, c = self.vectors[self.rng.choice(others, size=3, replace=False)]
        mutant = np.clip(a + self.mutation_factor * (b - c), 0.0, 1.0)
        take = self.rng.random(len(self.dims)) < self.crossover_rate
        take[self.rng.integers(len(self.dims))] = True
        return np.where(take, mutant, self.vectors[target])

    def tell(self, trial: Trial, observation: Observation) -> None:
        target, vector = self._pending.pop(id(trial))
        score = observation.valid_accuracy if observation.valid else 0.0
        if target is None:
            self.vectors = np.vstack([self.vectors, vector])
            self.scores = np.append(self.scores, score)
        elif score >= self.scores[target]:
            self.vectors[target], self.scores[target] = vector, score
