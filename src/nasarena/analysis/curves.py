"""Incumbent regret curves over simulated time or evaluation count, aggregated over seeds."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .trajectories import RUN_KEYS, check_table, label


def time_grid(results: pd.DataFrame, points: int = 200, log: bool = True, end: float | None = None) -> np.ndarray:
    """A common grid from the first finished evaluation to ``end`` (default: the latest time)."""
    table = check_table(results)
    start = max(float(table["sim_time"].min()), 1e-9)
    stop = float(table["sim_time"].max()) if end is None else end
    return np.geomspace(start, stop, points) if log else np.linspace(start, stop, points)


def incumbent_curves(
    results: pd.DataFrame, axis: str = "time", grid: np.ndarray | None = None, metric: str = "incumbent_test_regret"
) -> pd.DataFrame:
    """Mean, median and 25-75% band of ``metric`` of the incumbent, per configuration.

    ``axis`` is ``"time"`` (simulated seconds) or ``"evaluations"``. At each grid point a run
    contributes its incumbent at that moment; runs that have not finished an evaluation yet
    are left out of that point (``runs`` says how many contributed).
    """
    table = check_table(results)
    if axis == "time":
        grid = time_grid(table) if grid is None else np.asarray(grid, dtype=float)
        position = "sim_time"
    elif axis == "evaluations":
        grid = np.arange(1, int(table["evaluation"].max()) + 2) if grid is None else np.asarray(grid)
        position = "evaluation"
        table = table.assign(evaluation=table["evaluation"] + 1)
    else:
        raise ValueError(f"axis must be 'time' or 'evaluations', got {axis!r}")
    table = table.assign(label=label(table))
    rows = []
    for (bench, name), config in table.groupby(["benchmark", "label"], sort=True):
        values = np.full((config.groupby(RUN_KEYS).ngroups, len(grid)), np.nan)
        for i, (_, run) in enumerate(config.groupby(RUN_KEYS, sort=True)):
            index = np.searchsorted(run[position].to_numpy(), grid, side="right") - 1
            known = index >= 0
            values[i, known] = run[metric].to_numpy()[index[known]]
        counts = np.sum(~np.isnan(values), axis=0)
        with warnings.catch_warnings():  # grid points before any run finished are NaN on purpose
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(values, axis=0)
            q25, median, q75 = np.nanpercentile(values, [25, 50, 75], axis=0)
        rows.append(pd.DataFrame({"benchmark": bench, "label": name, "x": grid, "mean": mean, "median": median,
                                  "q25": q25, "q75": q75, "runs": counts}))
    return pd.concat(rows, ignore_index=True)
