"""Pareto fronts and their quality indicators (every objective minimised), on moocore.

A finite tabular benchmark has an exact true Pareto front: the non-dominated rows of its
objective matrix (``benchmarks.objectives.objective_matrix``, test error at the highest
fidelity). A run's found front is scored against it after both are normalised by the true
front's ideal and nadir points, so that objectives in different units (error, milliseconds)
weigh alike and the scores of different benchmarks and devices are comparable:

- **hypervolume regret** ``(HV(true) - HV(found)) / HV(true)``: 0 when the true front is found,
  1 when nothing found dominates the reference point;
- **IGD+** of the found front against the true front (Ishibuchi et al., 2015): the mean
  distance from each true point to the region the found front dominates; Pareto-compliant, 0
  when the true front is found.

The reference point is :data:`REFERENCE` (1.1) in every normalised objective, just beyond the
nadir (which normalises to 1): a reference at the nadir itself would give the true front's
extreme points no volume, so a front that finds them would score no better than one that
misses them; 1.1 is the usual margin of the literature (Ishibuchi et al., 2018, "How to
specify a reference point in hypervolume calculation", take 1 + 1/H for H points per
objective, close to 1.1 for fronts of ten-odd points as here). A found point beyond the
reference in some objective adds no volume.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

#: The hypervolume reference point in every objective after normalisation (nadir = 1).
REFERENCE = 1.1


def _points(points, name: str = "points") -> np.ndarray:
    array = np.asarray(points, dtype=float)
    if array.ndim != 2 or array.shape[1] < 1:
        raise ValueError(f"{name} must be a 2-D array (one row per point), got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} holds values that are not finite")
    return array


def non_dominated(points) -> np.ndarray:
    """Mask of the points no other point dominates (minimisation); of equal points only the
    first is kept, so the mask selects each point of the front once."""
    array = _points(points)
    if len(array) == 0:
        return np.zeros(0, dtype=bool)
    import moocore

    return np.asarray(moocore.is_nondominated(array, keep_weakly=False), dtype=bool)


def normalise(points, ideal, nadir) -> np.ndarray:
    """``(points - ideal) / (nadir - ideal)`` per objective; an objective the front does not
    spread (ideal = nadir, a front of one point) is shifted only, so it stays finite."""
    array = _points(points)
    ideal, nadir = np.asarray(ideal, dtype=float), np.asarray(nadir, dtype=float)
    spread = nadir - ideal
    return (array - ideal) / np.where(spread > 0, spread, 1.0)


def hypervolume(front, reference) -> float:
    """Volume dominated by ``front`` and bounded by ``reference`` (points beyond it add nothing)."""
    array = _points(front, "front")
    reference = np.asarray(reference, dtype=float)
    if reference.shape != (array.shape[1],):
        raise ValueError(f"the reference point has {reference.size} values for {array.shape[1]} objectives")
    inside = array[(array < reference).all(axis=1)]
    if len(inside) == 0:
        return 0.0
    import moocore

    return float(moocore.hypervolume(inside, ref=reference))


def igd_plus(front, reference_front) -> float:
    """IGD+ of ``front`` against ``reference_front`` (the true front): lower is better."""
    array, reference = _points(front, "front"), _points(reference_front, "reference_front")
    if len(array) == 0 or len(reference) == 0:
        raise ValueError("IGD+ needs a non-empty front and reference front")
    import moocore

    return float(moocore.igd_plus(array, ref=reference))


@dataclass(frozen=True)
class TrueFront:
    """The exact Pareto front of a finite table and the scale its found fronts are scored on."""

    #: The non-dominated rows of the table (raw units), one per point.
    points: np.ndarray
    #: Their row numbers in the table (architecture rows of the benchmark).
    rows: np.ndarray
    ideal: np.ndarray
    nadir: np.ndarray

    @classmethod
    def of(cls, matrix) -> TrueFront:
        """The true front of ``matrix`` (rows: architectures, columns: minimised objectives)."""
        table = _points(matrix, "objective matrix")
        if len(table) == 0:
            raise ValueError("the objective matrix has no rows")
        mask = non_dominated(table)
        points = table[mask]
        return cls(points, np.flatnonzero(mask), points.min(axis=0), points.max(axis=0))

    @property
    def reference(self) -> np.ndarray:
        """The reference point in normalised objectives (:data:`REFERENCE` in each)."""
        return np.full(self.points.shape[1], REFERENCE)

    @cached_property
    def hypervolume(self) -> float:
        """The true front's normalised hypervolume: the largest any found front can reach."""
        return hypervolume(normalise(self.points, self.ideal, self.nadir), self.reference)

    def hypervolume_regret(self, found) -> float:
        """``(HV(true) - HV(found)) / HV(true)`` in normalised objectives; 1 for an empty front."""
        array = np.asarray(found, dtype=float).reshape(-1, self.points.shape[1])
        if len(array) == 0:
            return 1.0
        covered = hypervolume(normalise(array, self.ideal, self.nadir), self.reference)
        return (self.hypervolume - covered) / self.hypervolume

    def igd_plus(self, found) -> float:
        """IGD+ of the normalised ``found`` front against the normalised true front."""
        return igd_plus(normalise(found, self.ideal, self.nadir), normalise(self.points, self.ideal, self.nadir))
