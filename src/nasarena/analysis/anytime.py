"""Anytime performance as a bi-objective problem: (time, regret), both minimised.

Each run's monotone front (see :func:`.trajectories.monotone_fronts`) is scored by its
hypervolume exactly as the anytime paper: time is mapped from ``[0, 1e7]`` and regret from
``[0, 1]`` linearly onto ``[1, 2]``, and the reference point is ``(2.1, 2.1)``. The paper's
boxplots show a quantity where smaller is better: the gap between the hypervolume of the
ideal point (1, 1) and the run's hypervolume, reported here next to the hypervolume itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .trajectories import RUN_KEYS, monotone_fronts


@dataclass(frozen=True)
class Normalization:
    """Linear maps of time and regret onto ``target`` and the hypervolume reference point."""

    time_bounds: tuple[float, float] = (0.0, 1e7)
    regret_bounds: tuple[float, float] = (0.0, 1.0)
    target: tuple[float, float] = (1.0, 2.0)
    reference: tuple[float, float] = (2.1, 2.1)

    def apply(self, time, regret) -> np.ndarray:
        low, high = self.target
        t = low + (np.asarray(time, float) - self.time_bounds[0]) / (self.time_bounds[1] - self.time_bounds[0]) * (high - low)
        r = low + (np.asarray(regret, float) - self.regret_bounds[0]) / (self.regret_bounds[1] - self.regret_bounds[0]) * (high - low)
        return np.column_stack([t, r])

    @property
    def ideal_hypervolume(self) -> float:
        """Hypervolume of the ideal point (best time and regret at the lower bounds)."""
        low = self.target[0]
        return (self.reference[0] - low) * (self.reference[1] - low)


def hypervolume_2d(points, reference) -> float:
    """Exact hypervolume dominated by 2-D points (both objectives minimised) up to ``reference``."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    ref_x, ref_y = reference
    points = points[(points[:, 0] < ref_x) & (points[:, 1] < ref_y)]
    if len(points) == 0:
        return 0.0
    points = points[np.lexsort((points[:, 1], points[:, 0]))]  # by x, then y
    volume, best_y = 0.0, ref_y
    xs = np.append(points[:, 0], ref_x)
    for i, (_, y) in enumerate(points):
        best_y = min(best_y, y)
        volume += (xs[i + 1] - xs[i]) * (ref_y - best_y)
    return float(volume)


def run_hypervolumes(results: pd.DataFrame, normalization: Normalization = Normalization()) -> pd.DataFrame:
    """Per run: hypervolume of its normalised monotone front and the gap to the ideal."""
    fronts = monotone_fronts(results)
    rows = []
    for keys, front in fronts.groupby(RUN_KEYS, sort=True):
        volume = hypervolume_2d(normalization.apply(front["time"], front["regret"]), normalization.reference)
        rows.append((*keys, front["label"].iloc[0], volume, normalization.ideal_hypervolume - volume))
    return pd.DataFrame(rows, columns=[*RUN_KEYS, "label", "hypervolume", "hypervolume_gap"])
