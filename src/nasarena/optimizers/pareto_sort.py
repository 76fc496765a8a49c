"""Fast non-dominated sorting and crowding distance (Deb et al. 2002), vectorised with numpy.

The multi-objective optimizers rank their populations by these two numbers: the index of the
non-dominated front a point lies on (0: the Pareto front of the set) and, within a front, the
crowding distance (larger: a lonelier point, preferred for diversity). Every objective is
minimised. They live here, in the optimizers' layer, because the optimizers sit below
``nasarena.analysis`` and may not import its Pareto utilities (those may import these).

Why vectorised: a population holds tens to a few hundred points, so the whole dominance
relation is one (n, n) boolean matrix from one broadcast comparison (n = 200, 3 objectives:
~0.2 ms), and peeling the fronts is one matrix-vector count per front instead of Deb's
per-point lists in Python.
"""

from __future__ import annotations

import numpy as np


def dominance(points: np.ndarray) -> np.ndarray:
    """``d[i, j]``: point i dominates point j (no worse in every objective, better in one).
    Equal points do not dominate each other."""
    points = np.asarray(points, dtype=np.float64)
    no_worse = np.ones((len(points), len(points)), dtype=bool)
    better = np.zeros_like(no_worse)
    for column in points.T:  # one (n, n) comparison per objective: no (n, n, m) temporaries
        no_worse &= column[:, None] <= column[None, :]
        better |= column[:, None] < column[None, :]
    return no_worse & better


def front_ranks(points: np.ndarray) -> np.ndarray:
    """The non-dominated front of every point: 0 for the points no other dominates, 1 for those
    only front 0 dominates, and so on (minimisation; equal points share a front)."""
    points = np.asarray(points, dtype=np.float64)
    count = len(points)
    ranks = np.full(count, -1, dtype=np.int64)
    if count == 0:
        return ranks
    dominates = dominance(points)
    dominated_by = dominates.sum(axis=0)  # how many points dominate each one
    front, rank = dominated_by == 0, 0
    while front.any():
        ranks[front] = rank
        dominated_by = dominated_by - dominates[front].sum(axis=0)
        dominated_by[ranks >= 0] = -1  # ranked points never rejoin
        front, rank = dominated_by == 0, rank + 1
    return ranks


def crowding_distances(points: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Deb's crowding distance of every point within its front: for each objective, the gap
    between its two neighbours on the front divided by the front's range, summed; the extreme
    points of each objective (every point of a front of one or two) get infinity. Ties in an
    objective are ordered by position, so the distances are determined by the input order.
    All fronts at once: per objective, one sort by (front, value) puts every front's points
    side by side, and a point's neighbours are the next and previous entries of its front."""
    points = np.asarray(points, dtype=np.float64)
    ranks = np.asarray(ranks)
    distances = np.zeros(len(points))
    if len(points) == 0:
        return distances
    fronts = int(ranks.max()) + 1
    for column in points.T:
        order = np.lexsort((column, ranks))
        front, value = ranks[order], column[order]
        first = np.r_[True, front[1:] != front[:-1]]
        last = np.r_[front[1:] != front[:-1], True]
        low, high = np.zeros(fronts), np.zeros(fronts)
        low[front[first]], high[front[last]] = value[first], value[last]
        span = (high - low)[front]
        gaps = np.zeros(len(points))
        gaps[1:-1] = value[2:] - value[:-2]
        gaps = np.divide(gaps, span, out=np.zeros_like(gaps), where=span > 0)
        gaps[first | last] = np.inf
        distances[order] += gaps
    return distances


def preference_order(points: np.ndarray, feasible: np.ndarray | None = None) -> np.ndarray:
    """Indices of ``points`` from most to least preferred: feasible before infeasible (the
    constrained domination of NSGA-II without a violation amount), then by front, then by
    decreasing crowding distance, then by position (so the order is fully determined)."""
    points = np.asarray(points, dtype=np.float64)
    infeasible = np.zeros(len(points), dtype=bool) if feasible is None else ~np.asarray(feasible, dtype=bool)
    ranks, crowding = np.zeros(len(points), dtype=np.int64), np.zeros(len(points))
    for group in (~infeasible, infeasible):  # each sorted on its own: the fronts among the feasible
        members = np.flatnonzero(group)
        if len(members):
            ranks[members] = front_ranks(points[members])
            crowding[members] = crowding_distances(points[members], ranks[members])
    return np.lexsort((np.arange(len(points)), -crowding, ranks, infeasible))
