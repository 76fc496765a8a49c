"""The depth-by-depth tree builder of :mod:`.integer_trees` with its per-depth work compiled (numba).

Late in a cached 1e7 s NB101 run SMAC refits its forest on ~57,000 configurations, and three
quarters of its CPU went into growing the trees: per depth, array passes over every sample and
every (node, threshold column) pair, most of them memory traffic (a sparse product over a
65-column matrix of row terms, gathers and scatters of node sums, fresh arrays whose pages the
system zeroes on first touch). Here each depth is two compiled loops:

* the best split of each node: the same expression as the array builder's, element for element,
  with the same tie draws from the same generator, so the same column wins;
* the children: one pass per split node partitions its samples stably (left child's, then right
  child's) and adds the smaller child's terms to its sums; the larger child's sums are its
  parent's minus those. A sum adds its samples' terms in the order the array builder's sparse
  product adds them (the samples' positions), zeros included, so every sum has the same bits.

A level's samples are kept grouped by node, each sample carrying its terms and its 0/1 threshold
columns (bytes, moved as 64-bit words), so every pass reads them in sequence, and two sets of
arrays allocated once per forest take turns holding them; a sample's leaf is written once, when
its node stays a leaf. The trees are the array builder's, bit
for bit (``tests/test_integer_trees.py``); ``bench/bench_integer_trees.py`` measures the ratio.
numba is optional (in the ``surrogates`` extra): without it :func:`.integer_trees.grow_forest`
uses the array builder.
"""

from __future__ import annotations

import math

import numpy as np

from .integer_trees import EPSILON, TIE_TOLERANCE, ThresholdColumns, _ForestBuilder, _Level
from .jit import njit


@njit(inline="always")
def _add_terms(sums, below, weight, weighted_y, weighted_y2):  # pragma: no cover - compiled
    """Add one sample's terms to ``sums`` (a node's row) as the array builder's product does:
    its weight times 1, ``y`` and ``y^2``, then its weight and its weight times ``y``, each times
    the 0 or 1 of every threshold column (``below``: the sample's row of them). Zeros are added
    too (adding 0 leaves a sum as it is), so the loop runs over contiguous rows, vectorised."""
    n_columns = len(below)
    sums[0] += weight
    sums[1] += weighted_y
    sums[2] += weighted_y2
    for column in range(n_columns):
        sums[3 + column] += weight * below[column]
        sums[3 + n_columns + column] += weighted_y * below[column]


@njit
def _group_sums(groups, n_groups, below, w, wy, wy2):  # pragma: no cover - compiled
    out = np.zeros((n_groups, 3 + 2 * below.shape[1]))
    for i in range(len(groups)):
        _add_terms(out[groups[i]], below[i], w[i], wy[i], wy2[i])
    return out


@njit
def _best_splits(level_sums, candidates, totals, draws, feature, value, min_impurity_decrease):  # pragma: no cover
    n_nodes, n_columns = len(candidates), len(feature)
    chosen = np.zeros(n_nodes, dtype=np.int64)
    worth = np.zeros(n_nodes, dtype=np.bool_)
    score = np.empty(n_columns)
    for node in range(n_nodes):
        sums = level_sums[candidates[node]]
        weight, weighted_y = sums[0], sums[1]
        best = -np.inf
        for column in range(n_columns):
            left_w, left_wy = sums[3 + column], sums[3 + n_columns + column]
            right_w, right_wy = weight - left_w, weighted_y - left_wy
            if min(left_w, right_w) > 0:
                score[column] = left_wy * left_wy / max(left_w, 1.0) + right_wy * right_wy / max(right_w, 1.0)
            else:
                score[column] = -np.inf
            best = max(best, score[column])
        bound = best - TIE_TOLERANCE * abs(best)
        top = -np.inf
        for column in range(n_columns):  # the first highest priority among the near-best
            priority = draws[node, feature[column]] - value[column] * 1e-12 if score[column] >= bound else -1.0
            if priority > top:
                top = priority
                chosen[node] = column
        improvement = (best - weighted_y * weighted_y / weight) / totals[node]
        worth[node] = math.isfinite(best) and improvement + EPSILON >= min_impurity_decrease
    return chosen, worth


@njit
def _children(level_ids, level_sums, split, column, node_counts, n_columns, samples, moved, sums, counts,
              leaf):  # pragma: no cover - compiled
    """Partition the samples of the nodes ``split`` (level order) into ``moved`` and fill ``sums``
    and ``counts`` (one row per child): see the module's docstring. ``samples`` and ``moved``:
    (positions, threshold-column words, w, w y, w y^2, node) of the level and of the next one.
    The samples of the level's other nodes are in their leaves: marked so in ``leaf``."""
    positions, words, w, wy, wy2 = samples[0], samples[1], samples[2], samples[3], samples[4]
    to_position, to_words, to_w, to_wy, to_wy2, to_child = moved
    below = words.view(np.uint8)  # a sample's threshold columns: the first n_columns bytes of its row
    node_start = np.zeros(len(node_counts) + 1, dtype=np.int64)
    node_start[1:] = np.cumsum(node_counts)
    next_split = 0
    for node in range(len(node_counts)):
        if next_split < len(split) and split[next_split] == node:
            next_split += 1
        else:
            for i in range(node_start[node], node_start[node + 1]):
                leaf[positions[i]] = level_ids[node]
    start = 0
    for pair in range(len(split)):
        first, end, at = node_start[split[pair]], node_start[split[pair] + 1], column[pair]
        left = 0
        for i in range(first, end):
            left += below[i, at]
        counts[2 * pair], counts[2 * pair + 1] = left, end - first - left
        small_is_left = left <= end - first - left  # the left one on a tie
        small = 2 * pair + 1 - small_is_left
        sums[small, :] = 0.0
        # a stable partition: the left child's samples (at or below the threshold), then the
        # right child's; the smaller child's terms added on the way
        to_left, to_right = start, start + left
        for i in range(first, end):
            goes_left = below[i, at]
            slot = to_left if goes_left else to_right
            to_position[slot], to_w[slot], to_wy[slot], to_wy2[slot] = positions[i], w[i], wy[i], wy2[i]
            for k in range(words.shape[1]):
                to_words[slot, k] = words[i, k]
            to_child[slot] = 2 * pair + 1 - goes_left
            if goes_left == small_is_left:
                _add_terms(sums[small], below[i, :n_columns], w[i], wy[i], wy2[i])
            to_left += goes_left
            to_right += 1 - goes_left
        for k in range(sums.shape[1]):  # the larger child's sums by subtraction
            sums[small ^ 1, k] = level_sums[split[pair], k] - sums[small, k]
        start += end - first


class _SampleArrays:
    """Per-sample arrays for one level (positions, threshold-column words, ``w``, ``w y``,
    ``w y^2``, node index) with room for every sample, and room for node sums grown as needed."""

    def __init__(self, n_samples: int, n_words: int, position_type, n_sums: int):
        self.arrays = (np.empty(n_samples, dtype=position_type), np.empty((n_samples, n_words), dtype=np.uint64),
                       np.empty(n_samples), np.empty(n_samples), np.empty(n_samples),
                       np.empty(n_samples, dtype=position_type))
        self.sums = np.empty((0, n_sums))

    def first(self, n_samples: int, n_nodes: int) -> tuple[tuple, np.ndarray]:
        """Views of the first ``n_samples`` samples and ``n_nodes`` rows of sums."""
        if len(self.sums) < n_nodes:
            self.sums = np.empty((max(n_nodes, 2 * len(self.sums)), self.sums.shape[1]))
        return tuple(array[:n_samples] for array in self.arrays), self.sums[:n_nodes]


class _CarriedLevel(_Level):
    """A level whose samples are grouped by node, each node's in position order, with each
    sample's terms and threshold columns (``samples``: see :class:`_SampleArrays`) in that order."""

    def __init__(self, ids, trees, counts, sums, samples: tuple, storage: _SampleArrays):
        super().__init__(ids, trees, counts, sums, samples[0], samples[5])
        self.samples, self.storage = samples[:5], storage


class CompiledForestBuilder(_ForestBuilder):
    """:class:`.integer_trees._ForestBuilder` with its per-depth steps compiled: the same trees, bit for bit."""

    def __init__(self, columns: ThresholdColumns, y: np.ndarray, weights: np.ndarray, rng: np.random.Generator,
                 min_impurity_decrease: float):
        super().__init__(columns, y, weights, rng, min_impurity_decrease)
        n_columns = len(columns.feature)
        self.n_words = max(-(-n_columns // 8), 1)
        # two sets of per-sample arrays: a level is read from one while its children go to the other
        self._storage = _SampleArrays(len(self.rows), self.n_words, self.index, 3 + 2 * n_columns)
        self._spare = _SampleArrays(len(self.rows), self.n_words, self.index, 3 + 2 * n_columns)

    def _root_level(self, roots: np.ndarray, counts: np.ndarray) -> _Level:
        n_columns = len(self.columns.feature)
        # each row's 0/1 threshold columns as bytes, padded to whole 64-bit words
        below = np.zeros((len(self.columns.x), 8 * self.n_words), dtype=np.uint8)
        below[:, :n_columns] = self.columns.below_mask
        # the stacked samples are tree by tree already: grouped by root, in position order
        positions, words, w, wy, wy2, slot = self._storage.arrays
        positions[:] = np.arange(len(self.rows))
        words[:] = below.view(np.uint64)[self.rows]
        # a sample's terms as the array builder forms them: its weight times its row's y and y^2
        w[:], wy[:], wy2[:] = self.w, self.w * self.y[self.rows], self.w * (self.y * self.y)[self.rows]
        slot[:] = self.tree_of_sample
        sums = _group_sums(self.tree_of_sample, len(roots), words.view(np.uint8)[:, :n_columns], w, wy, wy2)
        return _CarriedLevel(roots, roots, counts, sums, self._storage.arrays, self._storage)

    def _finish(self, level: _Level) -> None:
        # a sample is marked with its leaf once, when its node stays one
        self.leaf[level.positions] = level.ids[level.slot]

    def _best_splits(self, level: _Level, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _best_splits(level.sums, candidates, self.total[level.trees[candidates]],
                            self._tie_draws(len(candidates)), self.columns.feature, self.columns.value,
                            self.min_impurity_decrease)

    def _children(self, level: _Level, split: np.ndarray, column: np.ndarray, ids: np.ndarray,
                  trees: np.ndarray) -> _Level:
        assert isinstance(level, _CarriedLevel)
        # the level before this one is done with: its arrays take the next one
        storage, self._spare = self._spare, level.storage
        moved, sums = storage.first(int(level.counts[split].sum()), len(ids))
        counts = np.empty(len(ids), dtype=np.int64)
        _children(level.ids, level.sums, split, column, level.counts, len(self.columns.feature), level.samples,
                  moved, sums, counts, self.leaf)
        return _CarriedLevel(ids, trees, counts, sums, moved, storage)
