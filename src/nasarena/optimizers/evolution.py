"""Regularized evolution (Real et al. 2019) and its non-regularized variant.

A population of the most recent ``population_size`` evaluated architectures; each new child
is a mutation of the best of ``tournament_size`` members sampled uniformly (with replacement,
as the original code). The mutation is the NB101 paper's (``mutation="paper"``: one edge or op
drawn uniformly and changed, Supplement S2) unless ``mutation="rate"`` asks for the rate-based
one of its Fig. 8 (middle), with ``mutation_rate``. Regularized evolution removes the *oldest*
member when the population is full; the non-regularized variant removes the *worst*.

``zero_cost_warmup=N`` starts from the best ``population_size`` of ``N`` random architectures by the
benchmark's zero-cost proxy instead of random ones (Abdelfattah et al. 2021; :mod:`.zero_cost_warmup`).

Constrained mode: a result told ``feasible=False`` (the run's constraint violated) ranks below
every feasible member in tournaments (and removals), so it never becomes a parent when a
feasible member is drawn; with every result feasible the trajectory is unchanged bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from ..spaces.protocol import sample_many
from ..uniforms import UniformStream
from .base import Observation, Optimizer, Setting, Trial
from .zero_cost_warmup import ZeroCostWarmup, warmup_setting

#: Mutation rules: the NB101 paper's single edit (the default) and the rate-based one.
MUTATIONS = ("paper", "rate")
#: Subtracted from an infeasible result's accuracy (constrained mode): accuracies lie in [0, 1], so
#: an infeasible member loses every tournament against a feasible one, and (non-regularized) is
#: removed first, while infeasible members still compare by accuracy among themselves.
INFEASIBLE_PENALTY = 2.0
#: Encodings the mutation works on (variable_size: the anytime paper's VS setup, NB101 only).
ENCODINGS = ("fixed", "variable_size")


def mutation_of(space, rule: str, rate: float) -> Callable[[object, np.random.Generator], object]:
    """The function making a child of a parent by ``rule`` (resolved once per run: it is called
    for every evaluation). Spaces without a separate single-edit mutation (NB201, DARTS, FBNet)
    already change one choice per mutation, so both rules use it there."""
    if rule == "paper" and hasattr(space, "mutate_one_edit"):
        return space.mutate_one_edit
    return partial(space.mutate, rate=rate)


class _Evolution(Optimizer):
    regularized = True
    recorded_defaults = ("mutation",)  # the paper's single edit became the default after "rate"
    SETTINGS = {
        "population_size": Setting(int, "evaluated architectures kept in the population", low=1),
        "tournament_size": Setting(int, "members sampled (with replacement) to pick a parent; <= population_size",
                                   low=1),
        "mutation_rate": Setting(float, "the space's mutation rate (NB101: expected flips per mutation); used by "
                                 "mutation='rate' only", low=0, low_open=True),
        "mutation": Setting(str, "'paper': one uniformly drawn edge flipped or op changed (NB101 paper, Supplement "
                            "S2); 'rate': every edge and op mutated with a probability from mutation_rate (its "
                            "Fig. 8, middle)", choices=MUTATIONS),
        "encoding": Setting(str, "'fixed': the 7-vertex encoding; 'variable_size': the number of vertices is a "
                            "parameter the paper's mutation also changes (anytime paper, setup VS)",
                            choices=ENCODINGS),
        "zero_cost_warmup": warmup_setting("the initial population (at least population_size)"),
    }

    def __init__(self, space, seed=0, *, population_size: int = 100, tournament_size: int = 10,
                 mutation_rate: float = 1.0, mutation: str = "paper", encoding: str = "fixed",
                 zero_cost_warmup: int = 0):
        super().__init__(space, seed)
        if not 1 <= tournament_size <= population_size:
            raise ValueError(f"tournament_size must be in 1..population_size, got {tournament_size}")
        self.population_size = population_size
        self.tournament_size = tournament_size
        self.mutation_rate = mutation_rate
        self.mutation = mutation
        self.encoding = encoding
        if encoding == "variable_size" and (mutation != "paper" or not hasattr(space, "mutate_variable_size")):
            raise ValueError("encoding='variable_size' needs mutation='paper' and a space with a variable-size "
                             "encoding (NB101)")
        # The population as two parallel lists (architectures, validation accuracies), oldest
        # first: the tournament and the removal of the worst run on plain floats, and a list
        # indexes any position in O(1) (a deque walks its blocks) while removing one of 100
        # entries is a short memmove.
        self.population: list[object] = []
        self.accuracies: list[float] = []
        # Non-regularized: the position of the first worst member, accuracies.index(min(accuracies)),
        # kept up to date. A newcomer worse than it is the one removed (4 in 5 of them once the
        # population is good) and nothing changes; only otherwise is it found again by a scan
        # (~1.5 us, which every evaluation paid before).
        self._worst = 0
        self._initial: list = []  # the first population, drawn at once, not yet asked (next one last)
        # The tournaments' and mutations' draws: the generator's doubles in its own order, served
        # from blocks at a fraction of a scalar draw's cost (see nasarena.uniforms). NB101's
        # single-edit and rate mutations draw doubles only, so their trajectories are the
        # generator's own; mutations that also draw integers (variable size, NB201, DARTS, FBNet)
        # take those from the generator, after the block: other draws, the same distribution.
        self._uniforms = UniformStream(self.rng)
        self._mutate = (space.mutate_variable_size if encoding == "variable_size"
                        else mutation_of(space, mutation, mutation_rate))
        self.zero_cost_warmup = zero_cost_warmup
        self._warmup = ZeroCostWarmup(space, self.rng, zero_cost_warmup, population_size, self.name) \
            if zero_cost_warmup else None

    def _ask(self, number: int) -> Trial:
        if self._warmup is not None:
            trial = self._warmup.ask(number)
            if trial is not None:
                return trial
            number -= self.zero_cost_warmup  # the warm-up's proxies are not population members
        if number < self.population_size or len(self.population) == 0:
            if not self._initial:  # the samples until the population is full, drawn as one batch
                self._initial = sample_many(self.space, self.rng, max(self.population_size - number, 1))[::-1]
            return Trial.from_fields(self._initial.pop(), None, number)
        # uniform, with replacement; int(u * size) is the original's (u * size).astype(int64)
        picks = self._uniforms.indices(self.tournament_size, len(self.population))
        parent = self.population[max(picks, key=self.accuracies.__getitem__)]  # the first best pick, as max()
        return Trial.from_fields(self._mutate(parent, self._uniforms), None, number)

    def _tell(self, trial: Trial, observation: Observation) -> None:
        if not observation.valid or (self._warmup is not None and self._warmup.tell(trial, observation)):
            return
        population, accuracies, accuracy = self.population, self.accuracies, observation.valid_accuracy
        if not observation.feasible:  # constrained: below every feasible member (accuracies are in [0, 1])
            accuracy -= INFEASIBLE_PENALTY
        population.append(trial.arch)
        accuracies.append(accuracy)
        full = len(population) > self.population_size
        if self.regularized:
            if full:
                del population[0]
                del accuracies[0]
        # min() keeps its first item unless a later one is strictly smaller, so the newcomer is the
        # first worst exactly when it is below the first worst so far
        elif len(accuracies) == 1 or accuracy < accuracies[self._worst]:
            if full:
                del population[-1]
                del accuracies[-1]
            else:
                self._worst = len(accuracies) - 1
        elif full:
            del population[self._worst]
            del accuracies[self._worst]
            self._worst = accuracies.index(min(accuracies))


class RegularizedEvolution(_Evolution):
    name = "re"
    summary = "regularized evolution (population 100, tournament 10, NB101 mutation; removes the oldest)"

    regularized = True


class NonRegularizedEvolution(_Evolution):
    name = "nre"
    summary = "non-regularized evolution (as RE but removes the worst member)"

    regularized = False
