"""How well a surrogate fits: the metrics of the NAS-Bench-301 paper (Sec. 3, Table 2-3).

R^2, mean absolute error, Kendall tau, *sparse* Kendall tau (predictions rounded to 0.1%
accuracy before ranking, so that rank changes below the noise level are ignored), Spearman;
and, for ensembles, the KL divergence between the predictive normal and a ground-truth normal
fitted to repeated evaluations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class FitMetrics:
    r2: float
    mae: float
    kendall_tau: float
    sparse_kendall_tau: float
    spearman: float
    n: int

    def to_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


def r2_score(true, predicted) -> float:
    true, predicted = np.asarray(true, float), np.asarray(predicted, float)
    residual = np.sum((true - predicted) ** 2)
    total = np.sum((true - true.mean()) ** 2)
    return float(1.0 - residual / total) if total > 0 else float("nan")


def sparse_kendall_tau(true, predicted, precision: float = 0.001) -> float:
    """Kendall tau after rounding the predictions to ``precision`` (0.1% of accuracy in [0, 1])."""
    rounded = np.round(np.asarray(predicted, float) / precision) * precision
    return float(stats.kendalltau(true, rounded).statistic)


def fit_metrics(true, predicted, precision: float = 0.001) -> FitMetrics:
    """All fit metrics of predictions against true values (accuracies as fractions)."""
    true, predicted = np.asarray(true, float), np.asarray(predicted, float)
    if true.shape != predicted.shape or true.ndim != 1:
        raise ValueError(f"true and predicted must be 1-D of equal length, got {true.shape} and {predicted.shape}")
    return FitMetrics(
        r2=r2_score(true, predicted),
        mae=float(np.mean(np.abs(true - predicted))),
        kendall_tau=float(stats.kendalltau(true, predicted).statistic),
        sparse_kendall_tau=sparse_kendall_tau(true, predicted, precision),
        spearman=float(stats.spearmanr(true, predicted).statistic),
        n=len(true),
    )


def normal_kl_divergence(mean_true, std_true, mean_predicted, std_predicted) -> np.ndarray:
    """KL(N(true) || N(predicted)) elementwise: the paper's Table 3 noise-model comparison."""
    mu0, s0 = np.asarray(mean_true, float), np.asarray(std_true, float)
    mu1, s1 = np.asarray(mean_predicted, float), np.asarray(std_predicted, float)
    return np.log(s1 / s0) + (s0**2 + (mu0 - mu1) ** 2) / (2 * s1**2) - 0.5
