"""SMAC3's random-forest surrogate (its ``RandomForest`` with ``log_y=True``), built on scikit-learn trees.

SMAC3 2.x grows scikit-learn regression trees (squared error, every feature a candidate,
``min_impurity_decrease=1e-8``) on bootstrap samples, then replaces each leaf's value by
``log(mean(exp(y)))`` over the bootstrap samples in it: the targets are log-scaled costs, and
averaging on the original scale is what its ``log_y`` option means. A prediction is the mean
and the variance (floored at 1e-10) over the trees. SMAC3 documents random split thresholds
(``splitter="random"``), but does not pass ``splitter`` on to its trees, which therefore take
scikit-learn's default best split (checked with SMAC3 2.4.1: ``estimators_[0].splitter`` is
``"best"``); random thresholds ranked held-out NB201 cells measurably worse (Kendall tau 0.445
vs 0.474 over 20 forests, Mann-Whitney p = 0.01), so the trees here split as SMAC3's do.

The same model, made cheap for the optimizer's inner loops. The trees are grown by
:mod:`.integer_trees` (the same best-split trees, all five at once, on the configurations'
category indices, in compiled loops where numba is installed: several times faster than
scikit-learn's builder on long histories), grown until
pure, without SMAC3's ``max_leaf_nodes=2**20`` (which only switches scikit-learn to its
best-first builder; the grown trees are the same). The leaf values live in an array beside each
tree, and prediction is scikit-learn's compiled ``Tree.apply`` plus a look-up, without its input
validation and thread hand-offs on every call (the acquisition search predicts thousands of
small batches).
"""

from __future__ import annotations

import numpy as np

from ..errors import import_extra
from . import portable_math
from .integer_trees import ThresholdColumns, grow_forest

#: SMAC3's floor of the predicted variance (``AbstractModel._var_threshold``).
VARIANCE_FLOOR = 1e-10
#: SMAC3's ``min_impurity_decrease`` of its trees.
MIN_IMPURITY_DECREASE = 1e-8


class BootstrapForest:
    """Regression trees on bootstrap samples of category indices (non-negative whole numbers); a
    prediction is the mean and variance (floored as SMAC3's) over the trees. Subclasses say how a
    leaf averages the targets of its bootstrap samples (:meth:`leaf_values`)."""

    def __init__(self, n_trees: int, rng: np.random.Generator, owner: str = "the smac optimizer"):
        self.n_trees = n_trees
        self.rng = rng
        import_extra("sklearn.tree", owner)  # the trees are scikit-learn's
        self._trees: list = []
        self._leaf_values: list[np.ndarray] = []
        self._fitted_leaves: list[np.ndarray] = []  # per tree: the leaf of each fitted row, -1 out of bag

    def leaf_terms(self, y: np.ndarray) -> np.ndarray:
        """What each sample of targets ``y`` adds to its leaf (times its bootstrap weight): once a
        fit, the same for every tree."""
        raise NotImplementedError

    def leaf_values(self, leaf: np.ndarray, weight: np.ndarray, terms: np.ndarray, nodes: int) -> np.ndarray:
        """Each node's value from the samples (their :meth:`leaf_terms`, bootstrap ``weight``) in its ``leaf``."""
        raise NotImplementedError

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        n = len(x)
        weights = np.stack([np.bincount(self.rng.integers(n, size=n), minlength=n)
                            for _ in range(self.n_trees)]).astype(np.float64)
        grown = grow_forest(ThresholdColumns(x), y, weights, self.rng, MIN_IMPURITY_DECREASE)
        terms = self.leaf_terms(y)
        self._trees, self._leaf_values, self._fitted_leaves = [], [], []
        for (tree, leaf), weight in zip(grown, weights):
            kept = leaf >= 0
            self._trees.append(tree)
            self._fitted_leaves.append(leaf)
            self._leaf_values.append(self.leaf_values(leaf[kept], weight[kept], terms[kept], tree.node_count))

    def predict(self, x: np.ndarray, fitted: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance over the trees of each row's prediction. ``fitted``, when given: for
        each row of ``x``, the row of the last fit's ``x`` it equals, or -1. A tree's leaf of a
        fitted row in its bootstrap is known from the growth (the same leaf its ``apply`` finds:
        the row's values are present in every node on its path, and the thresholds lie between
        present values), so only the other rows walk the tree: SMAC predicts every
        configuration it has evaluated at every refit, tens of thousands late in a cached run."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        predictions = np.empty((len(self._trees), len(x)))
        for number, (tree, values, fitted_leaves) in enumerate(zip(self._trees, self._leaf_values, self._fitted_leaves)):
            if fitted is None:
                leaves = tree.apply(x)
            else:
                leaves = np.where(fitted >= 0, fitted_leaves[fitted], -1)
                walk = leaves < 0
                leaves[walk] = tree.apply(x[walk])
            predictions[number] = values[leaves]
        return predictions.mean(axis=0), np.maximum(predictions.var(axis=0), VARIANCE_FLOOR)


class LogForest(BootstrapForest):
    """SMAC3's forest of log costs: leaves averaged on the exp scale, ``log(mean(exp(y)))``."""

    def leaf_terms(self, y: np.ndarray) -> np.ndarray:
        return portable_math.exp(y)

    def leaf_values(self, leaf: np.ndarray, weight: np.ndarray, terms: np.ndarray, nodes: int) -> np.ndarray:
        mass = np.bincount(leaf, weights=weight, minlength=nodes)
        total = np.bincount(leaf, weights=weight * terms, minlength=nodes)
        values = np.zeros(nodes)
        filled = mass > 0
        values[filled] = portable_math.log(total[filled]) - portable_math.log(mass[filled])
        return values


class RegressionForest(BootstrapForest):
    """A plain regression forest: each leaf the mean of its samples (``ehvi-rf``'s per objective)."""

    def leaf_terms(self, y: np.ndarray) -> np.ndarray:
        return y

    def leaf_values(self, leaf: np.ndarray, weight: np.ndarray, terms: np.ndarray, nodes: int) -> np.ndarray:
        mass = np.bincount(leaf, weights=weight, minlength=nodes)
        total = np.bincount(leaf, weights=weight * terms, minlength=nodes)
        return np.divide(total, mass, out=np.zeros_like(total), where=mass > 0)
