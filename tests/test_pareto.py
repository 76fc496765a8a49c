"""analysis.pareto: the exact true front, hypervolume, IGD+ and the normalised regret, each held
to a brute force written from its definition (no library), and the runner's incremental
incumbent front held to the non-dominated mask."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from nasarena.analysis.pareto import REFERENCE, TrueFront, hypervolume, igd_plus, non_dominated, normalise
from nasarena.runner.front import IncumbentFront


def brute_non_dominated(points: np.ndarray) -> np.ndarray:
    """Definition: no other point is <= everywhere and < somewhere; of equal points the first."""
    keep = []
    for i, p in enumerate(points):
        dominated = any((q <= p).all() and (q < p).any() for q in points)
        repeated = any((points[j] == p).all() for j in range(i))
        keep.append(not dominated and not repeated)
    return np.array(keep)


def brute_hypervolume(points: np.ndarray, reference: np.ndarray) -> float:
    """Inclusion-exclusion over the boxes [p, reference]: exact in any dimension (small sets)."""
    boxes = [p for p in points if (p < reference).all()]
    total = 0.0
    for size in range(1, len(boxes) + 1):
        for subset in combinations(boxes, size):
            corner = np.max(subset, axis=0)
            total += (-1) ** (size + 1) * np.prod(reference - corner)
    return total


def staircase_hypervolume(points: np.ndarray, reference: np.ndarray) -> float:
    """2-D: the sum of the rectangles of the sorted non-dominated staircase."""
    front = sorted(map(tuple, points[brute_non_dominated(points)]))
    area, ceiling = 0.0, reference[1]
    for x, y in front:
        if x < reference[0] and y < ceiling:
            area += (reference[0] - x) * (ceiling - y)
            ceiling = y
    return area


def brute_igd_plus(front: np.ndarray, reference: np.ndarray) -> float:
    """Ishibuchi et al. (2015): mean over reference points of the smallest d+ to a front point."""
    return float(np.mean([min(np.sqrt(np.sum(np.maximum(a - r, 0.0) ** 2)) for a in front) for r in reference]))


def test_true_front_of_a_hand_made_table():
    table = np.array([[0.10, 5.0],   # front
                      [0.20, 3.0],   # front
                      [0.15, 4.0],   # front
                      [0.30, 3.0],   # dominated by row 1
                      [0.10, 6.0],   # dominated by row 0
                      [0.20, 3.0],   # equal to row 1: kept once, as row 1
                      [0.05, 10.0],  # front (best error)
                      [0.40, 2.5]])  # front (fastest)
    front = TrueFront.of(table)
    assert front.rows.tolist() == [0, 1, 2, 6, 7]
    assert front.ideal.tolist() == [0.05, 2.5] and front.nadir.tolist() == [0.40, 10.0]
    assert front.hypervolume_regret(front.points) == pytest.approx(0.0, abs=1e-12)
    assert front.hypervolume_regret(np.empty((0, 2))) == 1.0
    assert front.igd_plus(front.points) == pytest.approx(0.0, abs=1e-12)
    # dominated rows found instead of the front: regret strictly between 0 and 1, and IGD+ > 0
    found = table[[3, 4]]
    assert 0.0 < front.hypervolume_regret(found) < 1.0
    assert front.igd_plus(found) > 0.0
    # the normalised true front spans [0, 1] in each objective; its hypervolume from 1.1 by hand
    scaled = normalise(front.points, front.ideal, front.nadir)
    assert scaled.min(axis=0) == pytest.approx([0, 0]) and scaled.max(axis=0) == pytest.approx([1, 1])
    assert front.hypervolume == pytest.approx(staircase_hypervolume(scaled, np.full(2, REFERENCE)))


@pytest.mark.parametrize("dimensions", [2, 3, 4])
def test_non_dominated_matches_the_definition(dimensions):
    rng = np.random.default_rng(dimensions)
    points = rng.integers(0, 6, size=(60, dimensions)).astype(float)  # small integers: ties and duplicates
    assert non_dominated(points).tolist() == brute_non_dominated(points).tolist()


@pytest.mark.parametrize("dimensions", [2, 3])
def test_hypervolume_matches_inclusion_exclusion(dimensions):
    rng = np.random.default_rng(10 + dimensions)
    reference = np.full(dimensions, 1.1)
    for _ in range(20):
        points = rng.uniform(0, 1.2, size=(rng.integers(1, 9), dimensions))  # some beyond the reference
        assert hypervolume(points, reference) == pytest.approx(brute_hypervolume(points, reference), rel=1e-9,
                                                               abs=1e-12)


def test_hypervolume_matches_the_2d_staircase():
    rng = np.random.default_rng(3)
    reference = np.array([1.1, 1.1])
    for _ in range(20):
        points = rng.uniform(0, 1.2, size=(rng.integers(1, 60), 2))
        assert hypervolume(points, reference) == pytest.approx(staircase_hypervolume(points, reference), rel=1e-9,
                                                               abs=1e-12)


@pytest.mark.parametrize("dimensions", [2, 3])
def test_igd_plus_matches_its_definition(dimensions):
    rng = np.random.default_rng(20 + dimensions)
    for _ in range(20):
        reference = rng.uniform(0, 1, size=(rng.integers(1, 30), dimensions))
        front = rng.uniform(0, 1, size=(rng.integers(1, 30), dimensions))
        assert igd_plus(front, reference) == pytest.approx(brute_igd_plus(front, reference), rel=1e-9, abs=1e-12)


def test_regret_falls_as_the_found_front_grows():
    """Adding true-front points one at a time never raises the regret, and ends at 0."""
    rng = np.random.default_rng(5)
    table = rng.uniform(size=(400, 2))
    front = TrueFront.of(table)
    order = rng.permutation(len(front.points))
    regrets = [front.hypervolume_regret(front.points[order[:k]]) for k in range(len(order) + 1)]
    assert regrets[0] == 1.0 and regrets[-1] == pytest.approx(0.0, abs=1e-12)
    assert all(later <= earlier + 1e-12 for earlier, later in zip(regrets, regrets[1:]))


def test_incumbent_front_replays_the_non_dominated_mask():
    rng = np.random.default_rng(7)
    points = rng.integers(0, 8, size=(80, 3)).astype(float)
    front = IncumbentFront()
    for key, point in enumerate(points):
        front.add(tuple(point), key)
        expected = np.flatnonzero(non_dominated(points[:key + 1]))
        assert sorted(front.keys) == expected.tolist()


def test_bad_points_are_refused():
    with pytest.raises(ValueError, match="2-D"):
        non_dominated(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="not finite"):
        TrueFront.of(np.array([[0.1, np.nan]]))
    with pytest.raises(ValueError, match="reference point"):
        hypervolume(np.ones((2, 2)), np.ones(3))
