"""Empirical attainment functions of (time, regret) fronts, computed with moocore.

The EAF at a point z is the fraction of runs whose front attains z (some point of the front
is at least as good in both objectives). Attainment surfaces at level p% separate what half
(p = 50) the runs attain from the rest; the EAF difference of two optimizers shows in which
regions of time x regret each attains more often, and by how much.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .trajectories import monotone_fronts


def _points_and_sets(fronts: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    seeds = fronts["seed"].to_numpy()
    _, sets = np.unique(seeds, return_inverse=True)
    return fronts[["time", "regret"]].to_numpy(dtype=float), sets + 1


def attainment_surfaces(results: pd.DataFrame, label: str, levels=(50.0,)) -> pd.DataFrame:
    """Points of the attainment surfaces of one configuration at the given percentage levels."""
    import moocore

    fronts = monotone_fronts(results)
    fronts = fronts[fronts["label"] == label]
    if fronts.empty:
        raise ValueError(f"no runs labelled {label!r}")
    points, sets = _points_and_sets(fronts)
    surface = moocore.eaf(points, sets, percentiles=list(levels))
    return pd.DataFrame(surface, columns=["time", "regret", "level"])


def eaf_difference(results: pd.DataFrame, label_a: str, label_b: str) -> pd.DataFrame:
    """EAF(a) - EAF(b) as rectangles (time and regret corners, difference in [-1, 1]).

    Runs are compared on the seeds both configurations finished, so a partially finished
    experiment still gives a fair difference (``runs`` says how many were used).
    """
    import moocore

    fronts = monotone_fronts(results)
    a, b = fronts[fronts["label"] == label_a], fronts[fronts["label"] == label_b]
    common = np.intersect1d(a["seed"].unique(), b["seed"].unique())
    if len(common) == 0:
        raise ValueError(f"{label_a!r} and {label_b!r} have no finished seed in common")
    a, b = a[a["seed"].isin(common)], b[b["seed"].isin(common)]
    points_a, sets_a = _points_and_sets(a)
    points_b, sets_b = _points_and_sets(b)
    columns = ["time_low", "regret_low", "time_high", "regret_high", "difference"]
    try:
        rectangles = moocore.eafdiff(np.column_stack([points_a, sets_a]), np.column_stack([points_b, sets_b]),
                                     rectangles=True)
    except ValueError:  # moocore cannot shape an empty result: the two EAFs are identical
        rectangles = np.empty((0, len(columns)))
    frame = pd.DataFrame(rectangles, columns=columns)
    frame["difference"] /= len(common)
    frame["runs"] = len(common)
    return frame
