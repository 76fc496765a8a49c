"""SMAC's trees grown depth by depth on category indices are scikit-learn's best-split trees."""

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.tree import DecisionTreeRegressor  # noqa: E402

from nasarena.optimizers.integer_trees import ThresholdColumns, grow_forest  # noqa: E402
from nasarena.optimizers.jit import numba_installed  # noqa: E402

EPSILON = np.finfo(np.float64).eps
#: Both builders: the array one and, where numba is installed, the compiled one.
BUILDERS = [False, pytest.param(True, marks=pytest.mark.skipif(not numba_installed(),
                                                             reason="numba is not installed"))]


def _bootstrap(rng, n, trees):
    return np.stack([np.bincount(rng.integers(n, size=n), minlength=n) for _ in range(trees)]).astype(np.float64)


def _leaf_means(tree, x, y, weights):
    """Each node's weighted mean target over the training rows in it (0 where none)."""
    leaves = tree.apply(np.ascontiguousarray(x, dtype=np.float32))
    mass = np.bincount(leaves, weights=weights, minlength=tree.node_count)
    total = np.bincount(leaves, weights=weights * y, minlength=tree.node_count)
    return np.divide(total, mass, out=np.zeros_like(total), where=mass > 0)


@pytest.mark.parametrize("compiled", BUILDERS)
@pytest.mark.parametrize("min_impurity_decrease", [0.0, 1e-8, 1e-3])
def test_on_one_feature_the_tree_is_scikit_learns_to_the_threshold(min_impurity_decrease, compiled):
    """One feature of 9 values (value 4 never seen) and continuous targets: no two splits tie, so
    the tree is scikit-learn's, node for node: the same thresholds (midpoints of the values present
    in each node), the same node count and the same prediction for every value."""
    rng = np.random.default_rng(0)
    x = rng.choice([0, 1, 2, 3, 5, 6, 7, 8], size=(300, 1))
    y = np.sin(x[:, 0]) + 0.3 * rng.standard_normal(300)
    weights = _bootstrap(rng, 300, 3)
    every_value = np.arange(9)[:, None]
    for weight, (tree, _) in zip(weights, grow_forest(ThresholdColumns(x), y, weights, rng, min_impurity_decrease,
                                                                 compiled=compiled)):
        reference = DecisionTreeRegressor(min_impurity_decrease=min_impurity_decrease, random_state=0)
        reference.fit(x.astype(np.float32), y, sample_weight=weight)
        assert tree.node_count == reference.tree_.node_count
        inner = tree.children_left >= 0
        assert sorted(tree.threshold[inner]) == sorted(reference.tree_.threshold[reference.tree_.children_left >= 0])
        ours = _leaf_means(tree, x, y, weight)[tree.apply(every_value.astype(np.float32))]
        theirs = _leaf_means(reference.tree_, x, y, weight)[reference.tree_.apply(every_value.astype(np.float32))]
        assert np.allclose(ours, theirs, rtol=0, atol=1e-12)


def _node_rows(tree, x):
    """Boolean matrix: row i reaches node j."""
    return tree.decision_path(np.ascontiguousarray(x, dtype=np.float32)).toarray().astype(bool)


def _impurity(y, w):
    mean = np.average(y, weights=w)
    return np.average((y - mean) ** 2, weights=w)


def _best_split(x, y, w, total):
    """By brute force: the largest weighted improvement over every feature and every threshold
    between two adjacent values present, with its threshold (None where no split exists)."""
    best, where = -np.inf, None
    parent = _impurity(y, w)
    for feature in range(x.shape[1]):
        present = np.unique(x[:, feature])
        for low, high in zip(present[:-1], present[1:]):
            left = x[:, feature] <= low
            decrease = parent - (w[left].sum() * _impurity(y[left], w[left])
                                 + w[~left].sum() * _impurity(y[~left], w[~left])) / w.sum()
            improvement = w.sum() / total * decrease
            if improvement > best:
                best, where = improvement, (feature, (low + high) / 2)
    return best, where


@pytest.mark.parametrize("compiled", BUILDERS)
def test_every_split_is_a_best_split_and_every_leaf_is_final(compiled):
    """Six features of 2 to 5 values and targets with many repeats (ties and pure nodes): every
    inner node splits at a threshold midway between two present values, and no other split
    improves more; every leaf is one scikit-learn would not split (a single row, a pure node, or
    a best improvement below min_impurity_decrease)."""
    rng = np.random.default_rng(1)
    cardinalities = [2, 3, 4, 2, 3, 5]
    x = np.stack([rng.integers(c, size=250) for c in cardinalities], axis=1)
    y = np.round(x[:, 0] + 0.5 * x[:, 2] - 0.3 * x[:, 5] + rng.standard_normal(250), 1)
    weights = _bootstrap(rng, 250, 2)
    floor = 1e-4
    for weight, (tree, _) in zip(weights, grow_forest(ThresholdColumns(x), y, weights, rng, floor, compiled=compiled)):
        reaches = _node_rows(tree, x)
        total = weight.sum()
        for node in range(tree.node_count):
            rows = reaches[:, node] & (weight > 0)
            best, where = _best_split(x[rows], y[rows], weight[rows], total)
            if tree.children_left[node] >= 0:
                feature, threshold = tree.feature[node], tree.threshold[node]
                left = x[rows, feature] <= threshold
                decrease = _impurity(y[rows], weight[rows]) - (
                    weight[rows][left].sum() * _impurity(y[rows][left], weight[rows][left])
                    + weight[rows][~left].sum() * _impurity(y[rows][~left], weight[rows][~left])) / weight[rows].sum()
                assert weight[rows].sum() / total * decrease >= best - 1e-12
                assert best + EPSILON >= floor
                present = np.unique(x[rows, feature])
                low, high = present[present <= threshold].max(), present[present > threshold].min()
                assert threshold == (low + high) / 2
            else:
                assert (rows.sum() < 2 or _impurity(y[rows], weight[rows]) <= EPSILON or where is None
                        or best + EPSILON < floor)


@pytest.mark.parametrize("compiled", BUILDERS)
def test_the_leaf_of_every_row_is_where_the_tree_sends_it(compiled):
    rng = np.random.default_rng(2)
    x = rng.integers(3, size=(400, 8))
    y = rng.standard_normal(400)
    weights = _bootstrap(rng, 400, 5)
    for weight, (tree, leaf) in zip(weights, grow_forest(ThresholdColumns(x), y, weights, rng, 1e-8, compiled=compiled)):
        kept = weight > 0
        assert (leaf[~kept] == -1).all()
        assert (leaf[kept] == tree.apply(x[kept].astype(np.float32))).all()
        assert (tree.children_left[leaf[kept]] == -1).all()  # leaves


@pytest.mark.parametrize("compiled", BUILDERS)
def test_degenerate_inputs_give_one_leaf_trees(compiled):
    rng = np.random.default_rng(3)
    one_row = grow_forest(ThresholdColumns(np.array([[1, 2]])), np.array([0.5]), np.array([[1.0]]), rng,
                          compiled=compiled)
    assert one_row[0][0].node_count == 1 and list(one_row[0][1]) == [0]
    constant = grow_forest(ThresholdColumns(rng.integers(3, size=(30, 4))), np.full(30, 2.0), np.ones((2, 30)), rng,
                           compiled=compiled)
    assert [tree.node_count for tree, _ in constant] == [1, 1]
    with pytest.raises(ValueError, match="non-negative category indices"):
        ThresholdColumns(np.array([[0, -1]]))


def test_a_forest_predicts_its_fitted_rows_from_their_leaves_as_walking_the_trees_does():
    """SMAC predicts every configuration it evaluated at each refit; rows of the fit take their
    leaves from the growth (out-of-bag ones and rows not fitted walk the trees): the same bits."""
    from nasarena.optimizers.random_forest import LogForest

    rng = np.random.default_rng(4)
    x = rng.integers(3, size=(600, 10))
    x[300:350] = x[:50]  # repeated rows, as a configuration evaluated on several seeds
    y = rng.standard_normal(600)
    forest = LogForest(5, np.random.default_rng(5))
    forest.fit(x, y)
    queries = np.concatenate([x[::-1], rng.integers(3, size=(200, 10))])
    fitted = np.concatenate([np.arange(600)[::-1], np.full(200, -1)])
    walked, known = forest.predict(queries), forest.predict(queries, fitted)
    assert np.array_equal(walked[0], known[0]) and np.array_equal(walked[1], known[1])
    assert any((leaves[fitted[:600]] >= 0).mean() > 0.5 for leaves in forest._fitted_leaves)  # most came from the growth


@pytest.mark.skipif(not numba_installed(), reason="numba is not installed")
def test_the_compiled_builder_makes_smacs_run_and_trees_bit_for_bit():
    """SMAC's run of the anytime preset CVS (variable-size cells, inactive parameters as one more
    category), seed 0 at 3e5 s, on the real NB101 table: the same evaluations whichever builder
    grows its trees, and on the last history it fitted, the same trees and leaves, bit for bit."""
    import dataclasses
    from unittest import mock

    from nasarena.optimizers import integer_trees, random_forest
    from nasarena.runner.experiment import execute
    from nasarena.runner.protocol import Budget
    from nasarena.studies.anytime_presets import PRESETS

    [spec] = PRESETS["anytime-CVS"].specs(seeds=[0], optimizers=["smac"])
    spec = dataclasses.replace(spec, budget=Budget(seconds=3e5))
    frames, histories = {}, []
    for compiled in (True, False):
        def recording(columns, y, weights, rng, floor, compiled=compiled):
            histories.append((columns.x, y))
            return integer_trees.grow_forest(columns, y, weights, rng, floor, compiled=compiled)
        with mock.patch.object(random_forest, "grow_forest", recording):
            frames[compiled] = execute(spec).drop(columns=["optimizer_cpu_time"])
    assert len(frames[True]) > 150 and frames[True].equals(frames[False])
    x, y = histories[-1]
    assert len(x) > 500 and (x.max(axis=0) >= 2).any()  # a long history, with inactive categories
    weights = _bootstrap(np.random.default_rng(6), len(x), 5)
    grown = {compiled: integer_trees.grow_forest(ThresholdColumns(x), y, weights, np.random.default_rng(7), 1e-8,
                                                 compiled=compiled) for compiled in (True, False)}
    for (ours, leaf), (theirs, their_leaf) in zip(grown[True], grown[False]):
        assert ours.__getstate__()["nodes"].tobytes() == theirs.__getstate__()["nodes"].tobytes()
        assert np.array_equal(leaf, their_leaf)
