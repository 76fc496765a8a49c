"""The report's tables: final regret, hypervolume, and the statistical comparisons.

Statistics follow the anytime paper: a Friedman test over seeds with Nemenyi's critical
difference at 98% confidence (its Tables I and II), next to pairwise Wilcoxon rank-sum tests.
Where a comparison is impossible (one configuration, or too few runs) the result says why
instead of failing, so that any experiment, however partial, gets a report.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..analysis.ecdf import ecdf_area
from ..analysis.statistics import FriedmanNemenyi, friedman_nemenyi, pairwise_wilcoxon

CONFIDENCE = 0.98
FINAL_REGRET = "incumbent_test_regret"


def final_regret_table(final: pd.DataFrame) -> pd.DataFrame:
    """Per (benchmark, label), from ``final_results``: runs, mean, median and ECDF area of the
    final test regret, best mean first."""
    rows = [(bench, name, len(g), g[FINAL_REGRET].mean(), g[FINAL_REGRET].median(), ecdf_area(g[FINAL_REGRET]))
            for (bench, name), g in final.groupby(["benchmark", "label"], sort=True)]
    table = pd.DataFrame(rows, columns=["benchmark", "label", "runs", "mean", "median", "ecdf_area"])
    return table.sort_values(["benchmark", "mean", "label"], ignore_index=True)


def hypervolume_table(volumes: pd.DataFrame) -> pd.DataFrame:
    """Per (benchmark, label), from ``run_hypervolumes``: mean and median hypervolume and gap,
    smallest mean gap first."""
    table = volumes.groupby(["benchmark", "label"]).agg(
        runs=("hypervolume", "size"), hypervolume_mean=("hypervolume", "mean"),
        hypervolume_median=("hypervolume", "median"), gap_mean=("hypervolume_gap", "mean"),
        gap_median=("hypervolume_gap", "median")).reset_index()
    return table.sort_values(["benchmark", "gap_mean", "label"], ignore_index=True)


@dataclass(frozen=True)
class RankTest:
    """A Friedman/Nemenyi comparison of one metric on one benchmark, or why there is none."""

    benchmark: str
    metric: str
    blocks: int
    result: FriedmanNemenyi | None
    reason: str = ""


def friedman_tests(values: pd.DataFrame, metric: str, column: str) -> list[RankTest]:
    """One :class:`RankTest` per benchmark of ``column`` (lower is better), seeds as blocks.

    Only seeds finished by every configuration of a benchmark take part (``blocks``).
    """
    tests = []
    for bench, frame in values.groupby("benchmark", sort=True):
        scores = frame.pivot_table(index="seed", columns="label", values=column)
        blocks = len(scores.dropna())
        try:
            tests.append(RankTest(bench, metric, blocks, friedman_nemenyi(scores, CONFIDENCE)))
        except ValueError:
            reason = ("only one configuration" if scores.shape[1] < 2 else
                      f"needs at least 2 seeds finished by every configuration, found {blocks}")
            tests.append(RankTest(bench, metric, blocks, None, reason))
    return tests


@dataclass(frozen=True)
class PairwiseTests:
    """Wilcoxon rank-sum p-values of every pair of configurations on one benchmark, or why none."""

    benchmark: str
    table: pd.DataFrame | None
    reason: str = ""


def wilcoxon_tests(final: pd.DataFrame, volumes: pd.DataFrame) -> list[PairwiseTests]:
    """Per benchmark, p-values for the final regret and the hypervolume gap (two-sided, uncorrected)."""
    tests = []
    for bench, frame in final.groupby("benchmark", sort=True):
        runs = frame.groupby("label").size()
        if len(runs) < 2:
            tests.append(PairwiseTests(bench, None, "only one configuration"))
            continue
        if runs.min() < 2:
            tests.append(PairwiseTests(bench, None, "needs at least 2 runs of every configuration"))
            continue
        gaps = volumes[volumes["benchmark"] == bench]
        regret = pairwise_wilcoxon({n: g[FINAL_REGRET].to_numpy() for n, g in frame.groupby("label")})
        gap = pairwise_wilcoxon({n: g["hypervolume_gap"].to_numpy() for n, g in gaps.groupby("label")})
        table = regret[["a", "b", "p_value"]].rename(columns={"p_value": "p_final_regret"})
        table["p_hypervolume_gap"] = gap["p_value"].to_numpy()
        tests.append(PairwiseTests(bench, table))
    return tests
