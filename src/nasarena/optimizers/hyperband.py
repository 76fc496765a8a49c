"""Hyperband (Li et al. 2018): successive halving over brackets of budgets, as an ask/tell optimizer.

Budgets are the benchmark's fidelities (epochs), so the optimizer needs them: ``fidelities``
is a required setting. With ``R = max / min`` and ``s_max = floor(log_eta R)``, Hyperband's
budgets are ``max * eta**-k`` for ``k = 0..s_max``; each is replaced by the nearest available
fidelity (in log scale) and duplicates are merged, so the budgets are always fidelities the
benchmark can answer. For NB101 (4, 12, 36, 108) with ``eta = 3`` they are exactly those four.

Bracket ``s`` (``s_max`` down to 0, then again, forever: the runner's budget stops the run)
starts ``n = ceil((s_max + 1) / (s + 1) * eta**s)`` new configurations at the ``s``-th largest
budget; its rung ``i`` evaluates ``floor(n * eta**-i)`` configurations, the best of the
previous rung by validation accuracy. A rung is complete when every one of its trials was
told, in whatever order; meanwhile, asks from idle workers start the next bracket (as the
reference implementation does with parallel workers), so ``ask`` never has to wait.

A configuration told invalid (an architecture outside the space) does not count, as in the
runner: its slot is refilled with a new configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import Observation, Optimizer, Setting, Trial


def budgets(fidelities, eta: int) -> tuple[int, ...]:
    """Hyperband's geometric budgets, each snapped to the nearest fidelity, increasing and distinct."""
    available = np.array(sorted(fidelities), dtype=float)
    lowest, highest = available[0], available[-1]
    s_max = 0
    while lowest * eta ** (s_max + 1) <= highest * (1 + 1e-9):
        s_max += 1
    ideal = highest / eta ** np.arange(s_max, -1, -1)
    nearest = np.abs(np.log(available)[None, :] - np.log(ideal)[:, None]).argmin(axis=1)
    return tuple(int(available[i]) for i in sorted(set(nearest.tolist())))


def schedule(fidelities, eta: int = 3) -> list[list[tuple[int, int]]]:
    """Every bracket, from the most exploratory one: a list of (configurations, budget) per rung."""
    rungs = budgets(fidelities, eta)
    s_max = len(rungs) - 1
    brackets = []
    for s in range(s_max, -1, -1):
        n = -(-(s_max + 1) * eta**s // (s + 1))  # ceil((s_max + 1) / (s + 1) * eta**s), exactly
        brackets.append([(n // eta**i, rungs[s_max - s + i]) for i in range(s + 1)])
    return brackets


@dataclass(eq=False)
class Configuration:
    """An architecture and, for model-based optimizers, the vector the model proposed it as."""

    arch: object
    vector: np.ndarray | None = None


class _Bracket:
    """Successive halving through one bracket's rungs; only the current rung is ever in flight."""

    def __init__(self, plan: list[tuple[int, int]]):
        self.plan = plan
        self.level = 0
        self.promoted: list[Configuration] = []  # for the current rung, best first, not yet issued
        self.issued = 0
        self.results: list[tuple[float, Configuration]] = []

    @property
    def size(self) -> int:
        return self.plan[self.level][0]

    @property
    def budget(self) -> int:
        return self.plan[self.level][1]

    @property
    def finished(self) -> bool:
        return self.level == len(self.plan)

    def has_work(self) -> bool:
        return not self.finished and self.issued < self.size

    def issue(self, new_configuration) -> Configuration:
        self.issued += 1
        return self.promoted.pop(0) if self.promoted else new_configuration()

    def record(self, configuration: Configuration, observation: Observation) -> None:
        if not observation.valid:
            self.issued -= 1  # the slot goes to a new configuration
            return
        self.results.append((observation.valid_accuracy, configuration))
        if len(self.results) == self.size:
            self._promote()

    def _promote(self) -> None:
        ranked = [c for _, c in sorted(self.results, key=lambda result: -result[0])]  # stable: ties by tell order
        self.level += 1
        self.results = []
        self.issued = 0
        self.promoted = [] if self.finished else ranked[: self.size]


def several_fidelities(name: str, fidelities, otherwise: str) -> tuple[int, ...]:
    """A multi-fidelity optimizer's fidelities, sorted and distinct: at least two, or a
    ValueError saying what the optimizer would be with one (``otherwise``)."""
    if fidelities is None:
        raise ValueError(f"{name} needs a benchmark with several fidelities: pass fidelities=benchmark.fidelities")
    if len(set(fidelities)) < 2:
        raise ValueError(f"{name} needs a benchmark with several fidelities; fidelities={tuple(fidelities)} "
                         f"has only {len(set(fidelities))} ({otherwise})")
    return tuple(sorted(set(int(f) for f in fidelities)))


class Hyperband(Optimizer):
    """Hyperband with random configurations from the space's sampler."""

    name = "hb"
    summary = "Hyperband (eta 3) over the benchmark's fidelities; needs fidelities=benchmark.fidelities"

    multi_fidelity = True  # the experiment runner passes fidelities=benchmark.fidelities
    SETTINGS = {
        "fidelities": Setting(list, "the benchmark's fidelities (epochs) the brackets use; at least two", low=1,
                              optional=True),
        "eta": Setting(int, "the halving rate: the best 1/eta of each rung is promoted", low=2),
    }

    def __init__(self, space, seed=0, *, fidelities=None, eta: int = 3):
        super().__init__(space, seed)
        self.fidelities = several_fidelities(self.name, fidelities, "Hyperband would be plain random search")
        self.eta = int(eta)
        self.brackets = schedule(self.fidelities, self.eta)
        self._active: list[_Bracket] = []
        self._started = 0
        self._pending: dict[int, tuple[_Bracket, Configuration]] = {}

    def _ask(self, number: int) -> Trial:
        bracket = next((b for b in self._active if b.has_work()), None)
        if bracket is None:
            bracket = _Bracket(self.brackets[self._started % len(self.brackets)])
            self._started += 1
            self._active.append(bracket)
        configuration = bracket.issue(self._new_configuration)
        trial = Trial(configuration.arch, bracket.budget)
        self._pending[number] = (bracket, configuration)
        return trial

    def _tell(self, trial: Trial, observation: Observation) -> None:
        bracket, configuration = self._pending.pop(trial.number)
        self._observe(configuration, trial.fidelity, observation)
        bracket.record(configuration, observation)
        if bracket.finished:
            self._active.remove(bracket)

    def _new_configuration(self) -> Configuration:
        """A new configuration for the first rung of a bracket."""
        return Configuration(self.space.sample(self.rng))

    def _observe(self, configuration: Configuration, budget: int, observation: Observation) -> None:
        """Hook for model-based subclasses: every outcome, before successive halving uses it."""

