"""How well a supernet identifies the truly best architectures ("Evaluating supernets", App. C.1).

For an index threshold k in the true ranking (benchmark test accuracy, higher is better),
T_k is the true top-k set and V_k the top-k set by supernet score; the top-architecture ID
rate is a1(k) = |T_k n V_k| / |T_k|. Picking k architectures uniformly at random has the exact
expectation a1(k) = k / N, the baseline.

Ties. Scores tie often (one-shot accuracies are coarse, and untrained supernets give many
architectures the same chance-level score), and an arbitrary order among tied architectures
would decide membership of T_k or V_k at the cut. By default every architecture tied at the
cut belongs to the top-k set with the same probability (the open places divided by the tied
ones), and a1 is the *expected* overlap under uniformly random tie-breaking — deterministic
and independent of architecture order. ``ties="index"`` instead breaks ties by ascending
architecture index.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def top_k_membership(scores: np.ndarray, k: int, ties: str = "expected") -> np.ndarray:
    """Per architecture, the probability (0, 1 or in between at a tie) of being in the top k."""
    scores = np.asarray(scores, dtype=float)
    n = len(scores)
    if not 1 <= k <= n:
        raise ValueError(f"k must be in 1..{n}, got {k}")
    if ties == "index":
        order = np.argsort(-scores, kind="stable")
        membership = np.zeros(n)
        membership[order[:k]] = 1.0
        return membership
    if ties != "expected":
        raise ValueError(f"ties must be 'expected' or 'index', got {ties!r}")
    threshold = np.sort(scores)[::-1][k - 1]
    above = scores > threshold
    tied = scores == threshold
    membership = above.astype(float)
    membership[tied] = (k - above.sum()) / tied.sum()
    return membership


def id_rate(true_scores, supernet_scores, ks, ties: str = "expected") -> np.ndarray:
    """a1(k) for each k in ``ks``."""
    true_scores, supernet_scores = _checked(true_scores, supernet_scores)
    return np.array([
        float(np.sum(top_k_membership(true_scores, k, ties) * top_k_membership(supernet_scores, k, ties))) / k
        for k in np.atleast_1d(ks).astype(int)
    ])


def id_rate_curve(true_scores, supernet_scores, ties: str = "index") -> np.ndarray:
    """a1(k) for every k = 1..N at once, in O(N log N) (ties broken by architecture index).

    With index tie-breaking, i is in T_k and V_k exactly when max(rank_true(i), rank_V(i)) < k,
    so the overlap for all k is a cumulative count of those maxima.
    """
    if ties != "index":
        raise ValueError("the full curve is computed with ties='index'; use id_rate(..., ties='expected') on a grid")
    true_scores, supernet_scores = _checked(true_scores, supernet_scores)
    n = len(true_scores)
    rank_true = np.empty(n, dtype=np.int64)
    rank_true[np.argsort(-true_scores, kind="stable")] = np.arange(n)
    rank_supernet = np.empty(n, dtype=np.int64)
    rank_supernet[np.argsort(-supernet_scores, kind="stable")] = np.arange(n)
    overlap = np.cumsum(np.bincount(np.maximum(rank_true, rank_supernet), minlength=n))
    return overlap / np.arange(1, n + 1)


def random_baseline(ks, n: int) -> np.ndarray:
    """Exact expected a1(k) of a supernet that ranks architectures uniformly at random: k / N."""
    return np.atleast_1d(ks).astype(float) / n


def regret_thresholds_to_k(true_scores, regrets) -> np.ndarray:
    """For test-regret thresholds r, the number of architectures with regret <= r (the k of a1)."""
    true_scores = np.asarray(true_scores, dtype=float)
    regret = true_scores.max() - true_scores
    return np.array([int(np.sum(regret <= r + 1e-12)) for r in np.atleast_1d(regrets)])


def correlations(true_scores, supernet_scores, top_fraction: float | None = None) -> tuple[float, float]:
    """(Spearman, Kendall tau) over the whole space, or within the true top ``top_fraction``."""
    true_scores, supernet_scores = _checked(true_scores, supernet_scores)
    if top_fraction is not None:
        if not 0 < top_fraction <= 1:
            raise ValueError(f"top_fraction must be in (0, 1], got {top_fraction}")
        keep = np.argsort(-true_scores, kind="stable")[: max(2, int(round(top_fraction * len(true_scores))))]
        true_scores, supernet_scores = true_scores[keep], supernet_scores[keep]
    if np.ptp(supernet_scores) == 0 or np.ptp(true_scores) == 0:
        return float("nan"), float("nan")  # a constant ranking has no correlation
    return (float(stats.spearmanr(true_scores, supernet_scores).statistic),
            float(stats.kendalltau(true_scores, supernet_scores).statistic))


def _checked(true_scores, supernet_scores) -> tuple[np.ndarray, np.ndarray]:
    true_scores = np.asarray(true_scores, dtype=float)
    supernet_scores = np.asarray(supernet_scores, dtype=float)
    if true_scores.shape != supernet_scores.shape or true_scores.ndim != 1:
        raise ValueError(f"scores must be 1-D and aligned, got {true_scores.shape} and {supernet_scores.shape}")
    for name, values in (("true", true_scores), ("supernet", supernet_scores)):
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):  # NaN or inf has no rank: every metric of the checkpoint would be NaN or arbitrary
            more = f" and {len(bad) - 5:,} more" if len(bad) > 5 else ""
            raise ValueError(f"{name} scores are not finite (NaN or inf) at architecture(s) "
                             f"{', '.join(map(str, bad[:5]))}{more}")
    return true_scores, supernet_scores
