"""Scikit-learn's best-split regression trees, grown one depth at a time on category indices.

SMAC's forest (:mod:`.random_forest`) refits its trees after every few proposals on every
configuration evaluated so far: about 650 refits of 5 trees on up to ~4,000 rows in a 1e7 s
NB101 run, and scikit-learn's builder, which sorts each feature's values at every node, took two
thirds of SMAC's CPU. SMAC's features are category indices with a few values each (2 or 3 per
NB101 parameter), and on them the best split of a node needs no sorting: the weighted sums of
the node's samples on each side of each threshold decide it. Here every node of one depth, in
all trees of the forest, is split at once with a few array operations: five trees on a 4,000-row
history take 23.5 ms against scikit-learn's 42.2 ms, 1.2x to 1.8x faster from 250 to 4,000 rows
(``bench/bench_integer_trees.py``).

The trees are the ones ``DecisionTreeRegressor(criterion="squared_error", splitter="best",
max_features=None, min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=d)`` grows
with sample weights:

* only samples of nonzero weight take part (scikit-learn drops the others too);
* a node is split where the weighted squared error falls most, over every feature and every
  threshold between two values present in the node; the threshold is their midpoint, so a value
  never seen in the node falls on the side scikit-learn would put it;
* a node stays a leaf when it holds one sample, when its impurity is at most machine epsilon, or
  when the best split's weighted improvement (``W_node / W_total`` times the impurity decrease)
  plus epsilon is below ``d``.

Ties between equally good features go to a random feature order drawn per node (scikit-learn
visits features in a random order too and keeps the first best; within one feature the lower
threshold). The random stream is not scikit-learn's, and sums are added in another order, so
splits that tie to within rounding may be chosen differently: the trees are the same kind, not
the same bits.

How: column ``j`` of :class:`ThresholdColumns` is ``x[:, feature[j]] <= value[j]`` as 0/1. For
each node the sums over its samples of ``w`` and ``w * y`` times every column give both sides of
every split at once (one row of a nodes x columns array). Of two siblings only the one with
fewer samples is summed (a sparse product of node membership and the rows' terms); the other is
its parent's sums minus it. A sample is a (tree, row) pair, so the trees' bootstraps are stacked
and one depth of the whole forest is one set of arrays. Each tree comes out as a scikit-learn
``Tree`` (its node array filled in through the state its pickles use), so prediction is
scikit-learn's compiled ``Tree.apply``.

Where numba is installed, :mod:`.compiled_trees` does each depth's work in compiled loops instead
(the same trees, bit for bit; 2-3x faster on long histories, ``bench/bench_integer_trees.py``):
:class:`_ForestBuilder` is the array version of the steps a subclass may replace (the root
level, the best splits, the children, the last level's leaves).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from scipy import sparse

from ..errors import import_extra
from .jit import numba_installed

EPSILON = np.finfo(np.float64).eps
#: Split scores within this relative distance of a node's best are ties (sums in another order).
TIE_TOLERANCE = 1e-12


class ThresholdColumns:
    """The rows ``x`` (non-negative category indices) and, for every feature ``f`` with ``c``
    values and every ``v < c - 1``, the 0/1 column ``x[:, f] <= v``: computed once per fit and
    shared by the forest's trees, which differ only in their bootstrap weights."""

    def __init__(self, x: np.ndarray):
        self.x = np.asarray(x, dtype=np.int64)
        if self.x.ndim != 2 or (self.x.size and self.x.min() < 0):
            raise ValueError("rows must be a 2-D array of non-negative category indices")
        cardinalities = self.x.max(axis=0) + 1 if len(self.x) else np.ones(self.x.shape[1], dtype=np.int64)
        self.n_features = self.x.shape[1]
        self.feature = np.repeat(np.arange(self.n_features), cardinalities - 1)
        self.value = np.concatenate([np.arange(c - 1) for c in cardinalities]).astype(np.int64)

    @cached_property
    def small_x(self) -> np.ndarray:
        """``x`` in the smallest integer type that holds it (gathers read an eighth of int64's bytes)."""
        return self.x.astype(np.min_scalar_type(self.x.max(initial=0)))

    @cached_property
    def below_mask(self) -> np.ndarray:
        """Column ``j``: whether ``x[:, feature[j]] <= value[j]`` (rows x columns)."""
        return self.small_x[:, self.feature] <= self.value.astype(self.small_x.dtype)

    @cached_property
    def below(self) -> np.ndarray:
        """:attr:`below_mask` as 0.0 or 1.0."""
        return self.below_mask.astype(np.float64)


class _Level:
    """The nodes of one depth still to be split. Per node: its id, its tree, its sample count and
    its sums over its samples (their weights times :attr:`_ForestBuilder.row_terms`: ``w``,
    ``w y``, ``w y^2``, then ``w`` and ``w y`` of the samples at or below each threshold column).
    Per sample of these nodes: its position among the stacked samples and its node's index here."""

    def __init__(self, ids, trees, counts, sums, positions, slot):
        self.ids, self.trees, self.counts, self.sums = ids, trees, counts, sums
        self.positions, self.slot = positions, slot

    def splittable(self) -> np.ndarray:
        """Nodes worth searching: two samples or more, impurity above machine epsilon."""
        weight, weighted_y, weighted_y2 = self.sums[:, 0], self.sums[:, 1], self.sums[:, 2]
        mean = weighted_y / weight
        return (self.counts >= 2) & (weighted_y2 / weight - mean * mean > EPSILON)


class _ForestBuilder:
    """All trees of a forest grown together, depth by depth (the nodes of one depth of every tree
    are one set of arrays, so each array operation serves the whole forest): node records
    appended depth by depth, and the leaf of every sample.

    A sample is a row of one tree's bootstrap with nonzero weight: the trees' samples are stacked."""

    def __init__(self, columns: ThresholdColumns, y: np.ndarray, weights: np.ndarray, rng: np.random.Generator,
                 min_impurity_decrease: float):
        self.columns = columns
        self.n_trees = len(weights)
        tree_of_sample, rows = np.nonzero(weights > 0)
        # sample positions, rows and node slots as 32-bit integers where they fit: each depth
        # reads them once per sample, and scipy's sparse arrays take 32-bit indices as they are
        self.index = np.int32 if len(rows) * max(columns.n_features, 1) < 2**31 else np.int64
        self.rows, self.tree_of_sample = rows.astype(self.index), tree_of_sample.astype(self.index)
        self.w = weights[tree_of_sample, rows]
        self.y = y
        self.total = weights.sum(axis=1)
        self.rng = rng
        self.min_impurity_decrease = min_impurity_decrease
        self.node_count = self.n_trees  # node i < n_trees is tree i's root
        self.created: list[tuple] = []  # (ids, trees, sample counts, weights)
        self.splits: list[tuple] = []  # (ids, features, thresholds, left ids, right ids)
        self.leaf = tree_of_sample.copy()  # every sample starts in its tree's root

    @cached_property
    def x_flat(self) -> np.ndarray:
        """Each sample's values, in the smallest integer type (read once per sample per depth)."""
        return self.columns.small_x[self.rows].ravel()

    @cached_property
    def row_terms(self) -> np.ndarray:
        """What a node sums over its samples, weighted: 1, y, y^2, then each column and y times it."""
        below = self.columns.below
        return np.hstack([np.stack([np.ones_like(self.y), self.y, self.y * self.y], axis=1), below,
                          below * self.y[:, None]])

    def _sum_over(self, groups: np.ndarray, positions: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Per group (``0 <= groups < len(counts)``, one per sample ``positions``; ``counts``: the
        samples of each, which the callers already hold): the sums over its samples of their
        weights times their rows' ``row_terms``, as one sparse product (faster than gathering the
        rows and ``np.add.reduceat``, which is slow with many short groups)."""
        n_groups = len(counts)
        # a stable sort of small integers is a radix sort: linear time
        key = groups.astype(np.int16 if n_groups < 2**15 else np.int32)
        positions = positions[np.argsort(key, kind="stable")]
        bounds = np.zeros(n_groups + 1, dtype=self.index)
        np.cumsum(counts, out=bounds[1:])
        members = sparse.csr_array((self.w[positions], self.rows[positions], bounds),
                                   shape=(n_groups, len(self.row_terms)))
        return members @ self.row_terms

    def grow(self) -> list[tuple]:
        roots = np.arange(self.n_trees)
        counts = np.bincount(self.tree_of_sample, minlength=self.n_trees)
        if (counts == 0).any():
            raise ValueError("every tree needs a sample of nonzero weight")
        level: _Level | None = self._root_level(roots, counts)
        self.created.append((roots, roots, counts, level.sums[:, 0]))
        while level is not None:
            level = self._split(level, np.flatnonzero(level.splittable()))
        return self._trees()

    def _root_level(self, roots: np.ndarray, counts: np.ndarray) -> _Level:
        """The trees' roots (``counts``: their sample counts) with every sample."""
        positions = np.arange(len(self.rows), dtype=self.index)
        sums = self._sum_over(self.tree_of_sample, positions, counts)
        return _Level(roots, roots, counts, sums, positions, self.tree_of_sample)

    def _tie_draws(self, nodes: int) -> np.ndarray:
        """Per node searched, a uniform draw per feature: the random feature order that breaks ties."""
        return self.rng.random((nodes, self.columns.n_features))

    def _best_splits(self, level: _Level, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per node ``candidates`` of ``level`` (indices): the best threshold column, and whether
        splitting there is worth it."""
        columns = self.columns
        sums, trees = level.sums[candidates], level.trees[candidates]
        n_columns = len(columns.feature)
        weight, weighted_y = sums[:, 0], sums[:, 1]
        left_w, left_wy = sums[:, 3:3 + n_columns], sums[:, 3 + n_columns:]
        right_w = weight[:, None] - left_w
        right_wy = weighted_y[:, None] - left_wy
        # both sides non-empty (exact: the weights are whole bootstrap counts; an empty side's
        # score is replaced, its divisor only kept from zero)
        score = left_wy * left_wy / np.maximum(left_w, 1) + right_wy * right_wy / np.maximum(right_w, 1)
        score = np.where(np.minimum(left_w, right_w) > 0, score, -np.inf)
        best = score.max(axis=1)
        near = score >= best[:, None] - TIE_TOLERANCE * np.abs(best[:, None])
        # ties: a random order of the features per node (uniform draws; two within 1e-11 of each
        # other are as rare as 1 node in 10^9), the lower threshold within one feature
        priority = self._tie_draws(len(best))[:, columns.feature] - columns.value * 1e-12
        chosen = np.argmax(np.where(near, priority, -1.0), axis=1)
        improvement = (best - weighted_y ** 2 / weight) / self.total[trees]
        worth = np.isfinite(best) & (improvement + EPSILON >= self.min_impurity_decrease)
        return chosen, worth

    def _split(self, level: _Level, candidates: np.ndarray) -> _Level | None:
        """Split the nodes ``candidates`` of ``level`` (indices) that are worth it; the next
        depth's nodes, None when there are none. The samples of nodes that stay leaves are
        dropped here (marked as theirs in :attr:`leaf` by :meth:`_children` or :meth:`_finish`)."""
        chosen, worth = self._best_splits(level, candidates)
        split, column = candidates[worth], chosen[worth]
        if not len(split):
            self._finish(level)
            return None
        pairs = len(split)
        feature, value = self.columns.feature[column], self.columns.value[column]
        below_weight = level.sums[split, 3:3 + len(self.columns.feature)]
        threshold = (value + self._next_present(below_weight, column, value)) / 2.0
        ids = self.node_count + np.arange(2 * pairs)  # left child 2i, right child 2i + 1
        self.node_count += 2 * pairs
        self.splits.append((level.ids[split], feature, threshold, ids[0::2], ids[1::2]))
        children = self._children(level, split, column, ids, np.repeat(level.trees[split], 2))
        self.created.append((ids, children.trees, children.counts, children.sums[:, 0].copy()))
        return children

    def _finish(self, level: _Level) -> None:
        """Called with the last level, whose nodes all stay leaves: here nothing is left to do (each
        sample was marked with its node as it moved there)."""

    def _children(self, level: _Level, split: np.ndarray, column: np.ndarray, ids: np.ndarray,
                  trees: np.ndarray) -> _Level:
        """The children ``ids`` (of ``trees``) of the nodes ``split`` of ``level`` (indices; node
        ``split[i]`` is split on threshold column ``column[i]`` into ``ids[2 i]``, the samples at
        or below it, and ``ids[2 i + 1]``), with the samples sent to them and their sums. Here
        each sample sent is marked as its child's in :attr:`leaf` (until the child splits again)."""
        pairs = len(split)
        feature, value = self.columns.feature[column], self.columns.value[column]
        pair_of_node = np.full(len(level.ids), -1, dtype=self.index)
        pair_of_node[split] = np.arange(pairs)
        pair = pair_of_node[level.slot]
        moving = pair >= 0
        positions, pair = level.positions[moving], pair[moving]
        goes_right = (self.x_flat[positions * self.columns.n_features + feature.astype(self.index)[pair]]
                      > value.astype(self.x_flat.dtype)[pair])
        child = 2 * pair + goes_right
        counts = np.bincount(child, minlength=2 * pairs)
        # the smaller child of each pair is summed from its samples, its sibling by subtraction
        small_is_right = counts[1::2] < counts[0::2]
        in_small = goes_right == small_is_right[pair]
        small = 2 * np.arange(pairs) + small_is_right
        sums = np.empty((2 * pairs, level.sums.shape[1]))
        sums[small] = self._sum_over(pair[in_small], positions[in_small], counts[small])
        sums[small ^ 1] = level.sums[split] - sums[small]
        self.leaf[positions] = ids[child]
        return _Level(ids, trees, counts, sums, positions, child)

    def _next_present(self, below_weight: np.ndarray, column: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Per split node: the smallest value above ``value`` present in the node, from its
        cumulative sums (value ``v + 1`` is absent when column ``v + 1`` sums no more than ``v``)."""
        features = self.columns.feature
        upper = value + 1
        rows = np.arange(len(column))
        at = below_weight[rows, column]
        searching = np.ones(len(column), dtype=bool)
        step = 1
        while searching.any():
            candidate = column + step
            absent = searching & (candidate < len(features))
            absent[absent] = features[candidate[absent]] == features[column[absent]]
            absent[absent] = below_weight[rows[absent], candidate[absent]] <= at[absent]
            upper[absent] += 1
            searching = absent
            step += 1
        return upper

    def _trees(self) -> list[tuple]:
        """Each tree as a scikit-learn ``Tree`` (its nodes numbered from 0 in creation order) and
        the leaf of every row in it (-1 for rows its bootstrap left out)."""
        tree_module = import_extra("sklearn.tree._tree", "the smac optimizer")
        # node ids were handed out in creation order, so the records concatenate into id order
        tree_of_node, counts, weights = (np.concatenate(parts) for parts in list(zip(*self.created))[1:])
        ids, features, thresholds, lefts, rights = (np.concatenate(parts) for parts in zip(*self.splits)) \
            if self.splits else (np.zeros(0, dtype=np.int64),) * 5
        feature = np.full(self.node_count, tree_module.TREE_UNDEFINED, dtype=np.int64)
        threshold = np.full(self.node_count, float(tree_module.TREE_UNDEFINED))
        left = np.full(self.node_count, tree_module.TREE_LEAF, dtype=np.int64)
        right = left.copy()
        feature[ids], threshold[ids] = features, thresholds
        depth = np.zeros(self.node_count, dtype=np.int64)
        for parents, _, _, children, _ in self.splits:  # depth by depth
            depth[children] = depth[children + 1] = depth[parents] + 1
        local = np.empty(self.node_count, dtype=np.int64)  # a node's number in its own tree
        order = np.argsort(tree_of_node, kind="stable")
        sizes = np.bincount(tree_of_node, minlength=self.n_trees)
        local[order] = np.arange(self.node_count) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        left[ids], right[ids] = local[lefts], local[rights]
        leaf_of_sample = local[self.leaf]
        result = []
        for tree, mine in enumerate(np.split(order, np.cumsum(sizes)[:-1])):
            nodes = np.zeros(len(mine), dtype=tree_module.NODE_DTYPE)
            nodes["left_child"], nodes["right_child"] = left[mine], right[mine]
            nodes["feature"], nodes["threshold"] = feature[mine], threshold[mine]
            nodes["n_node_samples"], nodes["weighted_n_node_samples"] = counts[mine], weights[mine]
            built = tree_module.Tree(self.columns.n_features, np.array([1], dtype=np.intp), 1)
            built.__setstate__({"max_depth": int(depth[mine].max()), "node_count": len(mine), "nodes": nodes,
                                "values": np.zeros((len(mine), 1, 1))})
            leaf_of_row = np.full(len(self.columns.x), -1, dtype=np.int64)
            samples = self.tree_of_sample == tree
            leaf_of_row[self.rows[samples]] = leaf_of_sample[samples]
            result.append((built, leaf_of_row))
        return result


def grow_forest(columns: ThresholdColumns, y: np.ndarray, weights: np.ndarray, rng: np.random.Generator,
                min_impurity_decrease: float = 0.0, compiled: bool | None = None) -> list[tuple]:
    """One scikit-learn ``Tree`` per row of ``weights`` (sample weights of the rows of
    ``columns.x``: whole numbers, as a bootstrap's counts), grown on targets ``y``; with each
    tree, the leaf of every row (-1 where its weight is 0). ``compiled``: grow them with the
    compiled per-depth steps of :mod:`.compiled_trees` (the same trees, bit for bit, several
    times faster on long histories); None: when numba is installed."""
    weights = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    return _builder(compiled)(columns, np.asarray(y, dtype=np.float64), weights, rng, min_impurity_decrease).grow()


def _builder(compiled: bool | None) -> type[_ForestBuilder]:
    if compiled is False or (compiled is None and not numba_installed()):
        return _ForestBuilder
    return import_extra("nasarena.optimizers.compiled_trees", "the compiled tree builder").CompiledForestBuilder

