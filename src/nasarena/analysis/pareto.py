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

Every score is of a *box*, from the ideal (normalised 0) to the reference: found points are
clipped at the ideal, so what is scored is the volume of the box that the found front
dominates. On the whole front (:class:`TrueFront`) clipping changes nothing, since no cell of the
table is better than its front's ideal in any objective. It matters in a **region of interest**
(:meth:`TrueFront.region`, :class:`RegionFront`): the part of the front whose error is within
:data:`MAX_ERROR_ABOVE_BEST` of the best error, normalised by that part's own ideal and nadir. A
found point outside the region then still counts for the part of the region's box it dominates
(a point faster than the region's fastest, a little less accurate), and one beyond the
reference (a far less accurate cell) adds nothing.

Why a region: a table's front spans cells no one would deploy. On NAS-Bench-201 the fast end
of every front is a degenerate cell (output disconnected: chance-level error in microseconds),
which is the whole front's nadir error, so the accurate part of the front, where optimizers
differ, is a sliver of the normalised box; the region's box is that part alone, so its score
measures what a hardware-aware NAS paper reports: the latency bought near the best accuracy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import InvalidSettingError

#: The hypervolume reference point in every objective after normalisation (nadir = 1).
REFERENCE = 1.1

#: The default region of interest of :meth:`TrueFront.region`: the front's points at most this
#: much error (absolute, 0.05 = 5 percentage points of accuracy) above its best error. Absolute
#: points, not a ratio: best errors range from a few per cent (CIFAR-10) to over half
#: (ImageNet16-120), so a ratio that keeps a useful part of one front keeps nearly all or almost
#: nothing of another, while accuracy losses are traded, and reported, in points on every dataset.
#: Five points: a trade a deployment would still consider, wide enough to hold a good part of
#: every NB201 front (so that no one or two cells decide the score) and far below the degenerate
#: and barely trained cells of the front's fast end.
MAX_ERROR_ABOVE_BEST = 0.05


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
    """The exact Pareto front of a finite table and the box its found fronts are scored in: from
    its ideal to the reference point (:data:`REFERENCE` after normalisation by ideal and nadir)."""

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

    def in_box(self, points) -> np.ndarray:
        """``points`` normalised by the ideal and nadir, clipped at the ideal (0): a point better
        than the ideal in some objective dominates only the box's part beyond it."""
        return np.maximum(normalise(points, self.ideal, self.nadir), 0.0)

    @cached_property
    def hypervolume(self) -> float:
        """The true front's normalised hypervolume: the largest any found front can reach."""
        return hypervolume(self.in_box(self.points), self.reference)

    def hypervolume_regret(self, found) -> float:
        """``(HV(true) - HV(found)) / HV(true)`` in the box; 1 for an empty front. ``found`` has
        the true front's objectives, one row per point (checked: a vector of another length would
        otherwise be scored as points it is not)."""
        array = _points(found, "found front", self.points.shape[1])
        if len(array) == 0:
            return 1.0
        return (self.hypervolume - hypervolume(self.in_box(array), self.reference)) / self.hypervolume

    def igd_plus(self, found) -> float:
        """IGD+ of the normalised ``found`` front against the normalised true front; an empty
        ``found`` has none (its hypervolume regret, 1, scores it)."""
        array = _points(found, "found front", self.points.shape[1])
        if len(array) == 0:
            raise InvalidSettingError("IGD+ of an empty found front is undefined (there is no point to measure the "
                                      "distance to); its hypervolume regret is 1")
        return igd_plus(normalise(array, self.ideal, self.nadir), normalise(self.points, self.ideal, self.nadir))

    def region(self, max_error_above_best: float = MAX_ERROR_ABOVE_BEST, error: int = 0) -> RegionFront:
        """The region of interest: the points whose objective ``error`` (a column number) is at
        most the best error plus ``max_error_above_best`` (absolute, in the objective's units),
        scored in their own box (see the module's text). Its scores are 0 for the true front; the
        region's points alone score 0 too with two objectives, where the region's least accurate
        point (the best in the other objective) dominates every point outside it once clipped."""
        columns = self.points.shape[1]
        if isinstance(error, bool) or not isinstance(error, (int, np.integer)) or not 0 <= error < columns:
            raise InvalidSettingError(f"error must be the column number of the error objective, 0 to {columns - 1}, "
                                      f"got {error!r}")
        bound = max_error_above_best
        if isinstance(bound, bool) or not isinstance(bound, (int, float, np.integer, np.floating)) \
                or not math.isfinite(bound) or bound < 0:
            raise InvalidSettingError(f"max_error_above_best must be a finite error >= 0 (0.05: 5 percentage "
                                      f"points above the best error), got {max_error_above_best!r}")
        inside = self.points[:, error] <= self.ideal[error] + bound
        points = self.points[inside]
        return RegionFront(points, self.rows[inside], points.min(axis=0), points.max(axis=0), self.points, float(bound),
                           int(error))


@dataclass(frozen=True)
class RegionFront(TrueFront):
    """A region of interest of a true front (:meth:`TrueFront.region`): ``points``, ``rows``,
    ``ideal`` and ``nadir`` are the region's, its box is theirs, and its hypervolume is the part
    of that box the whole front dominates."""

    #: Every point of the whole true front: outside the region, a point may still dominate part
    #: of the region's box that none inside does (with three or more objectives).
    whole: np.ndarray
    #: The bound that made the region, and the column of the error objective it bounds.
    max_error_above_best: float
    error: int

    @cached_property
    def hypervolume(self) -> float:
        """The volume of the region's box that the whole true front dominates: the largest any
        found front can reach there."""
        return hypervolume(self.in_box(self.whole), self.reference)
