"""Differential evolution, rand/1/bin (Storn & Price 1997), on the [0, 1] vector of the space's
categorical encoding.

A coordinate x of a dimension with k choices decodes to choice floor(x * k) (k - 1 for x = 1):
rounding to k equal-width bins, so a uniform vector gives uniform choices, which rounding
x * (k - 1) to the nearest integer would not (the end choices would get half-width bins).

The initial population of ``population_size`` vectors is drawn uniformly. Then the targets
are taken in turn: for target i, a mutant a + F (b - c) is formed from three distinct members
other than i, chosen uniformly; the trial takes each coordinate from the mutant with
probability CR (one coordinate, chosen uniformly, always), the others from the target, and is
clipped to [0, 1]. The trial replaces the target when its accuracy is at least the target's,
Storn and Price's greedy selection. Selection happens as each result arrives and later trials
use the updated population (asynchronous DE), so parallel workers never wait for a generation
to finish. Invalid architectures score 0, the original benchmarking convention.

While fewer than four members have results (only with parallel workers, whose first asks come
before any tell), asks draw further uniform vectors: each joins the population if it is not
full yet, and otherwise competes with the worst member like a trial with that member as target.
"""

from __future__ import annotations

import numpy as np

from .base import Observation, Optimizer, Trial, register

#: rand/1 needs the target plus three distinct other members.
RAND1_MEMBERS = 4


@register("de", "differential evolution rand/1/bin on the [0,1] encoding (population 20, F 0.5, CR 0.5)")
class DifferentialEvolution(Optimizer):
    def __init__(self, space, seed=0, population_size: int = 20, mutation_factor: float = 0.5,
                 crossover_rate: float = 0.5):
        super().__init__(space, seed)
        if population_size < RAND1_MEMBERS:
            raise ValueError(f"population_size must be at least {RAND1_MEMBERS} for rand/1, got {population_size}")
        if not 0.0 < mutation_factor <= 2.0:
            raise ValueError(f"mutation_factor must be in (0, 2], got {mutation_factor}")
        if not 0.0 <= crossover_rate <= 1.0:
            raise ValueError(f"crossover_rate must be in [0, 1], got {crossover_rate}")
        self.population_size = population_size
        self.mutation_factor = mutation_factor
        self.crossover_rate = crossover_rate
        self.dims = np.array(space.categorical_dims())
        self.vectors = np.empty((0, len(self.dims)))
        self.scores = np.empty(0)
        self._next_target = 0
        self._random_pending = 0
        self._pending: dict[int, tuple[int | None, np.ndarray]] = {}

    def settings(self) -> dict:
        return {"population_size": self.population_size, "mutation_factor": self.mutation_factor,
                "crossover_rate": self.crossover_rate}

    def decode(self, vector: np.ndarray):
        """The architecture of a [0, 1] vector: each coordinate's equal-width bin."""
        return self.space.from_categorical(np.minimum((vector * self.dims).astype(int), self.dims - 1).tolist())

    def ask(self) -> Trial:
        filling = len(self.vectors) + self._random_pending < self.population_size
        if filling or len(self.vectors) < RAND1_MEMBERS:
            target, vector = None, self.rng.random(len(self.dims))
            self._random_pending += 1
        else:
            target = self._next_target % len(self.vectors)
            vector = self.trial_vector(target)
            self._next_target = target + 1
        trial = Trial(self.decode(vector))
        self._pending[id(trial)] = (target, vector)
        return trial

    def trial_vector(self, target: int) -> np.ndarray:
        """rand/1/bin: the mutant of three distinct non-target members, crossed with the target."""
        others = np.delete(np.arange(len(self.vectors)), target)
        a, b, c = self.vectors[self.rng.choice(others, size=3, replace=False)]
        mutant = a + self.mutation_factor * (b - c)
        take = self.rng.random(len(self.dims)) < self.crossover_rate
        take[self.rng.integers(len(self.dims))] = True
        return np.clip(np.where(take, mutant, self.vectors[target]), 0.0, 1.0)

    def tell(self, trial: Trial, observation: Observation) -> None:
        target, vector = self._pending.pop(id(trial))
        score = observation.valid_accuracy if observation.valid else 0.0
        if target is None:
            self._random_pending -= 1
            if len(self.vectors) < self.population_size:
                self.vectors = np.vstack([self.vectors, vector])
                self.scores = np.append(self.scores, score)
                return
            target = int(np.argmin(self.scores))
        if score >= self.scores[target]:
            self.vectors[target], self.scores[target] = vector, score
