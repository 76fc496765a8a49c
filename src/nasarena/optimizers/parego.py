"""Random scalarisation (ParEGO, Knowles 2006) on top of the single-objective TPE, SMAC and BANANAS.

ParEGO turns a multi-objective search into a sequence of single-objective ones: at every ask it
draws a new weight vector ``w`` uniformly from the simplex (from the optimizer's seeded
generator), normalises every told objective vector by the running minimum and maximum of each
objective (``f`` in [0, 1]; an objective with no spread yet counts 0), and scores each told
trial by the augmented Chebyshev scalarisation

    s = max_j w_j f_j + rho * sum_j w_j f_j     (minimised; rho = 0.05, Knowles' value),

which, unlike a weighted sum, reaches the non-convex parts of a front. The wrapped
single-objective optimizer (not a copy: the registered TPE, SMAC or BANANAS class itself, with
its own settings) maximises ``1 + rho - s``, in [0, 1 + rho], so that an invalid architecture,
which the wrapped optimizers count as accuracy 0, stays the worst. Before each ask the wrapper
hands the new values of every told trial to the wrapped optimizer's ``_rescore`` (TPE builds its
densities at every ask anyway; SMAC refits its forest and searches its acquisition again; BANANAS
retrains its ensemble), so each proposal is the wrapped optimizer's answer to one weight vector,
as in ParEGO. Until a trial has been told, the wrapped optimizer proposes as it does at its
start (random). A ``feasible=False`` observation (a run's constraint) passes through: TPE and
BANANAS have a constrained mode; SMAC has none.

What limits ParEGO-TPE on NB201: TPE samples from its densities with replacement, and its good
set concentrates on a few cells, so most of its proposals are cells told already (48-72 distinct
cells in 300 asks; SMAC and BANANAS never propose a configuration twice). Answering such repeats
from memory and asking TPE again was tried and left out: on nb201-cifar10, 300 evaluations, the
median normalised hypervolume of the validation front went from 0.528 to 0.541 (10 retries per
ask) or 0.553 (50) with error and parameters, against 0.585 for mo-rs, and not measurably up
with error and pixel3 latency, at 9x to 90x the CPU per evaluation (2026-11-27, seeds 0-5).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .bananas import Bananas
from .base import Observation, Optimizer, Setting, Trial, objectives_of
from .smac import SMAC
from .tpe import TPE

#: Knowles' augmentation weight: keeps weakly dominated points from tying with the front.
RHO = 0.05


def augmented_chebyshev(normalised: np.ndarray, weights: np.ndarray, rho: float) -> np.ndarray:
    """ParEGO's scalarisation of rows of normalised objectives (minimised)."""
    weighted = normalised * weights
    return weighted.max(axis=1) + rho * weighted.sum(axis=1)


def normalise_running(vectors: np.ndarray) -> np.ndarray:
    """Each objective scaled to [0, 1] by its running minimum and maximum (0 without spread)."""
    low, high = vectors.min(axis=0), vectors.max(axis=0)
    span = high - low
    return np.divide(vectors - low, span, out=np.zeros_like(vectors), where=span > 0)


class _ParEGO(Optimizer):
    """A single-objective optimizer (``wrapped``) driven by a new random scalarisation per ask."""

    multi_objective = True
    wrapped: ClassVar[type[Optimizer]]
    SETTINGS: ClassVar[dict[str, Setting]] = {
        "rho": Setting(float, "weight of the sum in the augmented Chebyshev scalarisation", low=0),
    }

    def _wrap(self, rho: float, **settings) -> None:
        self.rho = float(rho)
        self.inner = self.wrapped(self.space, seed=int(self.rng.integers(2**31)), **settings)
        self._numbers: list[int] = []  # the valid told trials, with their objective vectors
        self._vectors: list[tuple[float, ...]] = []

    def _ask(self, number: int) -> Trial:
        if self._vectors:
            vectors = np.array(self._vectors, dtype=np.float64)
            weights = self.rng.dirichlet(np.ones(vectors.shape[1]))
            values = 1.0 + self.rho - augmented_chebyshev(normalise_running(vectors), weights, self.rho)
            self.inner._rescore(np.array(self._numbers), values)
        return self.inner.ask()

    def _tell(self, trial: Trial, observation: Observation) -> None:
        if not observation.valid:
            self.inner.tell(trial, observation)
            return
        vector = objectives_of(observation)
        self._numbers.append(trial.number)
        self._vectors.append(vector)
        vectors = np.array(self._vectors, dtype=np.float64)
        # the value under the latest weights is overwritten by the next ask's rescoring
        value = 1.0 + self.rho - float(augmented_chebyshev(normalise_running(vectors)[-1:], np.full(
            vectors.shape[1], 1.0 / vectors.shape[1]), self.rho)[0])
        self.inner.tell(trial, Observation.from_fields(value, observation.cost_seconds, True, vector,
                                                       observation.feasible))


class ParEGOTPE(_ParEGO):
    name = "parego-tpe"
    summary = "ParEGO: a random augmented-Chebyshev scalarisation per ask, optimised by TPE"
    wrapped = TPE
    SETTINGS = {**_ParEGO.SETTINGS, "n_startup_trials": TPE.SETTINGS["n_startup_trials"]}

    def __init__(self, space, seed=0, *, rho: float = RHO, n_startup_trials: int = 10):
        super().__init__(space, seed)
        self.n_startup_trials = n_startup_trials
        self._wrap(rho, n_startup_trials=n_startup_trials)


class ParEGOSMAC(_ParEGO):
    name = "parego-smac"
    summary = "ParEGO: a random augmented-Chebyshev scalarisation per ask, optimised by SMAC (a refit per ask)"
    wrapped = SMAC
    SETTINGS = {**_ParEGO.SETTINGS, "n_trees": SMAC.SETTINGS["n_trees"],
                "random_fraction": SMAC.SETTINGS["random_fraction"]}

    def __init__(self, space, seed=0, *, rho: float = RHO, n_trees: int = 5, random_fraction: float = 0.33):
        super().__init__(space, seed)
        self.n_trees = n_trees
        self.random_fraction = float(random_fraction)
        self._wrap(rho, n_trees=n_trees, random_fraction=random_fraction)


class ParEGOBananas(_ParEGO):
    name = "parego-bananas"
    summary = "ParEGO: a random augmented-Chebyshev scalarisation per ask, optimised by BANANAS (a retraining per ask)"
    wrapped = Bananas
    SETTINGS = {**_ParEGO.SETTINGS, "num_init": Bananas.SETTINGS["num_init"],
                "num_candidates": Bananas.SETTINGS["num_candidates"]}

    def __init__(self, space, seed=0, *, rho: float = RHO, num_init: int = 10, num_candidates: int = 100):
        super().__init__(space, seed)
        self.num_init = num_init
        self.num_candidates = num_candidates
        self._wrap(rho, num_init=num_init, num_candidates=num_candidates)
