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

from ..errors import InvalidSettingError

#: The hypervolume reference point in every objective after normalisation (nadir = 1).
REFERENCE = 1.1


def _points(points, name: str = "points", objectives: int | None = None) -> np.ndarray:
    """``points`` as a float (points, objectives) array, ``objectives`` columns where given; an
    empty sequence is no points. Anything else is an :class:`InvalidSettingError` that names the
    argument (``name``) and, for a value that is not finite, its row: a front of the wrong shape
    would otherwise broadcast or reshape into a meaningless score, and NaN poisons every one."""
    try:
        array = np.asarray(points, dtype=float)
    except (TypeError, ValueError) as error:  # ragged rows, text, objects
        raise InvalidSettingError(f"{name} must be numbers, one row per point and one column per objective "
                                  f"({error})") from None
    if array.ndim == 1 and array.size == 0:
        array = array.reshape(0, objectives or 0)
    if array.ndim != 2 or (len(array) and array.shape[1] < 1):
        hint = " (one point is written [[a, b, ...]])" if array.ndim == 1 else ""
        raise InvalidSettingError(f"{name} must be a 2-D array (one row per point, one column per objective), got "
                                  f"shape {array.shape}{hint}")
    if objectives is not None and array.shape[1] != objectives:
        raise InvalidSettingError(f"{name} has {array.shape[1]} objectives per point where {objectives} are expected "
                                  f"(shape {array.shape})")
    bad = np.argwhere(~np.isfinite(array))
    if len(bad):
        row, column = bad[0]
        raise InvalidSettingError(f"{name} row {row} holds {array[row, column]} in objective {column}, which is not "
                                  "finite")
    return array


def _point(point, name: str, objectives: int | None = None) -> np.ndarray:
    """One point (a reference, ideal or nadir point) as a finite 1-D float array, ``objectives``
    long where given; anything else is an :class:`InvalidSettingError` naming it."""
    want = f"{objectives} finite numbers" if objectives else "finite numbers"
    try:
        array = np.asarray(point, dtype=float)
    except (TypeError, ValueError):  # ragged, text, objects
        raise InvalidSettingError(f"{name} must be {want}, one per objective, got {point!r:.80}") from None
    if array.ndim != 1 or (objectives and len(array) != objectives) or not np.isfinite(array).all():
        raise InvalidSettingError(f"{name} must be {want}, one per objective, got {array.tolist()!r:.80}")
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
    ideal = _point(ideal, "the ideal point")
    nadir = _point(nadir, "the nadir point", len(ideal))
    array = _points(points, "points", len(ideal))
    spread = nadir - ideal
    return (array - ideal) / np.where(spread > 0, spread, 1.0)


def hypervolume(front, reference) -> float:
    """Volume dominated by ``front`` and bounded by ``reference`` (points beyond it add nothing)."""
    array = _points(front, "front")
    reference = _point(reference, "the reference point", array.shape[1] or None)
    if len(array) == 0:
        return 0.0
    inside = array[(array < reference).all(axis=1)]
    if len(inside) == 0:
        return 0.0
    import moocore

    return float(moocore.hypervolume(inside, ref=reference))


def igd_plus(front, reference_front) -> float:
    """IGD+ of ``front`` against ``reference_front`` (the true front): lower is better. Both need
    points: the distance from or to no point at all is undefined."""
    reference = _points(reference_front, "reference_front")
    array = _points(front, "front", reference.shape[1] or None)
    for name, points in (("front", array), ("reference_front", reference)):
        if len(points) == 0:
            raise InvalidSettingError(f"IGD+ needs at least one point in {name}, which is empty")
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
            raise InvalidSettingError("the objective matrix has no rows: a true front needs at least one architecture")
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
        """``(HV(true) - HV(found)) / HV(true)`` in normalised objectives; 1 for an empty front.
        ``found`` has the true front's objectives, one row per point (checked: a vector of another
        length would otherwise be scored as points it is not)."""
        array = _points(found, "found front", self.points.shape[1])
        if len(array) == 0:
            return 1.0
        covered = hypervolume(normalise(array, self.ideal, self.nadir), self.reference)
        return (self.hypervolume - covered) / self.hypervolume

    def igd_plus(self, found) -> float:
        """IGD+ of the normalised ``found`` front against the normalised true front; an empty
        ``found`` has none (its hypervolume regret, 1, scores it)."""
        array = _points(found, "found front", self.points.shape[1])
        if len(array) == 0:
            raise InvalidSettingError("IGD+ of an empty found front is undefined (there is no point to measure the "
                                      "distance to); its hypervolume regret is 1")
        return igd_plus(normalise(array, self.ideal, self.nadir), normalise(self.points, self.ideal, self.nadir))
