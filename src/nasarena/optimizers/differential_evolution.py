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

from .base import Observation, Optimizer, Setting, Trial

#: rand/1 needs the target plus three distinct other members.
RAND1_MEMBERS = 4


class DifferentialEvolution(Optimizer):
    name = "de"
    summary = "differential evolution rand/1/bin on the [0,1] encoding (population 20, F 0.5, CR 0.5)"

    SETTINGS = {
        "population_size": Setting(int, "members of the population (rand/1 needs the target and 3 others)",
                                   low=RAND1_MEMBERS),
        "mutation_factor": Setting(float, "F: scale of the difference vector", low=0, high=2, low_open=True),
        "crossover_rate": Setting(float, "CR: probability of taking each coordinate from the mutant", low=0, high=1),
    }

    def __init__(self, space, seed=0, *, population_size: int = 20, mutation_factor: float = 0.5,
                 crossover_rate: float = 0.5):
        super().__init__(space, seed)
        self.population_size = population_size
        self.mutation_factor = mutation_factor
        self.crossover_rate = crossover_rate
        self.dims = np.array(space.categorical_dims())
        self.vectors = np.empty((0, len(self.dims)))
        self.scores = np.empty(0)
        self._next_target = 0
        self._random_pending = 0
        self._pending: dict[int, tuple[int | None, np.ndarray]] = {}

    def decode(self, vector: np.ndarray):
        """The architecture of a [0, 1] vector: each coordinate's equal-width bin."""
        return self.space.from_categorical(np.minimum((vector * self.dims).astype(int), self.dims - 1).tolist())

    def _ask(self, number: int) -> Trial:
        filling = len(self.vectors) + self._random_pending < self.population_size
        if filling or len(self.vectors) < RAND1_MEMBERS:
            target, vector = None, self.rng.random(len(self.dims))
            self._random_pending += 1
        else:
            target = self._next_target % len(self.vectors)
            vector = self.trial_vector(target)
            self._next_target = target + 1
        trial = Trial(self.decode(vector))
        self._pending[number] = (target, vector)
        return trial

    def trial_vector(self, target: int) -> np.ndarray:
        """rand/1/bin: the mutant of three distinct non-target members, crossed with the target."""
        others = np.delete(np.arange(len(self.vectors)), target)
        a, b, c = self.vectors[self.rng.choice(others, size=3, replace=False)]
        mutant = a + self.mutation_factor * (b - c)
        take = self.rng.random(len(self.dims)) < self.crossover_rate
        take[self.rng.integers(len(self.dims))] = True
        return np.clip(np.where(take, mutant, self.vectors[target]), 0.0, 1.0)

    def _tell(self, trial: Trial, observation: Observation) -> None:
        target, vector = self._pending.pop(trial.number)
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
