"""Expected hypervolume improvement (EHVI) with a random forest per objective.

EHVI (Emmerich, Giannakoglou and Naujoks 2006, "Single- and multiobjective evolutionary
optimization assisted by Gaussian random field metamodels", IEEE TEC) proposes the architecture
whose predicted objective vector ``Y`` is expected to add the most hypervolume to the current
front: where ParEGO (:mod:`.parego`) optimises one random scalarisation per ask, EHVI scores the
whole front at once.

**The improvement, exactly.** Every objective is minimised; ``r`` is the reference point. A
point ``z`` of the box below ``r`` that no front member weakly dominates is added to the
dominated region by ``Y`` exactly when ``Y <= z``, so the improvement's expectation is the
integral over that non-dominated region ``N`` of ``P(Y <= z)``. With independent Gaussian
predictions per objective, ``P(Y <= z) = prod_j Phi((z_j - mu_j) / sigma_j)``, and over a box
``[l, u]`` the integral factorises into ``prod_j (psi_j(u_j) - psi_j(l_j))`` with
``psi_j(t) = E[(t - Y_j)+] = (t - mu_j) Phi(s) + sigma_j phi(s)``, ``s = (t - mu_j) / sigma_j``
(its derivative is ``Phi``; ``psi(-inf) = 0``; with ``sigma = 0`` it is ``(t - mu)+``, so a
zero-variance EHVI is the plain hypervolume improvement of ``mu``). ``N`` is cut into disjoint
boxes (:func:`nondominated_boxes`): the grid of the front's coordinates on objectives 2..m, and
in each grid cell the part of objective 1 below the best front member that covers the cell (a
cell decomposition as Couckuyt, Deschrijver and Dhaene 2014 use). That is ``n + 1`` boxes for
``n`` front points and two objectives (the exact two-objective EHVI of Emmerich, Deutz and
Klinkenberg 2011), ``(n + 1)**(m - 1)`` for ``m``: exact for any number of objectives, and cheap
for the two or three a run names.

**The optimizer** (``ehvi-rf``): ``n_init`` random architectures first; then at every ask one
random forest per objective (bootstrapped best-split regression trees on the configuration's
category indices, grown by :mod:`.integer_trees` as SMAC's are; the prediction is the mean and
variance over the trees) is fitted on the told validation objective vectors, and the candidate
with the largest EHVI is proposed. Candidates are ``n_candidates`` samples of the space plus
``n_mutations`` mutations (the space's own) of current front members drawn uniformly, each
configuration once and none told or pending. Objectives are normalised by the ideal and nadir
of the told front (the scale runs are scored on, ``nasarena.analysis.pareto``; an objective on
which the front has no spread by the range of all told values), and the reference point is 1.1
in each, as the scoring's. A trial still running (several workers) joins the front with its
predicted mean (the "kriging believer" of Ginsbourger et al. 2010), so the next ask looks
elsewhere. A constrained run's infeasible results train the forests but never join the front;
invalid ones are dropped.

What it optimises is the hypervolume of the told front's whole box: on NB201, whose fronts reach
from the best error to a chance-level cell, the fast and less accurate cells add most of it, and
that is where the search spends its evaluations; ``bench/bench_multiobjective_ehvi.py`` measures
what this costs in the region of interest (the accurate part of the front).

No library reference is available here: Optuna's samplers have no EHVI, and BoTorch's
``qExpectedHypervolumeImprovement`` is not installed.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from ..spaces.protocol import sample_many
from .base import Observation, Optimizer, Setting, Trial, objectives_of
from .categorical_configs import CategoricalConfigs
from .pareto_sort import front_ranks
from .random_forest import RegressionForest

#: The reference point in every normalised objective, as ``nasarena.analysis.pareto`` scores fronts.
REFERENCE = 1.1


def nondominated_boxes(front: np.ndarray, reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper corners (``(k, m)`` each; lower corners may be -inf) of disjoint boxes
    whose union is the part of the box below ``reference`` that no row of ``front`` weakly
    dominates (minimisation)."""
    front = np.asarray(front, dtype=np.float64).reshape(-1, len(reference))
    reference = np.asarray(reference, dtype=np.float64)
    front = front[(front < reference).all(axis=1)]  # a point on or beyond the reference dominates no volume
    grids = [np.concatenate(([-np.inf], np.unique(front[:, j]), [reference[j]])) for j in range(1, len(reference))]
    if grids:
        lows = np.stack(np.meshgrid(*[g[:-1] for g in grids], indexing="ij"), axis=-1).reshape(-1, len(grids))
        highs = np.stack(np.meshgrid(*[g[1:] for g in grids], indexing="ij"), axis=-1).reshape(-1, len(grids))
    else:  # one objective: a single interval below the best value
        lows = highs = np.empty((1, 0))
    covers = (front[None, :, 1:] <= lows[:, None, :]).all(axis=2)  # member i is below cell c on objectives 2..m
    tops = np.where(covers, front[None, :, 0], reference[0]).min(axis=1, initial=reference[0])
    return (np.column_stack([np.full(len(lows), -np.inf), lows]), np.column_stack([tops, highs]))


def _psi(t: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    """``E[(t - Y)+]`` for ``Y ~ N(mean, std**2)``, broadcast; 0 at ``t = -inf``, ``(t - mean)+``
    where ``std`` is 0."""
    finite = np.isfinite(t)
    diff = np.where(finite, t, 0.0) - mean
    positive = std > 0
    scale = np.where(positive, std, 1.0)
    s = diff / scale
    smooth = diff * ndtr(s) + scale * np.exp(-0.5 * s * s) / np.sqrt(2 * np.pi)
    return np.where(finite, np.where(positive, smooth, np.maximum(diff, 0.0)), 0.0)


def expected_hypervolume_improvement(mean: np.ndarray, std: np.ndarray, front: np.ndarray,
                                     reference: np.ndarray) -> np.ndarray:
    """EHVI of each row of independent Gaussian predictions (``mean``, ``std``: ``(c, m)``) over
    ``front`` (``(n, m)``, minimised) up to ``reference`` (see the module docstring)."""
    mean, std = np.atleast_2d(np.asarray(mean, dtype=np.float64)), np.atleast_2d(np.asarray(std, dtype=np.float64))
    lower, upper = nondominated_boxes(front, reference)
    volume = np.ones((len(mean), len(lower)))
    for j in range(mean.shape[1]):
        mu, sigma = mean[:, j:j + 1], std[:, j:j + 1]
        volume *= _psi(upper[None, :, j], mu, sigma) - _psi(lower[None, :, j], mu, sigma)
    return volume.sum(axis=1)


class EHVIForest(Optimizer):
    name = "ehvi-rf"
    summary = ("EHVI: expected hypervolume improvement (exact, box decomposition) of a random forest per "
               "objective over random and front-mutation candidates")
    multi_objective = True

    SETTINGS = {
        "n_init": Setting(int, "random architectures before the forests propose", low=1),
        "n_trees": Setting(int, "trees of each objective's random forest", low=2),
        "n_candidates": Setting(int, "samples of the space scored per ask", low=0),
        "n_mutations": Setting(int, "mutations of front members scored per ask", low=0),
    }

    def __init__(self, space, seed=0, *, n_init: int = 10, n_trees: int = 10, n_candidates: int = 200,
                 n_mutations: int = 300):
        super().__init__(space, seed)
        if n_candidates + n_mutations == 0:
            raise ValueError("n_candidates + n_mutations must be at least 1: there would be nothing to score")
        self.n_init = n_init
        self.n_trees = n_trees
        self.n_candidates = n_candidates
        self.n_mutations = n_mutations
        configs = CategoricalConfigs(space.config_space("categorical"), self.name, "nsga2")
        self._names = configs.names
        self._index = [{value: i + 1 for i, value in enumerate(choices)} for choices in configs.choices]  # 0: inactive
        self._archs: list[object] = []  # the valid told trials, in tell order
        self._rows: list[np.ndarray] = []
        self._vectors: list[tuple[float, ...]] = []
        self._feasible: list[bool] = []
        self._pending: dict[int, tuple[object, np.ndarray]] = {}
        self._seen: set[bytes] = set()  # the rows told or pending
        self._forests: list[RegressionForest] = []
        self._fitted_on = 0

    def _row(self, arch) -> np.ndarray:
        """Category indices of ``arch``'s configuration, shifted by one (0: an inactive parameter)."""
        config = self.space.to_config(arch)
        return np.array([index[config[name]] if name in config else 0 for name, index in zip(self._names, self._index)],
                        dtype=np.int64)

    def _ask(self, number: int) -> Trial:
        if number < self.n_init or not self._vectors:
            arch = self.space.sample(self.rng)
        else:
            arch = self._propose()
        row = self._row(arch)
        self._pending[number] = (arch, row)
        self._seen.add(row.tobytes())
        return Trial.from_fields(arch, None, number)

    def _propose(self) -> object:
        vectors = np.array(self._vectors, dtype=np.float64)
        if self._fitted_on != len(vectors):
            x = np.array(self._rows)
            self._forests = [RegressionForest(self.n_trees, self.rng, "the ehvi-rf optimizer")
                             for _ in range(vectors.shape[1])]
            for forest, y in zip(self._forests, vectors.T):
                forest.fit(x, y)
            self._fitted_on = len(vectors)
        feasible = np.flatnonzero(self._feasible)
        members = feasible[front_ranks(vectors[feasible]) == 0] if len(feasible) else feasible  # the told front
        ideal, scale = _normalisation(vectors[members], vectors)
        front = vectors[members]
        if self._pending:
            believed, _ = self._predict(np.array([row for _, row in self._pending.values()]))
            front = np.vstack([front, believed])
            front = front[front_ranks(front) == 0]
        candidates, rows = self._candidates(members.tolist())
        if not candidates:
            return self.space.sample(self.rng)
        mean, variance = self._predict(rows)
        scores = expected_hypervolume_improvement((mean - ideal) / scale, np.sqrt(variance) / scale,
                                                  (front - ideal) / scale, np.full(len(ideal), REFERENCE))
        return candidates[int(np.argmax(scores))]

    def _predict(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Predicted means and variances, ``(len(rows), objectives)`` each."""
        predictions = [forest.predict(rows) for forest in self._forests]
        return np.column_stack([m for m, _ in predictions]), np.column_stack([v for _, v in predictions])

    def _candidates(self, members: list[int]) -> tuple[list, np.ndarray]:
        """Samples of the space and mutations of the told front's ``members``, each configuration
        once and none told or pending, with their rows."""
        drawn = sample_many(self.space, self.rng, self.n_candidates)
        if members:
            parents = self.rng.integers(len(members), size=self.n_mutations).tolist()
            drawn += [self.space.mutate(self._archs[members[p]], self.rng) for p in parents]
        candidates, rows, seen = [], [], set(self._seen)
        for arch in drawn:
            if not self.space.contains(arch):
                continue
            row = self._row(arch)
            key = row.tobytes()
            if key not in seen:
                seen.add(key)
                candidates.append(arch)
                rows.append(row)
        return candidates, np.array(rows)

    def _tell(self, trial: Trial, observation: Observation) -> None:
        _, row = self._pending.pop(trial.number)
        if not observation.valid:
            return
        self._archs.append(trial.arch)
        self._rows.append(row)
        self._vectors.append(objectives_of(observation))
        self._feasible.append(observation.feasible)


def _normalisation(front: np.ndarray, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ideal and the scale (nadir - ideal) of ``front``; where it has no spread, the range of
    all ``vectors``; where they have none either, 1."""
    low, span = vectors.min(axis=0), np.ptp(vectors, axis=0)
    if len(front):
        front_span = np.ptp(front, axis=0)
        low = np.where(front_span > 0, front.min(axis=0), low)
        span = np.where(front_span > 0, front_span, span)
    return low, np.where(span > 0, span, 1.0)
