"""Multi-objective random search and multi-objective regularised evolution.

Both minimise the vector :attr:`~.base.Observation.objectives` (every objective minimised: error,
latency, parameters, ...); the runner keeps their non-dominated set on validation values as the
incumbent, so random search needs nothing but to declare itself multi-objective.

Multi-objective regularised evolution (``mo-re``) is regularised evolution (:mod:`.evolution`)
whose tournament compares members by Pareto rank instead of accuracy, the idea of syne-tune's
``MultiObjectiveRegularizedEvolution`` (MO-REA): the population (the ``population_size`` most
recent valid results, the oldest removed) is ordered by non-dominated sorting, then by
crowding distance within a front (:mod:`.pareto_sort`), and a child is a mutation of the
best-ordered of ``tournament_size`` members sampled uniformly with replacement. Infeasible
members (a run's constraint violated) come after every feasible one. The order is computed
again only at an ask that follows a change of the population (one sort of 100 points, well
under a millisecond), not at every tell.
"""

from __future__ import annotations

import numpy as np

from ..spaces.protocol import sample_many
from ..uniforms import UniformStream
from .base import Observation, Optimizer, Setting, Trial, objectives_of
from .evolution import MUTATIONS, mutation_of
from .pareto_sort import preference_order
from .random_search import RandomSearch


class MultiObjectiveRandomSearch(RandomSearch):
    name = "mo-rs"
    summary = "multi-objective random search (the space's sampler; the incumbent is the non-dominated set)"
    multi_objective = True


class MultiObjectiveRegularizedEvolution(Optimizer):
    name = "mo-re"
    summary = ("multi-objective regularized evolution (syne-tune's MO-REA idea): tournaments by non-dominated "
               "rank and crowding distance; removes the oldest")
    multi_objective = True

    SETTINGS = {
        "population_size": Setting(int, "evaluated architectures kept in the population", low=1),
        "tournament_size": Setting(int, "members sampled (with replacement) to pick a parent; <= population_size",
                                   low=1),
        "mutation": Setting(str, "'paper': one edit (NB101 paper, Supplement S2); 'rate': every choice mutated "
                            "with a probability from mutation_rate", choices=MUTATIONS),
        "mutation_rate": Setting(float, "the space's mutation rate; used by mutation='rate' only", low=0,
                                 low_open=True),
    }

    def __init__(self, space, seed=0, *, population_size: int = 100, tournament_size: int = 10,
                 mutation: str = "paper", mutation_rate: float = 1.0):
        super().__init__(space, seed)
        if not 1 <= tournament_size <= population_size:
            raise ValueError(f"tournament_size must be in 1..population_size, got {tournament_size}")
        self.population_size = population_size
        self.tournament_size = tournament_size
        self.mutation = mutation
        self.mutation_rate = mutation_rate
        self.population: list[object] = []  # oldest first, with their objective vectors and feasibility
        self.objectives: list[tuple[float, ...]] = []
        self.feasible: list[bool] = []
        self._place: list[int] | None = None  # each member's position in the preference order (None: stale)
        self._initial: list = []
        self._uniforms = UniformStream(self.rng)
        self._mutate = mutation_of(space, mutation, mutation_rate)

    def _ask(self, number: int) -> Trial:
        if number < self.population_size or not self.population:
            if not self._initial:
                self._initial = sample_many(self.space, self.rng, max(self.population_size - number, 1))[::-1]
            return Trial.from_fields(self._initial.pop(), None, number)
        if self._place is None:
            order = preference_order(np.array(self.objectives), np.array(self.feasible))
            place = np.empty(len(order), dtype=np.int64)
            place[order] = np.arange(len(order))
            self._place = place.tolist()
        picks = self._uniforms.indices(self.tournament_size, len(self.population))
        parent = self.population[min(picks, key=self._place.__getitem__)]
        return Trial.from_fields(self._mutate(parent, self._uniforms), None, number)

    def _tell(self, trial: Trial, observation: Observation) -> None:
        if not observation.valid:
            return
        self.population.append(trial.arch)
        self.objectives.append(objectives_of(observation))
        self.feasible.append(observation.feasible)
        if len(self.population) > self.population_size:
            del self.population[0], self.objectives[0], self.feasible[0]
        self._place = None
