"""How the ranking of architectures carries over from one tabular benchmark to another.

The NAS-Bench-Graph paper (Qin et al., NeurIPS 2022) asks this of its nine datasets: if a
network ranks high on one graph, does it rank high on another? Two benchmarks are compared on
the architectures both measure, matched by the space's identity key (so the proteins table,
whose space has fewer operations, is compared on the networks it shares with the others), with
Spearman's rho and Kendall's tau-b of one metric.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..benchmarks.tabular import TabularBenchmark
from ..errors import InvalidSettingError


def by_identity(benchmark: TabularBenchmark, metric: str = "test_accuracy") -> dict[str, float]:
    """Each architecture's ``metric`` (mean over trials, final fidelity) by its identity key."""
    keys = [benchmark.space.identity(arch) for arch in benchmark.space.enumerate()]
    return dict(zip(keys, benchmark.mean_over_trials(metric).tolist()))


@dataclass(frozen=True)
class RankTransfer:
    """Rank correlations of every pair of ``names``: symmetric matrices, ones on the diagonal."""

    names: tuple[str, ...]
    spearman: np.ndarray
    kendall: np.ndarray
    #: architectures both tables of a pair measure (the diagonal: each table's own size)
    common: np.ndarray

    def pair(self, first: str, second: str) -> tuple[float, float, int]:
        """(Spearman, Kendall, architectures compared) of two of the names."""
        i, j = self.names.index(first), self.names.index(second)
        return float(self.spearman[i, j]), float(self.kendall[i, j]), int(self.common[i, j])


def rank_transfer(tables: Mapping[str, Mapping[str, float]]) -> RankTransfer:
    """Spearman and Kendall tau-b of every pair of ``tables`` (name -> {key: value}) on their common keys."""
    names = tuple(tables)
    if len(names) < 2:
        raise InvalidSettingError(f"rank transfer needs two tables or more, got {len(names)}")
    size = len(names)
    spearman, kendall = np.eye(size), np.eye(size)
    common = np.diag([len(tables[name]) for name in names]).astype(np.int64)
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        shared = sorted(tables[a].keys() & tables[b].keys())
        if len(shared) < 3:
            raise InvalidSettingError(f"tables {a} and {b} share {len(shared)} architectures; "
                                      "a rank correlation needs three or more")
        x = np.array([tables[a][key] for key in shared])
        y = np.array([tables[b][key] for key in shared])
        spearman[i, j] = spearman[j, i] = stats.spearmanr(x, y).statistic
        kendall[i, j] = kendall[j, i] = stats.kendalltau(x, y).statistic
        common[i, j] = common[j, i] = len(shared)
    return RankTransfer(names, spearman, kendall, common)


def self_agreement(benchmark: TabularBenchmark, first: str = "valid_accuracy",
                   second: str = "test_accuracy") -> tuple[float, float]:
    """(Spearman, Kendall tau-b) of two metrics of one benchmark over all its architectures:
    how well selecting on validation ranks by test."""
    x, y = benchmark.mean_over_trials(first), benchmark.mean_over_trials(second)
    return float(stats.spearmanr(x, y).statistic), float(stats.kendalltau(x, y).statistic)


def upper_triangle(matrix: np.ndarray) -> np.ndarray:
    """The values above the diagonal, row by row."""
    return matrix[np.triu_indices(len(matrix), 1)]

