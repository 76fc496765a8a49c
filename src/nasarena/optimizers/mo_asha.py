"""MO-ASHA: asynchronous successive halving that promotes by Pareto rank (Schmucker et al. 2021).

Schmucker, Donini, Zafar, Salinas and Archambeau (2021), "Multi-objective Asynchronous Successive
Halving" (arXiv:2106.12639), keep the schedule of ASHA (Li et al. 2020, "A System for Massively
Parallel Hyperparameter Tuning", MLSys) and replace its ranking of a rung by a multi-objective
one. nasarena's multi-objective optimizers otherwise evaluate every architecture at the
highest fidelity; this one spends most of its time on cheap low-fidelity evaluations and trains
only the best-ranked architectures longer.

**Rungs** are Hyperband's budgets of the benchmark's fidelities (:func:`.hyperband.budgets`:
``max * eta**-k``, each snapped to the nearest fidelity): NB201's 12 and 200 epochs, NB101's 4,
12, 36 and 108. **ASHA's rule** (its Algorithm 2, early-stopping rate 0), at every ask: from the
second-highest rung down, look for a configuration among the best ``floor(n / eta)`` of the
``n`` results told in that rung that has not been promoted yet; the best-ranked such one is
evaluated at the next rung's fidelity; when no rung has one, a new configuration from the
space's sampler starts at the lowest rung (drawn with replacement, as in ASHA and ``hb``: an
architecture drawn twice is two configurations). An ask never waits for a rung to fill, so idle
workers always get work (asynchronous, as ASHA); a configuration is marked promoted when it is
handed out, so one still running at the next rung is never promoted twice.

**The ranking of a rung** is NSGA-II's survivor order (:func:`.pareto_sort.preference_order`):
feasible results (a run's constraint met) first, then non-dominated front, then larger crowding
distance, then tell order: the NSGA-II rule among the selection rules the paper compares (an
epsilon-net is another). A rung holds results at one fidelity only, so its ranking compares
like with like: the error is the validation error after that rung's epochs, while latency,
parameters and FLOPs do not depend on the fidelity. The ranking is recomputed at an ask only
for rungs told something since the last one (a sort of a few hundred points, about a millisecond).

An invalid result (an architecture outside the space) joins no rung. What the run reports as
its front is the runner's: the non-dominated set of every evaluation's validation vector,
whatever its fidelity (:mod:`nasarena.runner.front`).
"""

from __future__ import annotations

import numpy as np

from .base import Observation, Optimizer, Setting, Trial, objectives_of
from .hyperband import budgets, several_fidelities
from .pareto_sort import preference_order


class MOASHA(Optimizer):
    name = "mo-asha"
    summary = ("MO-ASHA: asynchronous successive halving promoting by non-dominated rank and crowding; needs "
               "fidelities=benchmark.fidelities")
    multi_fidelity = True  # the experiment runner passes fidelities=benchmark.fidelities
    multi_objective = True

    SETTINGS = {
        "fidelities": Setting(list, "the benchmark's fidelities (epochs) the rungs are chosen from; at least two",
                              low=1, optional=True),
        "eta": Setting(int, "the reduction factor: the best 1/eta of a rung is promoted", low=2),
    }

    def __init__(self, space, seed=0, *, fidelities=None, eta: int = 3):
        super().__init__(space, seed)
        self.fidelities = several_fidelities(self.name, fidelities, "it would be multi-objective random search")
        self.eta = int(eta)
        self.rungs = budgets(self.fidelities, self.eta)
        # per rung, in tell order: each result's architecture, objective vector and feasibility
        self._archs: list[list[object]] = [[] for _ in self.rungs]
        self._vectors: list[list[tuple[float, ...]]] = [[] for _ in self.rungs]
        self._feasible: list[list[bool]] = [[] for _ in self.rungs]
        self._promoted: list[set[int]] = [set() for _ in self.rungs]  # per rung: positions handed to the next
        self._orders: list[np.ndarray | None] = [None for _ in self.rungs]  # None: told something since
        self._pending: dict[int, int] = {}  # trial number -> its rung

    def rung_order(self, level: int) -> np.ndarray:
        """Positions (tell order) of rung ``level``'s results, best first."""
        if self._orders[level] is None:
            self._orders[level] = preference_order(np.array(self._vectors[level], dtype=np.float64),
                                                   np.array(self._feasible[level], dtype=bool))
        return self._orders[level]

    def _ask(self, number: int) -> Trial:
        for level in range(len(self.rungs) - 2, -1, -1):
            quota = len(self._archs[level]) // self.eta
            if quota == 0:
                continue
            promoted = self._promoted[level]
            position = next((p for p in self.rung_order(level)[:quota].tolist() if p not in promoted), None)
            if position is not None:
                promoted.add(position)
                self._pending[number] = level + 1
                return Trial.from_fields(self._archs[level][position], self.rungs[level + 1], number)
        self._pending[number] = 0
        return Trial.from_fields(self.space.sample(self.rng), self.rungs[0], number)

    def _tell(self, trial: Trial, observation: Observation) -> None:
        level = self._pending.pop(trial.number)
        if not observation.valid:
            return
        self._archs[level].append(trial.arch)
        self._vectors[level].append(objectives_of(observation))
        self._feasible[level].append(observation.feasible)
        self._orders[level] = None
