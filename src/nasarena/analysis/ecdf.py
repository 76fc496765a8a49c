"""Final-quality analysis: ECDFs of final regret and the anytime paper's ECDF area."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .trajectories import final_results


def ecdf(values) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and the fraction of values <= each (the step heights)."""
    x = np.sort(np.asarray(values, dtype=float))
    return x, np.arange(1, len(x) + 1) / len(x)


def ecdf_area(values) -> float:
    """Area between the ECDF of final regret and the regret axis (smaller is better).

    The anytime paper's final-quality score (its Table I, plotted with the ECDF on the x-axis
    and regret on the y-axis): the area between the step curve and the regret axis equals
    the integral of the quantile function over [0, 1], i.e. the mean final regret.
    """
    x, heights = ecdf(values)
    widths = np.diff(np.concatenate([[0.0], heights]))
    return float(np.sum(x * widths))


def final_regret_ecdfs(results: pd.DataFrame) -> pd.DataFrame:
    """Tidy ECDF points of the final test regret per (benchmark, configuration)."""
    final = final_results(results)
    parts = []
    for (bench, name), group in final.groupby(["benchmark", "label"], sort=True):
        x, y = ecdf(group["incumbent_test_regret"])
        parts.append(pd.DataFrame({"benchmark": bench, "label": name, "regret": x, "ecdf": y}))
    return pd.concat(parts, ignore_index=True)


def repetition_subsamples(results: pd.DataFrame, k: int, rng: np.random.Generator) -> pd.DataFrame:
    """ECDF points from a random subset of ``k`` seeds per configuration, next to all seeds.

    The anytime paper's Fig. 1: does the ranking from a few repetitions match the one from
    many? Rows have ``subset`` = ``"k=<k>"`` or ``"all"``.
    """
    final = final_results(results)
    parts = []
    for (bench, name), group in final.groupby(["benchmark", "label"], sort=True):
        chosen = group.iloc[np.sort(rng.choice(len(group), size=min(k, len(group)), replace=False))]
        for subset, frame in ((f"k={k}", chosen), ("all", group)):
            x, y = ecdf(frame["incumbent_test_regret"])
            parts.append(pd.DataFrame({"benchmark": bench, "label": name, "subset": subset, "regret": x, "ecdf": y,
                                       "area": ecdf_area(frame["incumbent_test_regret"])}))
    return pd.concat(parts, ignore_index=True)
