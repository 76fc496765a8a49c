"""Statistical comparison: Friedman with Nemenyi post-hoc, pairwise Wilcoxon rank-sum tests,
and the rank-sum tables of the anytime paper (its Tables I and II).

scipy.stats is imported by the functions that test, not by this module: importing it takes
1 to 2 s, which every ``nasarena run`` paid for its closing final-regret table, a table that
runs no test."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class FriedmanNemenyi:
    """Friedman test over blocks (e.g. seeds) and treatments (e.g. optimizers), with Nemenyi's CD.

    ``rank_sums`` and ``mean_ranks`` rank 1 as the best; two treatments differ significantly
    when their mean ranks differ by more than ``critical_difference``; ``best_group`` holds
    the best-ranked treatment and those not significantly different from it.
    """

    statistic: float
    p_value: float
    confidence: float
    rank_sums: pd.Series
    mean_ranks: pd.Series
    critical_difference: float
    best_group: tuple[str, ...]

    @property
    def significant(self) -> bool:
        return self.p_value < 1 - self.confidence


def friedman_nemenyi(scores: pd.DataFrame, confidence: float = 0.98, lower_is_better: bool = True) -> FriedmanNemenyi:
    """``scores``: rows are blocks, columns treatments; a block with a missing value is dropped."""
    from scipy import stats

    complete = scores.dropna()
    if complete.shape[1] < 2 or len(complete) < 2:
        raise ValueError(f"need >= 2 treatments and >= 2 complete blocks, got {complete.shape[1]} and {len(complete)}")
    ranks = (complete if lower_is_better else -complete).rank(axis=1, method="average")
    k, n = complete.shape[1], len(complete)
    if complete.shape[1] >= 3:
        statistic, p_value = stats.friedmanchisquare(*[complete[c] for c in complete.columns])
    else:  # Friedman needs 3 treatments; for 2 it reduces to the sign test (Wilcoxon signed-rank here)
        statistic, p_value = stats.wilcoxon(complete.iloc[:, 0], complete.iloc[:, 1])
    q = stats.studentized_range.ppf(confidence, k, np.inf) / np.sqrt(2)
    critical = float(q * np.sqrt(k * (k + 1) / (6.0 * n)))
    mean_ranks = ranks.mean().sort_values()
    best = mean_ranks.index[0]
    if p_value < 1 - confidence:
        group = tuple(t for t in mean_ranks.index if mean_ranks[t] - mean_ranks[best] <= critical)
    else:
        group = tuple(mean_ranks.index)
    return FriedmanNemenyi(float(statistic), float(p_value), confidence, ranks.sum()[mean_ranks.index], mean_ranks,
                           critical, group)


def pairwise_wilcoxon(samples: dict[str, np.ndarray]) -> pd.DataFrame:
    """Two-sided Wilcoxon rank-sum test for every pair of samples."""
    from scipy import stats

    rows = []
    for a, b in combinations(sorted(samples), 2):
        statistic, p_value = stats.ranksums(samples[a], samples[b])
        rows.append((a, b, float(statistic), float(p_value)))
    return pd.DataFrame(rows, columns=["a", "b", "statistic", "p_value"])


def rank_sum_table(values: pd.DataFrame, group: str, treatment: str, block: str, value: str,
                   confidence: float = 0.98) -> pd.DataFrame:
    """Per ``group``, the treatments ordered by rank sum over ``block`` (the paper's tables).

    Returns one row per (group, treatment) with its rank sum, the mean ``value`` and whether
    it belongs to the best group (``best``: only marked when the Friedman test is significant).
    """
    rows = []
    for name, frame in values.groupby(group, sort=True):
        scores = frame.pivot_table(index=block, columns=treatment, values=value)
        result = friedman_nemenyi(scores, confidence)
        means = frame.groupby(treatment)[value].mean()
        for position, t in enumerate(result.rank_sums.index):
            rows.append((name, position + 1, t, float(result.rank_sums[t]), float(means[t]),
                         result.significant and t in result.best_group, result.p_value))
    return pd.DataFrame(rows, columns=[group, "position", treatment, "rank_sum", "mean", "best", "p_value"])


@dataclass(frozen=True)
class Concordance:
    """Kendall's coefficient of concordance W of several rankings of the same treatments: 1 when
    every ranking (e.g. every benchmark) orders the treatments (optimizers) alike, 0 when they
    share no preference. Friedman's statistic over the same table is ``m (n - 1) W``, and its
    chi-squared p-value tests W = 0."""

    w: float
    chi_squared: float
    p_value: float
    rankings: int
    treatments: int


def kendall_w(scores: pd.DataFrame, lower_is_better: bool = True) -> Concordance:
    """Kendall's W (with the correction for ties) of ``scores``: rows are the rankings (blocks),
    columns the treatments; a row with a missing value is dropped."""
    from scipy import stats

    complete = scores.dropna()
    m, n = complete.shape
    if m < 2 or n < 2:
        raise ValueError(f"Kendall's W needs >= 2 complete rankings of >= 2 treatments, got {m} and {n}")
    ranks = (complete if lower_is_better else -complete).rank(axis=1, method="average").to_numpy()
    totals = ranks.sum(axis=0)
    spread = float(((totals - totals.mean()) ** 2).sum())
    ties = sum(float((counts ** 3 - counts).sum()) for counts in
               (np.unique(row, return_counts=True)[1] for row in ranks))
    denominator = m ** 2 * (n ** 3 - n) - m * ties
    w = 12 * spread / denominator if denominator > 0 else float("nan")
    chi_squared = m * (n - 1) * w
    return Concordance(float(w), float(chi_squared), float(stats.chi2.sf(chi_squared, n - 1)), m, n)
