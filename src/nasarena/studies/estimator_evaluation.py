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
value (ties among them share the places), and ``undefined`` counts them (per estimator: how
many of the architectures it is judged on). The seconds per architecture (the mean measured
cost) go beside the quality.

A table is judged only against benchmarks of its own space, needs at least 10 architectures (a
top 10 %) and every k in 1..N; a table that holds an architecture in more than one row is
refused, not de-duplicated (:func:`nasarena.studies.estimator_table.table_problems`): each copy
would count in every correlation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.supernet.identification import correlations, id_rate, random_baseline
from ..errors import InvalidSettingError
from ..estimators import PROXIES
from .estimator_table import table_problems

TOP_FRACTION = 0.1


def ranked_values(values) -> np.ndarray:
    """A proxy's values with every undefined (non-finite) one set below the smallest defined one."""
    values = np.asarray(values, dtype=float).copy()
    defined = np.isfinite(values)
    floor = values[defined].min() - 1.0 if defined.any() else 0.0
    values[~defined] = floor
    return values


def check_thresholds(ks: Sequence[int], n: int) -> None:
    """Refuse a judgement of ``n`` architectures that cannot be made: fewer than 10 (no top 10 %),
    or a k of a1(k) outside 1..n (a top k larger than the table has no meaning)."""
    if n < 10:
        raise InvalidSettingError(f"{n:,} architectures to judge: at least 10 are needed for a top 10 %")
    outside = [int(k) for k in ks if not 1 <= int(k) <= n]
    if outside:
        raise InvalidSettingError(f"--ks {','.join(str(k) for k in outside)}: every k of a1(k) must be in 1..{n:,}, "
                                  f"the number of architectures judged")


def check_table(table: pd.DataFrame) -> None:
    """Refuse a table that cannot be judged, naming each of its
    :func:`~nasarena.studies.estimator_table.table_problems` (a table with an architecture in more
    than one row among them: refused, not de-duplicated)."""
    problems = table_problems(table)
    if problems:
        raise InvalidSettingError(f"the table cannot be evaluated: {'; '.join(problems)}")


def rank_quality(truth, values, ks: Sequence[int]) -> dict[str, float]:
    """The metrics of one estimator's ``values`` (higher: better; undefined ones rank last)
    against ``truth``: correlations over all and the true top 10 %, top-10 % precision, a1(k)
    and its random baseline for each k, and how many values were undefined."""
    truth, raw = np.asarray(truth, dtype=float), np.asarray(values, dtype=float)
    n = len(truth)
    ks = [int(k) for k in ks]
    check_thresholds(ks, n)
    ranked = ranked_values(raw)
    spearman, kendall = correlations(truth, ranked)
    spearman_top, kendall_top = correlations(truth, ranked, top_fraction=TOP_FRACTION)
    top = max(1, round(TOP_FRACTION * n))
    row = {"n": n, "spearman": spearman, "kendall": kendall, "spearman_top10": spearman_top,
           "kendall_top10": kendall_top, "precision_top10": float(id_rate(truth, ranked, [top])[0])}
    for k, rate, baseline in zip(ks, id_rate(truth, ranked, ks), random_baseline(ks, n)):
        row[f"a1@{k}"], row[f"random@{k}"] = float(rate), float(baseline)
    row["undefined"] = int(np.sum(~np.isfinite(raw)))
    return row


def undefined_notes(metrics: pd.DataFrame) -> list[str]:
    """One sentence per estimator of ``metrics`` with undefined values: how many of the
    architectures it is judged on have none, ranked last (tied), so a reader sees how much of its
    ranking that decides."""
    return [f"undefined: {row['estimator']} has no value for {int(row['undefined']):,} of {int(row['n']):,} "
            "architectures (NaN or -inf); they rank last, tied" for _, row in metrics.iterrows() if row["undefined"]]


def evaluate_proxies(table: pd.DataFrame, truth: np.ndarray, ks: Sequence[int]) -> pd.DataFrame:
    """One row per proxy of ``table`` (a table of :mod:`.table`) against ``truth``, aligned with
    its rows: correlations, a1(k) and its baseline, top-10 % precision, seconds per architecture."""
    check_table(table)
    truth = np.asarray(truth, dtype=float)
    if len(truth) != len(table):
        raise InvalidSettingError(f"the truth has {len(truth):,} values for {len(table):,} architectures")
    return judge(proxy_estimators(table), truth, ks).rename(columns={"estimator": "proxy"})


def benchmark_truth(benchmark: str, table: pd.DataFrame, space: str) -> np.ndarray:
    """The benchmark's mean validation accuracy at its highest fidelity for the table's
    architectures (looked up by the benchmark); a benchmark of another space is refused."""
    bench, rows = _tabular_rows(benchmark, table, space)
    return np.asarray(bench.mean_over_trials("valid_accuracy"))[rows]


def _tabular_rows(benchmark: str, table: pd.DataFrame, space: str):
    """The tabular benchmark ``benchmark`` and its rows of the table's architectures (a table of
    ``space``, checked first: :func:`check_table`)."""
    from ..benchmarks import benchmark as load

    check_table(table)
    bench = load(benchmark)
    if not (hasattr(bench, "rows") and hasattr(bench, "mean_over_trials")):
        raise InvalidSettingError(f"benchmark {benchmark} is not a tabular benchmark; the truth comes from a table "
                                  "of real accuracies, e.g. nb201-cifar10 or nb101-lite")
    if bench.space.name != space:
        raise InvalidSettingError(f"benchmark {benchmark} is over the {bench.space.name} space, the table over {space}: "
                                  "a table is judged only against benchmarks of its own space")
    return bench, np.asarray(bench.rows([bench.space.from_text(text) for text in table["arch"]]), dtype=np.int64)


# -- every kind of cheap estimator side by side (NB201) -------------------------------------------

#: The built-in surrogate compared on NB201 (judged on the architectures it held out only).
NB201_SURROGATE = "nb201-cifar10-xgb-v1.0"
#: The embedded GDAS supernet's checkpoint compared: its last (epoch 249).
SUPERNET_CHECKPOINT = -1
SHORT_TRAINING_EPOCHS = 12


@dataclass(frozen=True)
class Estimator:
    """One estimator's scores of a table's architectures (higher: better; NaN where it gives
    none), its cost per architecture (NaN: not known) and where that cost comes from."""

    name: str
    kind: str
    values: np.ndarray
    seconds: float
    cost: str
    judged: np.ndarray | None = None  # the architectures it is judged on (None: all of the table)


def compare_estimators(table: pd.DataFrame, benchmark: str, ks: Sequence[int], surrogate: bool = True) -> pd.DataFrame:
    """Every estimator of an NB201 table's architectures against ``benchmark``'s validation
    accuracy at 200 epochs, one row each: the table's proxies, the benchmark's 12-epoch accuracy
    (short training), the embedded GDAS supernet and, with ``surrogate``, the built-in NB201
    surrogate on its held-out architectures only (its own ``n`` and random baselines; left out,
    and named in ``frame.attrs["skipped"]``, when the table holds fewer than 10 or than the
    largest k of them)."""
    bench, rows = _tabular_rows(benchmark, table, "nb201")
    estimators = [*proxy_estimators(table), short_training(bench, rows), gdas_supernet(rows)]
    if surrogate:
        estimators.append(builtin_surrogate(rows))
    return with_published(judge(estimators, np.asarray(bench.mean_over_trials("valid_accuracy"))[rows], ks), benchmark)


def compare_with_training(table: pd.DataFrame, benchmark: str, ks: Sequence[int], space: str) -> pd.DataFrame:
    """The table's proxies beside short training, against ``benchmark``'s validation accuracy at
    its highest fidelity: one short-training estimator per lower fidelity of the benchmark (NB101's
    slice: 4, 12 and 36 epochs), for a table of ``space``; a benchmark of another space, or one
    lacking some of the table's architectures, is refused."""
    bench, rows = _tabular_rows(benchmark, table, space)
    truth = np.asarray(bench.mean_over_trials("valid_accuracy"))[rows]
    training = [short_training(bench, rows, epochs) for epochs in bench.fidelities[:-1]]
    return with_published(judge([*proxy_estimators(table), *training], truth, ks), benchmark)


def with_published(metrics: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """``metrics`` with a ``published_spearman`` column: each proxy's published |Spearman rho| on
    ``benchmark``'s labels (:mod:`.published`; NaN where there is none)."""
    from ..estimators.published import published_spearman

    if metrics.empty:
        return metrics
    return metrics.assign(published_spearman=[published_spearman(name, benchmark) for name in metrics["estimator"]])


def judge(estimators: Sequence[Estimator], truth: np.ndarray, ks: Sequence[int]) -> pd.DataFrame:
    """One row per estimator: its quality against ``truth`` (on the architectures it is judged on)
    and its cost. A table too small for the judgement, or a k beyond it, is refused
    (:func:`check_thresholds`); an estimator judged on too few of its architectures (the
    surrogate, on its held-out ones) is left out and named in ``frame.attrs["skipped"]``."""
    check_thresholds(ks, len(truth))
    records, skipped = [], []
    for estimator in estimators:
        judged = np.ones(len(truth), dtype=bool) if estimator.judged is None else estimator.judged
        if judged.sum() < max(10, *ks):  # a small table holds too few of the surrogate's held-out architectures
            skipped.append(f"{estimator.name}: {int(judged.sum())} architectures to judge it on, too few")
            continue
        records.append({"estimator": estimator.name, "kind": estimator.kind,
                        **rank_quality(truth[judged], estimator.values[judged], ks),
                        "seconds": estimator.seconds, "cost": estimator.cost})
    frame = pd.DataFrame(records)
    frame.attrs["skipped"] = skipped
    return frame


def proxy_estimators(table: pd.DataFrame) -> list[Estimator]:
    """The table's proxies, each with its mean measured seconds."""
    found = []
    for name in (name for name in PROXIES if name in table.columns):
        raw = table[name].to_numpy(dtype=float)
        kind = "baseline" if name in ("params", "flops") else "zero-cost proxy"
        found.append(Estimator(name, kind, raw if getattr(PROXIES[name], "higher_is_better", True) else -raw,
                               float(table[f"{name}_seconds"].mean()), "measured, one CPU thread"))
    return found


def short_training(bench, rows: np.ndarray, epochs: int = SHORT_TRAINING_EPOCHS) -> Estimator:
    """The benchmark's validation accuracy after ``epochs``; its cost is the benchmark's training
    cost at ``epochs`` (NB201: modelled from FLOPs, which it publishes instead of usable training
    times; NB101's slice: the real 108-epoch time scaled by epochs / 108)."""
    values = np.asarray(bench.mean_over_trials("valid_accuracy", epochs))[rows]
    seconds = np.asarray(bench.mean_over_trials("cost_seconds", epochs))[rows]
    modelled = "cost_seconds" in bench.data.modelled
    return Estimator(f"train-{epochs}ep", "short training", values, float(seconds.mean()),
                     "the benchmark's training cost" + (" (modelled)" if modelled else ""))


def gdas_supernet(rows: np.ndarray) -> Estimator:
    """The embedded GDAS supernet's one-shot accuracy at its last checkpoint (trained on CIFAR-10;
    the data holds no training time, so its cost is not known)."""
    from ..io.packaged import NB201_GDAS_SUPERNET_FILE, load_arrays

    arrays = load_arrays(NB201_GDAS_SUPERNET_FILE)
    epoch = str(arrays["checkpoints"][SUPERNET_CHECKPOINT])
    return Estimator(f"gdas-supernet@{epoch}", "supernet", arrays["scores"][SUPERNET_CHECKPOINT][rows].astype(float),
                     float("nan"), "not in the data (supernet training time unrecorded)")


def builtin_surrogate(rows: np.ndarray) -> Estimator:
    """The built-in NB201 surrogate's 200-epoch prediction, judged on the table's architectures
    in its test split only (the architectures its fit never saw; the validation split stopped
    its boosting early). Its cost: the measured seconds of a tabulated query, per architecture;
    the 200-epoch trainings of its training architectures are not charged."""
    import time

    artifact, test_rows = _surrogate_and_test_rows()
    start = time.perf_counter()
    values, _ = artifact.prediction_table.predict(rows, artifact.fidelity)
    seconds = (time.perf_counter() - start) / len(rows)
    return Estimator(NB201_SURROGATE, "surrogate", values, seconds,
                     "measured query of its tabulated predictions; its training data not charged",
                     np.isin(rows, test_rows))


@lru_cache(maxsize=1)
def _surrogate_and_test_rows() -> tuple[Any, np.ndarray]:
    """The surrogate's artefact and the NB201 rows of its test split (loaded once: seconds)."""
    from ..benchmarks.surrogate import load_builtin
    from .builtin_surrogates import training_data

    artifact: Any = load_builtin(NB201_SURROGATE).artifact
    data: Any
    data, _ = training_data(NB201_SURROGATE)
    if data.sha256 != artifact.data.sha256:
        raise InvalidSettingError(f"{NB201_SURROGATE} was fitted on other data than its recipe builds now; "
                                  "its held-out architectures cannot be named")
    return artifact, np.unique(data.archs.rows[artifact.data.split.test])
