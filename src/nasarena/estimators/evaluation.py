"""How well each proxy of a table ranks architectures: one set of metrics for every estimator.

The metrics are the supernet evaluation's (:mod:`nasarena.analysis.supernet.identification`),
applied to a proxy's values instead of a supernet's scores, over the architectures of the table
(the truth: a tabular benchmark's mean validation accuracy over its trials at its highest
fidelity, looked up by architecture):

- Spearman's rho and Kendall's tau over all architectures and over the true top 10 %;
- the top-architecture identification rate a1(k) = |T_k n V_k| / k (T_k the true top k, V_k the
  top k by the proxy; ties share the places at the cut) beside its random baseline k / N; at
  k = 10 % of N it is the proxy's top-10 % precision, the "top-10 %/top-10 %" of Abdelfattah et
  al. (2021, Table 2), reported as ``precision_top10``.

A value a proxy leaves undefined (NaN: jacob_cov of a network whose output ignores its input;
-inf: NASWOT's singular kernel) carries no ranking information: it ranks below every defined
value (ties among them share the places), and ``undefined`` counts them. The seconds per
architecture (the mean measured cost) go beside the quality.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..analysis.supernet.identification import correlations, id_rate, random_baseline
from ..errors import InvalidSettingError
from . import PROXIES

TOP_FRACTION = 0.1


def ranked_values(values) -> np.ndarray:
    """A proxy's values with every undefined (non-finite) one set below the smallest defined one."""
    values = np.asarray(values, dtype=float).copy()
    defined = np.isfinite(values)
    floor = values[defined].min() - 1.0 if defined.any() else 0.0
    values[~defined] = floor
    return values


def evaluate_proxies(table: pd.DataFrame, truth: np.ndarray, ks: Sequence[int]) -> pd.DataFrame:
    """One row per proxy of ``table`` (a table of :mod:`.table`) against ``truth``, aligned with
    its rows: correlations, a1(k) and its baseline, top-10 % precision, seconds per architecture."""
    truth = np.asarray(truth, dtype=float)
    n = len(truth)
    if n != len(table):
        raise InvalidSettingError(f"the truth has {n:,} values for {len(table):,} architectures")
    ks = [int(k) for k in ks]
    if n < 10 or any(not 1 <= k <= n for k in ks):
        raise InvalidSettingError(f"the table has {n:,} architectures: k must be in 1..{n:,} (got {ks}) and at "
                                  "least 10 architectures are needed for a top 10 %")
    top = max(1, round(TOP_FRACTION * n))
    proxies = [name for name in PROXIES if name in table.columns]
    rows = []
    for name in proxies:
        raw = table[name].to_numpy(dtype=float)
        values = ranked_values(raw if getattr(PROXIES[name], "higher_is_better", True) else -raw)
        spearman, kendall = correlations(truth, values)
        spearman_top, kendall_top = correlations(truth, values, top_fraction=TOP_FRACTION)
        row = {"proxy": name, "spearman": spearman, "kendall": kendall, "spearman_top10": spearman_top,
               "kendall_top10": kendall_top, "precision_top10": float(id_rate(truth, values, [top])[0])}
        for k, rate, baseline in zip(ks, id_rate(truth, values, ks), random_baseline(ks, n)):
            row[f"a1@{k}"], row[f"random@{k}"] = float(rate), float(baseline)
        row["undefined"] = int(np.sum(~np.isfinite(raw)))
        row["seconds"] = float(table[f"{name}_seconds"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def benchmark_truth(benchmark: str, table: pd.DataFrame, space: str) -> np.ndarray:
    """The benchmark's mean validation accuracy at its highest fidelity for the table's
    architectures (looked up by the benchmark); a benchmark of another space is refused."""
    from ..benchmarks import benchmark as load

    bench = load(benchmark)
    if not (hasattr(bench, "rows") and hasattr(bench, "mean_over_trials")):
        raise InvalidSettingError(f"benchmark {benchmark} is not a tabular benchmark; the truth comes from a table "
                                  "of real accuracies, e.g. nb201-cifar10 or nb101-lite")
    if bench.space.name != space:
        raise InvalidSettingError(f"benchmark {benchmark} is over the {bench.space.name} space, the table over {space}")
    rows = bench.rows([bench.space.from_text(text) for text in table["arch"]])
    return np.asarray(bench.mean_over_trials("valid_accuracy"))[np.asarray(rows, dtype=np.int64)]
