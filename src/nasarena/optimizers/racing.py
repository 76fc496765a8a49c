"""Iterated racing in the spirit of irace (López-Ibáñez et al. 2016), over the space's categorical encoding.

Each dimension of ``space.categorical_dims()`` is one categorical parameter (NB101: 21 edges
and 5 ops; NB201: 6 edges). On NB101, ``encoding="variable_size"`` races the anytime paper's
variable-size encoding instead (its setup VS): ``num_vertices`` is a parameter, and an edge or
op is active only while its vertices exist, irace's conditional parameters (``space.
variable_size_dims()``). An inactive parameter is not part of a configuration: it is ignored
when the cell is built and leaves the elite's distribution of that parameter unchanged (irace
samples it from the parent's distribution once it is active again). ``num_vertices`` is a
categorical parameter here, like every other; irace would declare it an integer and sample it
around the parent's value. With d parameters irace plans N_iter = floor(2 + log2 d)
iterations and keeps up to N_min = floor(2 + log2 d) elites (``iterations``, ``elites``).

Iteration j gets the budget B_j = (B - used) / (N_iter - j + 1) of the ``max_experiments``
B and races N_j = floor(B_j / (first_test + each_test * min(5, j))) candidates: the elites of
the previous race plus new ones. A new candidate picks an elite as its parent with
probability proportional to N_elites - rank + 1 and samples each parameter from the parent's
own categorical distribution (uniform in the first iteration). Before sampling, each elite's
distributions move towards its own values: p <- p (1 - (j - 1) / N_iter), plus (j - 1) / N_iter
on the elite's value, so the step grows as the iterations progress (irace's ``updateModel``).
A new candidate whose architecture is already in the race (same ``space.identity``, which also
catches NB101 cells isomorphic to one in the race) triggers irace's soft restart of its
parent's distributions (p <- 0.9 p + 0.1 max p) and is redrawn; irace restarts and redraws
all the candidates involved at once, here one candidate is redrawn at a time.

The race evaluates every alive candidate on instance after instance. An "instance" is one
more query of the same architecture, which on a noisy benchmark draws another training
trial. After ``first_test`` instances and then every ``each_test`` instances, the Friedman
test with Conover's post-hoc comparison against the best rank sum (irace's F-race,
:func:`friedman_survivors`) eliminates candidates at ``confidence``. The race stops once at
most N_min candidates are alive, one is left, or the next block would exceed B_j; the best
min(alive, N_min) by rank sum become the elites. Races are non-elitist (irace's
``elitist = 0``): elites are raced again from scratch, so their re-evaluations show up as
repeated architectures in the trajectory. On a deterministic benchmark (one trial per
architecture) every repeat returns the same accuracy and F-race keeps only the best.

Ask/tell is asynchronous, so the schedule is a queue of pending (candidate, instance)
evaluations and results accumulate in a candidates x instances cost matrix (cost = -validation
accuracy). When the queue is empty while a test still waits for outstanding results (several
workers), the next instance of the alive candidates is scheduled ahead. An invalid
architecture (told ``valid=False``, accuracy 0) leaves the race without a result in the
matrix and, before the first test, is replaced by a fresh sample from the same distributions,
as irace redraws forbidden configurations.

irace receives its whole budget up front; an ask/tell optimizer does not know when the run
will end, so ``max_experiments`` defaults to about the number of 108-epoch NB101 evaluations in
the NB101 protocol's 10^7 simulated seconds, and once B is spent every further iteration
races with B / N_iter (irace itself stops there). Beyond N_iter iterations N_iter grows to j,
as irace does when it has budget left.
"""

from __future__ import annotations

import math
import warnings
from collections import deque
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidSettingError
from .base import Observation, Optimizer, Setting, Trial

#: irace's cap on the number of candidates in one race (``maxConfigurations``).
MAX_CANDIDATES = 1024
#: Draws (each after a soft restart) before a race gives up a slot it cannot fill with a new candidate.
MAX_DRAWS = 100
#: The encodings irace races (variable_size: the anytime paper's setup VS, NB101 only).
ENCODINGS = ("fixed", "variable_size")
#: An inactive parameter's value in a candidate (a conditional parameter whose condition fails).
INACTIVE = -1


def friedman_survivors(costs: np.ndarray, confidence: float) -> np.ndarray:
    """Columns of ``costs`` (instances x candidates, lower is better) that survive irace's F-race test.

    The Friedman test (``scipy.stats.friedmanchisquare``) treats each instance as a block.
    When it rejects that all candidates perform alike at ``confidence``, the post-hoc test of
    Conover (1999, pp. 369-371, as in irace) keeps the candidate with the best rank sum and
    every candidate whose rank sum R_j lies within
    t_{1 - a/2, (n-1)(k-1)} sqrt(2 (n A - sum R^2) / ((n-1)(k-1))) of it, where a = 1 -
    confidence and A is the sum of the squared within-instance ranks. Otherwise all survive.
    """
    from scipy import stats

    costs = np.asarray(costs, dtype=float)
    if costs.ndim != 2 or costs.shape[0] < 2 or costs.shape[1] < 3:
        raise ValueError(f"costs must be (instances >= 2) x (candidates >= 3), got shape {costs.shape}")
    if not np.isfinite(costs).all():
        raise ValueError("costs must be finite: every candidate needs a result on every instance")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    n, k = costs.shape
    ranks = stats.rankdata(costs, axis=1)
    rank_sums = ranks.sum(axis=0)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # all ranks tied: the statistic is 0/0
        p_value = stats.friedmanchisquare(*costs.T).pvalue
    alpha = 1.0 - confidence
    if not p_value < alpha:  # also NaN: nothing distinguishes the candidates
        return np.arange(k)
    df = (n - 1) * (k - 1)
    spread = max(n * float((ranks**2).sum()) - float((rank_sums**2).sum()), 0.0)
    critical = stats.t.ppf(1.0 - alpha / 2.0, df) * math.sqrt(2.0 * spread / df)
    return np.flatnonzero(rank_sums - rank_sums.min() <= critical)


def updated_distributions(probabilities: np.ndarray, values, step: float) -> np.ndarray:
    """irace's update of an elite's categorical distributions (one row per parameter).

    Every probability shrinks by the factor 1 - ``step`` and the elite's own value of each
    parameter gains ``step``; rows are renormalised. A parameter the elite does not have
    (``INACTIVE``) keeps its distribution, as in irace.
    """
    values = np.asarray(values)
    active = np.flatnonzero(values != INACTIVE)
    updated = probabilities.copy()
    updated[active] *= 1.0 - step
    updated[active, values[active]] += step
    return updated / updated.sum(axis=1, keepdims=True)


def softly_restarted(probabilities: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """irace's soft restart: p <- 0.9 p + 0.1 max(p) on each parameter's allowed values, renormalised."""
    flattened = np.where(allowed, 0.9 * probabilities + 0.1 * probabilities.max(axis=1, keepdims=True), 0.0)
    return flattened / flattened.sum(axis=1, keepdims=True)


@dataclass
class Candidate:
    """A configuration in a race; ``distributions`` are its parent's until it becomes an elite.

    ``key`` is the architecture's identity, or its values when the space has none for it (an
    invalid NB101 cell).
    """

    values: tuple[int, ...]
    arch: object
    key: object
    distributions: np.ndarray
    valid: bool = True


class Race:
    """One iteration's race: candidates x instances costs, the alive set and the evaluation queue.

    ``rows`` counts the instances on which every alive candidate has been scheduled; rows
    beyond it may hold results scheduled ahead for idle workers.
    """

    def __init__(self, number: int, candidates: list[Candidate], budget: int):
        self.number = number
        self.budget = budget
        self.candidates: list[Candidate] = []
        self.costs = np.empty((0, 0))
        self.alive = np.zeros(0, dtype=bool)
        self.scheduled: set[tuple[int, int]] = set()
        self.queue: deque[tuple[int, int]] = deque()
        self.rows = 0
        self.tested_at = 0
        for candidate in candidates:
            self.add(candidate)

    def add(self, candidate: Candidate) -> None:
        """Join the race, scheduled on every instance the others have been scheduled on."""
        self.candidates.append(candidate)
        self.costs = np.hstack([self.costs, np.full((len(self.costs), 1), np.nan)])
        self.alive = np.append(self.alive, True)
        for row in range(self.rows):
            self._schedule(len(self.candidates) - 1, row)

    def _schedule(self, index: int, row: int) -> None:
        if (index, row) in self.scheduled:
            return
        if row >= len(self.costs):
            self.costs = np.vstack([self.costs, np.full((row + 1 - len(self.costs), len(self.candidates)), np.nan)])
        self.scheduled.add((index, row))
        self.queue.append((index, row))

    def schedule_next_instance(self) -> None:
        """Commit one more instance: every alive candidate gets evaluated on it."""
        for index in self.alive_indices():
            self._schedule(int(index), self.rows)
        self.rows += 1

    def schedule_ahead(self) -> None:
        """Queue the first instance beyond ``rows`` that some alive candidate is not yet scheduled on."""
        alive = self.alive_indices()
        row = self.rows
        while all((int(i), row) in self.scheduled for i in alive):
            row += 1
        for index in alive:
            self._schedule(int(index), row)

    def drop_invalid(self, index: int) -> None:
        self.candidates[index].valid = False
        self.alive[index] = False
        self.queue = deque(item for item in self.queue if item[0] != index)

    def alive_indices(self) -> np.ndarray:
        return np.flatnonzero(self.alive)

    def complete(self) -> bool:
        """Whether every alive candidate has its results on all committed instances."""
        return bool(np.isfinite(self.costs[: self.rows][:, self.alive]).all())

    def used(self) -> int:
        return int(np.isfinite(self.costs).sum())

    def ranked_alive(self) -> np.ndarray:
        """Alive candidates by rank sum over the committed instances (ties: mean cost)."""
        from scipy import stats

        alive = self.alive_indices()
        costs = self.costs[: self.rows][:, alive]
        rank_sums = stats.rankdata(costs, axis=1).sum(axis=0)
        return alive[np.lexsort((costs.mean(axis=0), rank_sums))]


class IteratedRacing(Optimizer):
    name = "irace"
    summary = "iterated racing (irace): F-race over repeated evaluations, categorical sampling models"

    SETTINGS = {
        "first_test": Setting(int, "instances (repeated evaluations) before the first statistical test", low=2),
        "each_test": Setting(int, "instances between later tests", low=1),
        "confidence": Setting(float, "confidence level of the Friedman tests", low=0, high=1, low_open=True,
                              high_open=True),
        "elites": Setting(int, "surviving elite configurations per race (default: 2 + log2 of the dimensions)",
                          low=2, optional=True),
        "iterations": Setting(int, "planned races (default: 2 + log2 of the dimensions)", low=1, optional=True),
        "max_experiments": Setting(int, "evaluations over all races (irace's budget)", low=1),
        "encoding": Setting(str, "'fixed': the space's categorical encoding; 'variable_size': NB101's with the "
                            "number of vertices as a parameter and conditional edges and ops (anytime paper, "
                            "setup VS)", choices=ENCODINGS),
    }

    def __init__(self, space, seed=0, *, first_test: int = 5, each_test: int = 1, confidence: float = 0.95,
                 elites: int | None = None, iterations: int | None = None, max_experiments: int = 7500,
                 encoding: str = "fixed"):
        super().__init__(space, seed)
        self.encoding = encoding
        self.dims = np.array(self._encoding_dims())
        default = int(2 + math.log2(len(self.dims)))  # irace's N_iter and minNbSurvival
        self.first_test = first_test
        self.each_test = each_test
        self.confidence = confidence
        self.elites = default if elites is None else elites
        self.iterations = default if iterations is None else iterations
        self.max_experiments = max_experiments
        self._validate()
        self.allowed = np.arange(self.dims.max())[None, :] < self.dims[:, None]
        self.uniform = np.where(self.allowed, 1.0 / self.dims[:, None], 0.0)
        self.planned_iterations = self.iterations
        self.iteration = 0
        self.experiments_used = 0
        self.elite_candidates: list[Candidate] = []
        self._pending: dict[int, tuple[int, int, int]] = {}
        self.race = self._next_race()

    def _encoding_dims(self) -> tuple[int, ...]:
        """The choices per parameter of ``encoding``; the variable-size one exists on NB101 only."""
        if self.encoding == "fixed":
            return self.space.categorical_dims()
        if not hasattr(self.space, "variable_size_dims"):
            raise InvalidSettingError(f"irace: encoding='variable_size' needs NB101's variable-size encoding; the "
                                      f"{getattr(self.space, 'name', type(self.space).__name__)} space has none")
        return self.space.variable_size_dims()

    def _configuration(self, values: tuple[int, ...]) -> tuple[tuple[int, ...], object]:
        """The candidate of sampled ``values``: its inactive parameters set to ``INACTIVE``, and its cell."""
        if self.encoding == "fixed":
            return values, self.space.from_categorical(values)
        active = self.space.variable_size_active(values)
        values = tuple(value if on else INACTIVE for value, on in zip(values, active))
        return values, self.space.from_variable_size(values)

    def _validate(self) -> None:
        """irace's budget check, which ties four settings together (each one's range is in SETTINGS)."""
        minimum = (self.elites + 1) * self.iterations * (self.first_test + 5 * self.each_test)  # irace's check
        if self.max_experiments < minimum:
            raise ValueError(f"max_experiments={self.max_experiments} is below irace's minimum budget {minimum} "
                             f"for {self.elites} elites, {self.iterations} iterations and first_test {self.first_test}")

    # -- iterations -------------------------------------------------------------------------

    def _next_race(self) -> Race:
        """Update the elites' distributions, sample the new candidates and schedule the first block."""
        self.iteration += 1
        j = self.iteration
        self.planned_iterations = max(self.planned_iterations, j)
        remaining = self.max_experiments - self.experiments_used
        budget = max(remaining // (self.planned_iterations - j + 1), self.max_experiments // self.iterations)
        size = budget // (self.first_test + self.each_test * min(5, j))
        size = min(MAX_CANDIDATES, max(size, self.elites + 1))
        step = (j - 1) / self.planned_iterations
        for elite in self.elite_candidates:
            elite.distributions = updated_distributions(elite.distributions, elite.values, step)
        race = Race(j, list(self.elite_candidates), budget)
        for _ in range(size - len(race.candidates)):
            candidate = self._sample_new(race, self._choose_parent())
            if candidate is not None:
                race.add(candidate)
        for _ in range(self.first_test):
            race.schedule_next_instance()
        return race

    def _choose_parent(self) -> int | None:
        """An elite index, with probability (N - rank + 1) / (N (N + 1) / 2); None: sample uniformly."""
        count = len(self.elite_candidates)
        if count == 0:
            return None
        weights = np.arange(count, 0, -1, dtype=float)
        return int(np.searchsorted(np.cumsum(weights), self.rng.random() * weights.sum(), side="right"))

    def _sample_new(self, race: Race, parent: int | None, distributions: np.ndarray | None = None) -> Candidate | None:
        """A candidate not yet in ``race``, from a parent elite's (or the given) distributions."""
        if distributions is None:
            distributions = self.uniform if parent is None else self.elite_candidates[parent].distributions
        taken = {c.key for c in race.candidates}
        for _ in range(MAX_DRAWS):
            cumulative = np.cumsum(distributions, axis=1)
            draws = self.rng.random(len(cumulative)) * cumulative[:, -1]
            values, arch = self._configuration(
                tuple(np.minimum((cumulative <= draws[:, None]).sum(axis=1), self.dims - 1).tolist()))
            identity = self.space.identity(arch)
            key = values if identity is None else identity
            if key not in taken:
                return Candidate(values, arch, key, distributions)
            distributions = softly_restarted(distributions, self.allowed)
            if parent is not None:
                self.elite_candidates[parent].distributions = distributions
        return None

    def _finish(self, race: Race) -> None:
        self.experiments_used += race.used()
        self.elite_candidates = [race.candidates[i] for i in race.ranked_alive()[: self.elites]]
        self.race = self._next_race()

    # -- the race ---------------------------------------------------------------------------

    def _advance(self) -> None:
        """Test, stop or commit the next instance for as long as no result is outstanding."""
        race = self.race
        while race.complete():
            task = race.rows
            alive = race.alive_indices()
            if task >= self.first_test and task % self.each_test == 0 and race.tested_at < task and len(alive) >= 3:
                race.tested_at = task
                survivors = alive[friedman_survivors(race.costs[:task, alive], self.confidence)]
                race.alive[:] = False
                race.alive[survivors] = True
                alive = survivors
            over_budget = task % self.each_test == 0 and race.used() + len(alive) * self.each_test > race.budget
            if len(alive) <= 1 or (task >= self.first_test and (len(alive) <= self.elites or over_budget)):
                self._finish(race)
                return
            race.schedule_next_instance()

    def _ask(self, number: int) -> Trial:
        race = self.race
        if not race.queue:
            race.schedule_ahead()
        index, row = race.queue.popleft()
        trial = Trial(race.candidates[index].arch)
        self._pending[number] = (race.number, index, row)
        return trial

    def _tell(self, trial: Trial, observation: Observation) -> None:
        number, index, row = self._pending.pop(trial.number)
        race = self.race
        if number != race.number:  # an evaluation scheduled ahead for a race that has ended
            return
        candidate = race.candidates[index]
        if not observation.valid:
            if candidate.valid:
                race.drop_invalid(index)
                if race.tested_at == 0:
                    replacement = self._sample_new(race, None, candidate.distributions)
                    if replacement is not None:
                        race.add(replacement)
        else:
            race.costs[row, index] = -observation.valid_accuracy
        self._advance()
