"""The two NB201 x measured-latency problems the multi-objective comparisons run (HW-NAS-Bench's
two measured devices: a Pixel 3 phone and a Raspberry Pi 4, with ``nb201-cifar10``'s error): their
runs, what an optimizer's runs cost in CPU, and the paired comparison with the baseline.

Shared by ``docs/multi-objective.md``'s main comparison (:mod:`.reproduce.multiobjective_nb201`)
and its bench tables (:mod:`.multiobjective_bench`), which read the same runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..runner.experiment import RunSpec, grid, load_timings
from ..runner.protocol import Budget, RunSettings

BENCHMARK = "nb201-cifar10"
DEVICES = ("pixel3", "raspi4")
#: What every optimizer is set against, seed by seed.
BASELINE = "mo-rs"


def objectives(device: str) -> str:
    """The run's objectives on ``device``, as ``nasarena run --objectives`` takes them."""
    return f"error,latency:{device}"


def specs(optimizers: Sequence[str], run_seeds, seconds: float, devices: Sequence[str] = DEVICES) -> list[RunSpec]:
    """Every optimizer on every problem (one per device)."""
    return [spec for device in devices
            for spec in grid([BENCHMARK], list(optimizers), run_seeds, Budget(seconds=seconds),
                             run_settings=RunSettings(objectives=tuple(objectives(device).split(","))))]


def against_baseline(scores: pd.Series, baseline: pd.Series, key: str) -> dict[str, float]:
    """Seeds on which ``scores`` beat the baseline and the paired Wilcoxon p (NaN, with
    ``same`` 1, where the two are the same fronts on every seed, e.g. RE still sampling)."""
    same = bool(np.allclose(scores, baseline))
    return {f"{key}/wins": float((scores < baseline).sum()), f"{key}/same": float(same),
            f"{key}/p_vs_baseline": float("nan") if same else float(stats.wilcoxon(scores, baseline).pvalue)}


def cpu_per_evaluation(results: Path, chosen: Sequence[RunSpec]) -> dict[str, float]:
    """``device/optimizer/cpu_ms_per_evaluation``: the optimizer's measured CPU time (the runner's
    ``timings/``, cumulative per run) over all its runs' evaluations."""
    device_of = {spec.file_name: spec.run_settings.objectives[1].split(":", 1)[1] for spec in chosen}
    timings = load_timings(results)
    timings = timings[timings["run"].isin(device_of)]
    per_run = timings.groupby("run").agg(seconds=("optimizer_cpu_time", "max"), evaluations=("evaluation", "size"))
    per_run["device"] = per_run.index.map(device_of)
    per_run["optimizer"] = per_run.index.str.split("__").str[1]
    totals = per_run.groupby(["device", "optimizer"])[["seconds", "evaluations"]].sum()
    return {f"{device}/{name}/cpu_ms_per_evaluation": float(row["seconds"] / row["evaluations"] * 1e3)
            for (device, name), row in totals.iterrows()}
