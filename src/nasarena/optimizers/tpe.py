"""TPE (Bergstra et al. 2011) on categorical encodings: Optuna's univariate estimator, vectorised.

The algorithm is Optuna's ``TPESampler`` with its defaults, univariate as hyperopt's was
(the NB101 paper's TPE); :class:`~.tpe_optuna.TPEOptuna` (``tpe-optuna``) runs the library
itself and is the reference this one is tested against (``tests/test_vectorised_optimizers.py``,
``bench/bench_equivalence.py``). Per ask, after ``n_startup_trials`` random trials:

* the told trials are ranked by accuracy (ties: earlier told first) and the best
  ``min(ceil(n / 10), 25)`` form the good set, the rest the bad set; trials asked but not yet
  told (parallel workers) join the bad set, Optuna's ``constant_liar`` (its default since 5.0,
  set explicitly in ``tpe-optuna``);
* each set is a Parzen mixture with one kernel per trial plus a uniform prior kernel of weight
  1; good trials weigh 1, bad ones Optuna's ramp (older trials less once there are more than
  25); a trial's kernel over a parameter with ``c`` choices puts ``1 + 1 / K`` on its own
  value and ``1 / K`` on every other one, normalised (``K``: kernels of the set);
* for every parameter, 24 candidates are drawn from the good mixture and the one with the
  largest ``log l(x) - log g(x)`` is taken; a parameter's mixtures hold only the trials where it
  was active, and a suggested value is dropped where a condition makes it inactive (Optuna's
  define-by-run suggestion, through :class:`~.config_bridge.OptunaBridge` in ``tpe-optuna``).

Why not Optuna itself: its sampler rebuilds every parameter's estimator from trial objects,
one parameter at a time, so a suggestion costs milliseconds that grow with the history (10-36
ms per NB101 evaluation). Here each parameter's mixture over categories is a weighted count,
so one ``bincount`` over a preallocated matrix of the told configurations gives every
parameter's good and bad densities at once; drawing a candidate from the mixture (a kernel,
then a category from it) is drawing from that marginal, so the candidate distribution and the
acquisition are Optuna's exactly: after the same results, every density equals the one Optuna's
sampler builds to 1e-12 (``tests/test_vectorised_optimizers.py``). The random stream is
nasarena's, and it matters beyond the start-up trials: categories that score alike under
``l / g`` (those no trial chose, say) are decided by which candidate was drawn first, so even from
the same start-up trials the two trajectories part within a few proposals; the equivalence
study compares distributions.

Encodings: parameters categorical, ordinal (unordered, as Optuna treats it) or constant, with
equality or membership conditions (:class:`~.categorical_configs.CategoricalConfigs`): the
``categorical`` encoding of every space, DARTS' conditional one included. Encodings with numeric
parameters (NB101's ``continuous`` and ``variable_size``) and multivariate TPE are
``tpe-optuna``'s. Invalid architectures are told as accuracy 0, the original convention.

Constrained mode: a trial told ``feasible=False`` (the run's constraint violated) ranks below
every feasible one, so it joins the bad set while any feasible trial is told; with every trial
feasible the ranking, and so the trajectory, is the unconstrained one bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from .base import Observation, Optimizer, Setting, Trial
from .categorical_configs import CategoricalConfigs, Rows

#: Candidates drawn from the good density per parameter (Optuna's ``n_ei_candidates``).
CANDIDATES = 24
#: Weight of the uniform prior kernel (Optuna's ``prior_weight``).
PRIOR_WEIGHT = 1.0
#: Trials that always keep full weight in the bad density (Optuna's ``default_weights``).
FLAT_WEIGHTS = 25


def good_set_size(told: int) -> int:
    """Trials in the good density: Optuna's ``default_gamma``, ``min(ceil(n / 10), 25)``."""
    return min(math.ceil(0.1 * told), 25)


def ramp_weights(active: np.ndarray) -> np.ndarray:
    """Optuna's ``default_weights`` for each parameter's observations (``active``: trials x parameters,
    trials in trial-number order): flat up to 25 observations, then a ramp from ``1 / n`` for the
    oldest up to 1, with the newest 25 at 1; 0 where the parameter was inactive."""
    count = active.sum(axis=0)
    rank = np.cumsum(active, axis=0) - 1  # among the parameter's observations
    ramp_length = count - FLAT_WEIGHTS  # observations on the ramp (none below 26)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(ramp_length > 1, (1.0 - 1.0 / count) / (ramp_length - 1), 0.0)
        weights = np.where(rank < ramp_length, 1.0 / count + step * rank, 1.0)
    return np.where(active, weights, 0.0)


class CategoricalParzen:
    """Every parameter's Parzen mixture over its categories, as one (parameters x categories) table.

    ``sizes`` are the parameters' numbers of categories; columns beyond a parameter's size
    have probability 0.
    """

    def __init__(self, sizes: np.ndarray):
        self.sizes = sizes
        self.width = int(sizes.max())
        self.offsets = np.arange(len(sizes)) * self.width
        self.real = np.arange(self.width)[None, :] < sizes[:, None]

    def probabilities(self, configurations: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """p[j, c] of each parameter's mixture: one kernel per trial where the parameter was active
        (``configurations``: category indices, -1 inactive; ``weights`` per entry, 0 where inactive)
        and the uniform prior kernel."""
        weight_sums = weights.sum(axis=0)
        total = weight_sums + PRIOR_WEIGHT
        spread = PRIOR_WEIGHT / ((configurations >= 0).sum(axis=0) + 1)  # each kernel's mass on every category
        counts = np.bincount((np.maximum(configurations, 0) + self.offsets).ravel(), weights=weights.ravel(),
                             minlength=len(self.sizes) * self.width).reshape(len(self.sizes), self.width)
        per_trial = ((weight_sums * spread)[:, None] + counts) / (total * (self.sizes * spread + 1.0))[:, None]
        prior = (PRIOR_WEIGHT / total / self.sizes)[:, None]
        return np.where(self.real, per_trial + prior, 0.0)


class TPE(Optimizer):
    name = "tpe"
    summary = "TPE: Optuna's univariate estimator (defaults) vectorised over a categorical encoding"
    reference = "tpe-optuna"

    SETTINGS = {
        "n_startup_trials": Setting(int, "random trials before TPE's densities are used", low=0),
        "encoding": Setting(str, "the space's ConfigSpace encoding TPE searches (categorical parameters only)"),
    }

    def __init__(self, space, seed=0, *, n_startup_trials: int = 10, encoding: str = "categorical"):
        super().__init__(space, seed)
        self.n_startup_trials = n_startup_trials
        self.encoding = encoding
        self._configs = CategoricalConfigs(space.config_space(encoding), "tpe", "tpe-optuna")
        self._sizes = self._configs.sizes
        self._parzen = CategoricalParzen(self._sizes)
        self._told = Rows(len(self._sizes))  # category indices of the told trials, in tell order
        self._accuracies: list[float] = []
        self._numbers: list[int] = []  # their trial numbers (tell order may differ from ask order)
        self._infeasible: list[bool] = []  # the run's constraint violated (constrained mode)
        self._pending: dict[int, np.ndarray] = {}

    def _ask(self, number: int) -> Trial:
        if self._told.count < self.n_startup_trials:
            vector = self._configs.random(self.rng)
        else:
            vector = self._suggest()
        self._pending[number] = vector
        return Trial(self.space.from_config(self._configs.config(vector), self.encoding))

    def _densities(self) -> tuple[np.ndarray, np.ndarray]:
        """Every parameter's good and bad density over its categories (parameters x categories)."""
        told, numbers = self._told.array, np.array(self._numbers)
        good_count = min(good_set_size(len(told)), len(told))
        if any(self._infeasible):  # constrained: infeasible trials rank below every feasible one
            infeasible = np.array(self._infeasible)
            ranked = np.lexsort((-np.array(self._accuracies), infeasible))  # stable, as the argsort below
            if not infeasible.all():  # the good set holds feasible trials only
                good_count = min(good_count, int((~infeasible).sum()))
        else:
            ranked = np.argsort(-np.array(self._accuracies), kind="stable")
        good = told[ranked[:good_count]][np.argsort(numbers[ranked[:good_count]])]
        bad = np.concatenate([told[ranked[good_count:]], np.array(list(self._pending.values()), dtype=np.int64)
                              .reshape(-1, len(self._sizes))])  # Optuna's constant liar: pending trials are bad
        bad_numbers = np.concatenate([numbers[ranked[good_count:]], np.fromiter(self._pending, dtype=np.int64)])
        bad = bad[np.argsort(bad_numbers)]
        return (self._parzen.probabilities(good, (good >= 0).astype(np.float64)),
                self._parzen.probabilities(bad, ramp_weights(bad >= 0)))

    def _suggest(self) -> np.ndarray:
        """The argmax of ``l / g`` over each parameter's candidates drawn from ``l``."""
        good_p, bad_p = self._densities()
        cumulative = np.cumsum(good_p, axis=1)
        draws = self.rng.random((CANDIDATES, len(self._sizes)))
        candidates = np.minimum((cumulative[None, :, :] < draws[:, :, None]).sum(axis=2), self._sizes - 1)
        columns = np.arange(len(self._sizes))
        with np.errstate(divide="ignore"):
            score = np.log(good_p[columns, candidates]) - np.log(bad_p[columns, candidates])
        chosen = candidates[np.argmax(score, axis=0), columns]
        return self._configs.settle(chosen[None, :])[0]

    def _tell(self, trial: Trial, observation: Observation) -> None:
        self._told.append(self._pending.pop(trial.number))
        self._accuracies.append(observation.valid_accuracy if observation.valid else 0.0)
        self._numbers.append(trial.number)
        self._infeasible.append(not observation.feasible)

    def _rescore(self, numbers: np.ndarray, values: np.ndarray) -> None:
        """Replace the accuracies of the told trials ``numbers`` by ``values`` (ParEGO's new
        scalarisation, :mod:`.parego`); the densities are built afresh at every ask anyway."""
        position = {number: index for index, number in enumerate(self._numbers)}
        for number, value in zip(numbers.tolist(), values.tolist()):
            self._accuracies[position[number]] = value
