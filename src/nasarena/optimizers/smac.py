"""SMAC (Hutter et al. 2011) as SMAC3 2.x's hyperparameter-optimisation facade runs it, vectorised.

The algorithm is the one :class:`~.smac3.SMAC3` (``smac3``) gets from SMAC3 itself with the NB101
paper's settings, and that optimizer is the reference this one is tested against
(``bench/bench_equivalence.py``, ``bench/bench_smac_variable_size.py``,
``tests/test_vectorised_optimizers.py``). Configurations are the value indices of an encoding
(``space.config_space(encoding)``) held by :class:`~.categorical_configs.CategoricalConfigs`:
categorical parameters, conditional ones such as DARTS' included, and small integers such as
``num_vertices`` of NB101's ``variable_size`` encoding, whose edges and ops are active above a
vertex count (integers: see below). That is also how SMAC3 hands them to its model (an inactive
parameter as one more category):

* **start**: one random configuration (the original scripts' ``initial_incumbent: RANDOM``);
* **intensification** (:mod:`.intensifier`): with ``repeated_evaluations`` = 1 (the NB101
  paper's setting) every configuration is evaluated once; with more (the anytime paper's
  variant, 3), SMAC3's intensifier races each new configuration against the incumbent on up to
  that many seeds, re-evaluating the incumbent between new configurations;
* **model** (refitted after every ``retrain_after`` proposals, once new results arrived):
  one row per finished trial (a configuration evaluated on several seeds appears once per
  seed, as in SMAC3's run-history encoder), costs ``1 - validation accuracy`` (invalid
  architectures cost 1) scaled as SMAC3's log-scaled run-history encoder does (to ``(0, 1]`` above a floor set by the 5th percentile, then the log),
  and a :class:`~.random_forest.LogForest` of ``n_trees`` trees on them;
* **acquisition**: log expected improvement over the incumbent, whose value is the lowest
  predicted cost among the evaluated configurations;
* **acquisition search** (SMAC3's ``LocalAndSortedRandomSearch``): 5,000 random configurations
  scored, and local searches started from the 10 best of them and from the 10 proposed ones
  (evaluated or pending, SMAC3's run history) with the lowest predicted cost; a local search moves to the first neighbour
  (one active parameter changed, children it activates at their defaults, neighbours in
  random order) that improves the acquisition, walks onto
  an equal neighbour when none does (at most 10 such plateau steps) and stops at a local
  optimum; the end points, best first, are the challengers;
* **proposals** (SMAC3's ``ChallengerList`` and config selector): each is a random
  configuration with probability ``random_fraction``, otherwise the next challenger;
  configurations already proposed are skipped; when the challengers run out, random ones
  fill up to ``retrain_after``.

What makes it fast (``bench/bench_optimizer_cpu.py``): configurations are rows of an integer
matrix, not ``Configuration`` objects compared attribute by attribute; the 5,000 random
candidates are one array; all local searches advance in lockstep, every active search's whole
neighbourhood (its real changes only) scored in one forest call; the forest's five trees grow
together, depth by depth, on the category indices (:mod:`.integer_trees`), and predict without
scikit-learn's per-call validation. SMAC3's local search scans a neighbourhood in growing batches
and stops at the first improvement; scoring it whole and taking the first improvement in the
same random order chooses the same neighbour. The random stream is nasarena's, so the same seed
does not give SMAC3's trajectory; the equivalence study compares distributions.

**Integer parameters** (NB101's ``num_vertices``, 2..7), read from SMAC3 2.4.1 and ConfigSpace
1.2: an integer with at most ``INTEGER_VALUES`` values, unconditional and not log-scaled, is
held as its values in order (index ``i`` is ``lower + i``), and the greater-than and less-than
conditions on it are tests of that column. Where this matches SMAC3, and where not:

* the *model*: SMAC3 gives the forest an integer's ConfigSpace vector value, ``i / (values - 1)``,
  as a numeric feature (``get_types``: type 0, bounds (0, 1); imputation concerns only
  conditional parameters, and the integer has no condition), and its scikit-learn trees split
  every feature at midpoints between values present in a node. The index is an increasing affine
  map of that value, so the same splits are found and an unseen value falls on the same side:
  the same trees (categorical parameters were always split this way, by SMAC3 as here);
* the *neighbourhood* (``get_one_exchange_neighbourhood`` with SMAC3's ``num_neighbors=8``):
  an integer with at most 9 values gets every other value as a neighbour (``quantized_neighborhood``
  returns them all when 8 or more are asked for; the standard deviation, SMAC3 2.4's adaptive one
  included, plays no part), shuffled, as a categorical parameter does: here it is one more
  parameter whose every other value is a move. Integers with more values (neighbours drawn from
  a normal around the value) are refused. Two differences remain. The *order*: ConfigSpace picks
  a parameter uniformly, then its next neighbour, where here every move of the configuration is
  shuffled together, so a parameter with many values comes first more often here (a 7-vertex
  cell: ``num_vertices`` first with probability 5/36 against ConfigSpace's 1/27, one of the five
  ops 10/36 against 5/27); it is the order this module always used for categorical
  parameters of three or more values, kept so that their runs stay as they were. And SMAC3 2.4.1's
  local search keeps only neighbours that differ from their configuration in exactly one
  entry of the vector, comparing inactive entries (NaN) as different: a configuration with an
  inactive parameter (``variable_size`` below 7 vertices, every DARTS one) gets no neighbour at
  all, and from 7 vertices every change of ``num_vertices`` (it deactivates edges) is dropped.
  That check came with 2.4's skipping of values already visited (its pull request 1299); earlier
  SMAC, as the anytime paper ran it, and this module take every neighbour, children settled as
  ConfigSpace settles them. ``smac3`` on ``variable_size`` therefore searches locally only among
  7-vertex cells; ``bench/bench_smac_variable_size.py`` measures what that does to final regret;
* *random* configurations (the initial one, the 5,000 of each acquisition search, the random
  interleaving): ConfigSpace draws an integer uniformly over its values, as here.

Not here (``smac3`` runs them): float parameters (NB101's ``continuous`` encoding), integers
with more than ``INTEGER_VALUES`` values, conditional or log-scaled integers.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from . import portable_math
from .base import Observation, Optimizer, Setting, Trial
from .categorical_configs import CategoricalConfigs, Rows
from .intensifier import Intensifier
from .random_forest import LogForest

#: Random configurations scored per acquisition search (SMAC3 1.x's ``acq_opt_challengers``).
ACQUISITION_CHALLENGERS = 5000
#: Local searches started from the best random configurations, and as many from evaluated ones.
LOCAL_SEARCH_STARTS = 10
#: Steps onto equally good neighbours a local search may take (SMAC3's ``n_steps_plateau_walk``).
PLATEAU_STEPS = 10
#: The most values an integer parameter may have: SMAC3 asks ConfigSpace for 8 neighbours of a
#: parameter, which are then every other value (more values: sampled ones, not modelled here).
INTEGER_VALUES = 8 + 1
#: SMAC3's log-scaled encoder: the percentile below the minimum cost that sets the scale's floor.
SCALE_PERCENTILE = 5
VERY_SMALL = 1e-10


def log_scaled(costs: np.ndarray) -> np.ndarray:
    """Costs as SMAC3's ``RunHistoryLogScaledEncoder`` gives them to the model."""
    low, high = costs.min(), costs.max()
    floor = low - (np.percentile(costs, SCALE_PERCENTILE) - low) - VERY_SMALL
    if floor == high:
        floor *= 1 - VERY_SMALL
    return portable_math.log((costs - floor) / (high - floor))


def log_expected_improvement(mean: np.ndarray, variance: np.ndarray, best: float) -> np.ndarray:
    """SMAC3's ``EI(log=True)`` of predicted log costs against the incumbent's ``best`` (xi = 0)."""
    std = np.sqrt(variance)
    v = (best - mean) / std
    return math.exp(best) * ndtr(v) - portable_math.exp(0.5 * variance + mean) * ndtr(v - std)


class SMAC(Optimizer):
    """SMAC3's algorithm on integer configuration matrices; settings are the NB101 paper's SMAC's."""

    name = "smac"
    summary = ("SMAC: SMAC3's random forest (5 trees), log EI and local search, vectorised; categorical and "
               "variable-size encodings")
    reference = "smac3"

    SETTINGS = {
        "encoding": Setting(str, "the space's ConfigSpace encoding SMAC searches (categorical parameters and "
                            "integers of up to 9 values: NB101's categorical and variable_size)"),
        "repeated_evaluations": Setting(int, "seeds a configuration may be evaluated on (the intensifier's "
                                        "max_config_calls; 3 in the anytime paper)", low=1),
        "n_trees": Setting(int, "trees of the random forest", low=1),
        "random_fraction": Setting(float, "probability of a random configuration instead of the acquisition's",
                                   low=0, high=1),
        "retrain_after": Setting(int, "configurations proposed between refits of the forest", low=1),
    }

    def __init__(self, space, seed=0, *, encoding: str = "categorical", repeated_evaluations: int = 1,
                 n_trees: int = 5, random_fraction: float = 0.33, retrain_after: int = 8):
        super().__init__(space, seed)
        self.encoding = encoding
        self.repeated_evaluations = repeated_evaluations
        self.n_trees = n_trees
        self.random_fraction = float(random_fraction)
        self.retrain_after = retrain_after
        self._configs = CategoricalConfigs(space.config_space(encoding), "smac", "smac3",
                                           max_integer_values=INTEGER_VALUES)
        self._sizes = self._configs.sizes
        self._neighbour_moves = np.array([(j, v) for j, size in enumerate(self._sizes) for v in range(size)])
        self._proposed: set[bytes] = set()
        self._rows = Rows(len(self._sizes))  # every proposed configuration, in proposal order
        self._trial_rows: list[int] = []  # per trial (ask number): the row of its configuration
        self._trial_keys: list[int] = []  # per trial: the intensifier's key (seed) it runs on
        self._costs: list[float] = []  # per trial; NaN until told
        self._told = 0
        self._intensifier = Intensifier(repeated_evaluations, self._propose)
        self._trained_on = -1
        self._challengers: list[np.ndarray] = []
        self._yielded = 0  # proposals since the last acquisition search
        self._forest = LogForest(self.n_trees, self.rng)  # scikit-learn is imported (or missed) here

    # -- proposals -----------------------------------------------------------------------------
    def _ask(self, number: int) -> Trial:
        row, key = self._intensifier.next_trial()
        self._trial_rows.append(row)
        self._trial_keys.append(key)
        self._costs.append(np.nan)
        return Trial(self.space.from_config(self._configs.config(self._rows.array[row]), self.encoding))

    def _propose(self) -> int:
        """A new configuration for the intensifier (SMAC3's configuration selector): its row."""
        vector = self._next_configuration()
        self._proposed.add(vector.tobytes())
        self._rows.append(vector)
        return self._rows.count - 1

    def _random(self, count: int | None = None) -> np.ndarray:
        return self._configs.random(self.rng, count)

    def _next_configuration(self) -> np.ndarray:
        if not self._told:  # the initial design, and whatever is asked before a first result
            return self._unproposed_random()
        if self._yielded >= self.retrain_after or self._trained_on == -1:
            if self._told != self._trained_on:
                self._refit()
            self._challengers = self._search()[::-1]  # best last, for pop()
            self._yielded = 0
        self._yielded += 1
        while True:
            if self.rng.random() < self.random_fraction:
                candidate = self._random()
            elif self._challengers:
                candidate = self._challengers.pop()
            else:
                return self._unproposed_random()
            if candidate.tobytes() not in self._proposed:
                return candidate

    def _unproposed_random(self) -> np.ndarray:
        for _ in range(10_000):
            candidate = self._random()
            if candidate.tobytes() not in self._proposed:
                return candidate
        raise RuntimeError(f"SMAC found no configuration left to evaluate: the {self.encoding!r} configuration "
                           "space looks exhausted")

    # -- model and acquisition -----------------------------------------------------------------
    def _refit(self) -> None:
        costs = np.array(self._costs)
        told = ~np.isnan(costs)
        rows = np.array(self._trial_rows)[told]
        proposals = self._model_input(self._rows.array)  # every proposal, once
        self._forest.fit(proposals[rows], log_scaled(costs[told]))
        fitted = np.full(self._rows.count, -1)
        fitted[rows] = np.arange(len(rows))  # each proposal's row (one of them) in the fit
        self._predicted = self._forest.predict(proposals, fitted)[0]
        self._best = float(self._predicted[rows].min())  # the incumbent's value: SMAC3's predicted best
        self._trained_on = self._told

    def _model_input(self, configurations: np.ndarray) -> np.ndarray:
        """What the forest sees: an inactive parameter as one more category (SMAC3's imputation)."""
        if not self._configs.conditions:
            return configurations
        return np.where(configurations < 0, self._sizes, configurations)

    def _acquisition(self, configurations: np.ndarray) -> np.ndarray:
        return log_expected_improvement(*self._forest.predict(self._model_input(configurations)), self._best)

    def _lowest(self, keys: np.ndarray, count: int) -> np.ndarray:
        """Indices of the ``count`` lowest ``keys``, ascending, ties in random order (SMAC3 sorts all
        with ``lexsort`` and a random key; only the candidates up to the ``count``-th value, ties
        included, need sorting)."""
        if len(keys) > count:
            candidates = np.flatnonzero(keys <= np.partition(keys, count - 1)[count - 1])
        else:
            candidates = np.arange(len(keys))
        order = np.lexsort((self.rng.random(len(candidates)), keys[candidates]))
        return candidates[order[:count]]

    def _search(self) -> list[np.ndarray]:
        """Challengers, best first: the end points of the local searches."""
        randoms = self._random(ACQUISITION_CHALLENGERS)
        best_randoms = randoms[self._lowest(-self._acquisition(randoms), LOCAL_SEARCH_STARTS)]
        previous = self._rows.array
        if len(previous) < LOCAL_SEARCH_STARTS:
            starts = np.concatenate([self._random(LOCAL_SEARCH_STARTS - len(previous)), previous, best_randoms])
        else:
            if len(self._predicted) < len(previous):  # proposed since the refit (no result came in meanwhile)
                extra = self._forest.predict(self._model_input(previous[len(self._predicted):]))[0]
                self._predicted = np.concatenate([self._predicted, extra])
            lowest = self._lowest(self._predicted, LOCAL_SEARCH_STARTS)
            starts = np.concatenate([previous[lowest], best_randoms])
        starts = np.unique(starts, axis=0)
        ends, values = self._local_search(starts)
        order = self.rng.permutation(len(ends))
        ends, values = ends[order], values[order]
        return list(ends[np.argsort(-values, kind="stable")])

    def _neighbours(self, points: np.ndarray, parameter: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row ``i`` of ``points`` with parameter ``parameter[i, m]`` set to ``value[i, m]``, settled
        (children it activates at their defaults, those it deactivates dropped), for every ``m``;
        and whether each is a real change: of an active parameter, to another of its values (a
        one-exchange neighbour, ConfigSpace's ``get_one_exchange_neighbourhood``)."""
        rows = np.arange(len(points))[:, None]
        was = points[rows, parameter]
        real = (was >= 0) & (was != value)
        neighbours = np.repeat(points[:, None, :], parameter.shape[1], axis=1)
        neighbours[rows, np.arange(parameter.shape[1])[None, :], parameter] = value
        neighbours[real] = self._configs.settle(neighbours[real])
        return neighbours, real

    def _local_search(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """First-improvement local searches with plateau walks, all advanced together."""
        points = points.copy()
        values = self._acquisition(points)
        plateau_steps = np.zeros(len(points), dtype=np.int64)
        active = np.ones(len(points), dtype=bool)
        moves = self._neighbour_moves
        while active.any():
            searching = np.flatnonzero(active)
            # every move of every active search, in a random order per search; moves that keep the value are dropped
            order = np.argsort(self.rng.random((len(searching), len(moves))), axis=1)
            neighbours, real = self._neighbours(points[searching], moves[order, 0], moves[order, 1])
            # only real changes are scored (a move to the current value, or of an inactive
            # parameter, is the point itself: 26 of NB101's 57 moves)
            scores = np.full(real.shape, -np.inf)
            scores[real] = self._acquisition(neighbours[real])
            current = values[searching][:, None]
            better = real & (scores > current)
            equal = real & (scores == current)
            improves = better.any(axis=1)
            walks = ~improves & equal.any(axis=1) & (plateau_steps[searching] < PLATEAU_STEPS)
            moving = improves | walks
            chosen = np.where(improves, np.argmax(better, axis=1), np.argmax(equal, axis=1))[moving]
            movers = searching[moving]
            points[movers] = neighbours[np.flatnonzero(moving), chosen]
            values[movers] = scores[np.flatnonzero(moving), chosen]
            plateau_steps[searching[walks]] += 1
            active[searching[~moving]] = False  # a local optimum, or out of plateau steps
            active[plateau_steps >= PLATEAU_STEPS] = False
        return points, values

    def _tell(self, trial: Trial, observation: Observation) -> None:
        cost = 1.0 - (observation.valid_accuracy if observation.valid else 0.0)
        self._costs[trial.number] = cost
        self._intensifier.tell(self._trial_rows[trial.number], self._trial_keys[trial.number], cost)
        self._told += 1

    def _rescore(self, numbers: np.ndarray, values: np.ndarray) -> None:
        """Replace the accuracies of the told trials ``numbers`` by ``values`` (ParEGO's new
        scalarisation, :mod:`.parego`) and refit the forest before the next proposal. The
        intensifier keeps the costs it was told: with one evaluation per configuration (what
        ParEGO runs) it only hands out new configurations."""
        for number, value in zip(numbers.tolist(), values.tolist()):
            self._costs[number] = 1.0 - value
        self._trained_on = -1  # the model is stale: search (and refit) at the next proposal
