"""NSGA-II (Deb et al. 2002) on a search space's sampler, crossover of configurations and mutation.

Generational, as Deb's, made asynchronous for the ask/tell contract (as Optuna's
``NSGAIISampler``): the first ``population_size`` architectures are random samples; every later
ask breeds a child from the current parent population, and each time ``population_size``
children have been told, the parents and those children are merged and the best
``population_size`` survive: by non-dominated front, then crowding distance
(:mod:`.pareto_sort`), infeasible ones (a run's constraint violated) after every feasible one.

Breeding: two parents, each the better of a binary tournament (two members drawn uniformly, the
one earlier in that order wins); with probability ``crossover_probability`` the child takes
each parameter of the space's ``categorical`` configuration from either parent with equal
chance (uniform crossover, as Optuna's default for categorical parameters), then the child is
mutated by the space's own mutation (one edit: one NB201 edge, one NB101 edge or op). Why the
configuration and why a fallback: every space has a categorical configuration with named
parameters, so crossover needs no knowledge of the space; but in some spaces a mixture of two
members is no member (an NB101 cell over 9 edges, a DARTS cell whose conditional parameters
disagree), and then the child is the first parent before mutation, so every child is a member
(the space's mutation keeps membership).
"""

from __future__ import annotations

import numpy as np

from ..errors import NasarenaError
from ..spaces.protocol import sample_many
from .base import Observation, Optimizer, Setting, Trial, objectives_of
from .pareto_sort import preference_order


class NSGA2(Optimizer):
    name = "nsga2"
    summary = ("NSGA-II: non-dominated sorting and crowding, binary tournaments, uniform crossover of "
               "configurations and the space's mutation")
    multi_objective = True

    SETTINGS = {
        "population_size": Setting(int, "parents kept, and children told between two survivor selections", low=2),
        "crossover_probability": Setting(float, "probability that a child is a uniform crossover of two parents "
                                         "before its mutation", low=0, high=1),
    }

    def __init__(self, space, seed=0, *, population_size: int = 50, crossover_probability: float = 0.9):
        super().__init__(space, seed)
        self.population_size = population_size
        self.crossover_probability = float(crossover_probability)
        self.parents: list[tuple[object, tuple[float, ...], bool]] = []  # best first
        self._children: list[tuple[object, tuple[float, ...], bool]] = []  # told since the last selection
        self._initial: list = []

    def _ask(self, number: int) -> Trial:
        if number < self.population_size or not self.parents:
            if not self._initial:
                self._initial = sample_many(self.space, self.rng, max(self.population_size - number, 1))[::-1]
            return Trial.from_fields(self._initial.pop(), None, number)
        first, second = self._tournament(), self._tournament()
        child = first
        if self.rng.random() < self.crossover_probability:
            child = self._crossover(first, second)
        return Trial.from_fields(self.space.mutate(child, self.rng), None, number)

    def _tournament(self) -> object:
        """The better of two parents drawn uniformly (parents are kept best first)."""
        return self.parents[int(self.rng.integers(len(self.parents), size=2).min())][0]

    def _crossover(self, first, second):
        """Each configuration parameter from either parent; the first parent where the mix is
        not a member of the space."""
        one, two = self.space.to_config(first), self.space.to_config(second)
        take = self.rng.random(len(one)) < 0.5
        mixed = {key: two[key] if flip and key in two else value for (key, value), flip in zip(one.items(), take)}
        try:
            child = self.space.from_config(mixed)
        except (NasarenaError, ValueError, KeyError):
            return first
        return child if self.space.contains(child) else first

    def _tell(self, trial: Trial, observation: Observation) -> None:
        if not observation.valid:
            return
        member = (trial.arch, objectives_of(observation), observation.feasible)
        if trial.number < self.population_size:  # the random first generation joins the parents at once
            self.parents = self._best(self.parents + [member])
            return
        self._children.append(member)
        if len(self._children) >= self.population_size:
            self.parents = self._best(self.parents + self._children)[: self.population_size]
            self._children = []

    @staticmethod
    def _best(members: list) -> list:
        """``members`` best first: feasible first, then by front, then by crowding distance."""
        order = preference_order(np.array([m[1] for m in members]), np.array([m[2] for m in members]))
        return [members[i] for i in order]
