"""The main comparison of ``docs/multi-objective.md``: every multi-objective optimizer on NB201 x
measured latency, scored against the exact true front.

Two problems: ``nb201-cifar10`` with error and latency on a Pixel 3 phone, and with error and
latency on a Raspberry Pi 4 (HW-NAS-Bench's two measured devices). Each run's final found front
is scored in the region of interest (``hv_regret_roi``, the default score) and over the whole
front (``hv_regret``) (:mod:`nasarena.analysis.multiobjective`). Per problem the block prints the
true front's size and ends, then per optimizer the median final region and full-box regret with
their interquartile range, the median region IGD+, the mean Friedman rank on the region score
(* the best Nemenyi group of a significant test, 98 %, seeds as blocks), against ``mo-rs`` the
seeds with a lower region regret and the paired Wilcoxon signed-rank p-value, the mean number of
evaluations and the optimizer's CPU per evaluation (a timing: recorded, never compared).

Full scale: the ten optimizers, 20 seeds, 3e5 simulated seconds a run (about 200 evaluations),
about 20 CPU minutes. Cheap scale: ``mo-rs``, ``mo-re`` and ``nsga2`` (sampling, mutation, sorting
and crowding: no model is fitted, so the values do not depend on the CPU's floating-point paths),
two seeds, 1.5e5 s (about 100 evaluations: past NSGA-II's random initial population).
``bench/bench_multiobjective.py`` prints the same table for other settings.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...analysis.multiobjective import PROBLEM, final_scores, front_trajectories, true_front
from ...analysis.statistics import friedman_nemenyi
from ...runner.experiment import RunSpec
from ..latency_problems import BASELINE, BENCHMARK, DEVICES, against_baseline, cpu_per_evaluation, objectives, specs
from .common import configurations, p_value, run_specs, seeds
from .pages import Generated
from .recorded import CHEAP

#: Every registered multi-objective optimizer (a test checks the list against the registry).
OPTIMIZERS = ("mo-rs", "mo-re", "nsga2", "nsga2-optuna", "motpe-optuna", "parego-tpe", "parego-smac",
              "parego-bananas", "mo-asha", "ehvi-rf")
SEEDS = range(20)
SECONDS = 3e5
CHEAP_OPTIMIZERS = ("mo-rs", "mo-re", "nsga2")
CHEAP_SEEDS = range(2)
CHEAP_SECONDS = 1.5e5


def scale_specs(scale: str) -> list[RunSpec]:
    if scale == CHEAP:
        return specs(CHEAP_OPTIMIZERS, CHEAP_SEEDS, CHEAP_SECONDS)
    return specs(OPTIMIZERS, SEEDS, SECONDS)


def generate(scale: str, results: Path, jobs: int) -> Generated:
    chosen = scale_specs(scale)
    runs = run_specs(chosen, results, jobs)
    values = summarise(runs)
    timings = cpu_per_evaluation(results, chosen)
    return Generated(table(values, timings), values, configurations(chosen), seeds(chosen), timings)


def summarise(runs: pd.DataFrame) -> dict[str, float]:
    """Per device: the true front and the Friedman test; per device and optimizer: the final
    scores' quartiles, mean rank, best group, comparison with ``BASELINE`` and evaluations."""
    final = final_scores(front_trajectories(runs))
    values: dict[str, float] = {}
    for device in DEVICES:
        problem = final[final[PROBLEM] == f"{BENCHMARK} {objectives(device)}"]
        if problem.empty:
            continue
        truth = true_front(BENCHMARK, objectives(device)).points
        accurate, fastest = truth[np.argmin(truth[:, 0])], truth[np.argmin(truth[:, 1])]
        values.update({f"{device}/front_points": float(len(truth)), f"{device}/lowest_error": float(accurate[0]),
                       f"{device}/lowest_error_ms": float(accurate[1]), f"{device}/fastest_ms": float(fastest[1]),
                       f"{device}/fastest_error": float(fastest[0])})
        regret = problem.pivot_table(index="seed", columns="optimizer", values="hv_regret_roi")
        test = friedman_nemenyi(regret)
        values[f"{device}/seeds"] = float(len(regret.dropna()))
        values[f"{device}/friedman_p"] = test.p_value
        values[f"{device}/critical_difference"] = test.critical_difference
        mine = runs[runs["objectives"] == objectives(device)]
        for name in test.mean_ranks.index:
            key = f"{device}/{name}"
            scores = problem[problem["optimizer"] == name]
            for score, label in (("hv_regret_roi", "region"), ("hv_regret", "full")):
                low, middle, high = np.percentile(scores[score], [25, 50, 75])
                values.update({f"{key}/{label}_q25": float(low), f"{key}/{label}_median": float(middle),
                               f"{key}/{label}_q75": float(high)})
            values[f"{key}/igd_region_median"] = float(scores["igd_plus_roi"].median())
            values[f"{key}/mean_rank"] = float(test.mean_ranks[name])
            values[f"{key}/best_group"] = float(test.significant and name in test.best_group)
            values[f"{key}/evaluations"] = float(mine[mine["optimizer"] == name].groupby("seed").size().mean())
            if name != BASELINE and BASELINE in regret.columns:
                values.update(against_baseline(regret[name], regret[BASELINE], key))
    return values


def _quartiles(values: dict[str, float], key: str) -> str:
    return f"{values[f'{key}_median']:.4f} ({values[f'{key}_q75'] - values[f'{key}_q25']:.4f})"


def optimizers_of(values: dict[str, float], device: str) -> list[str]:
    """The optimizers of a problem, best mean rank first."""
    names = {key.split("/")[1] for key in values if key.startswith(f"{device}/") and key.endswith("/mean_rank")}
    return sorted(names, key=lambda name: (values[f"{device}/{name}/mean_rank"], name))


def _versus(values: dict[str, float], key: str, runs: int) -> tuple[str, str]:
    if f"{key}/wins" not in values:
        return "", ""
    if values[f"{key}/same"]:
        return f"0/{runs}", "same fronts"
    return f"{values[f'{key}/wins']:.0f}/{runs}", p_value(values[f"{key}/p_vs_baseline"])


def table(values: dict[str, float], timings: dict[str, float]) -> str:
    """Per problem, a line on its true front and the Friedman test, then one row per optimizer."""
    parts = []
    for device in DEVICES:
        if f"{device}/friedman_p" not in values:
            continue
        names = optimizers_of(values, device)
        runs = int(values[f"{device}/seeds"])
        parts += [f"**{BENCHMARK} x {device}**: true front of {values[f'{device}/front_points']:.0f} points, from "
                  f"error {values[f'{device}/lowest_error']:.4f} at {values[f'{device}/lowest_error_ms']:.3f} ms to "
                  f"{values[f'{device}/fastest_ms']:.3f} ms at error {values[f'{device}/fastest_error']:.4f}; "
                  f"Friedman p {p_value(values[f'{device}/friedman_p'])} on the region score, Nemenyi critical "
                  f"difference {values[f'{device}/critical_difference']:.2f} mean ranks.", "",
                  "| optimizer | region HV regret, median (IQR) | full-box HV regret, median (IQR) | region IGD+, "
                  f"median | mean rank | seeds below {BASELINE} | Wilcoxon p vs {BASELINE} | evaluations | "
                  "CPU ms / evaluation |", "|---|---|---|---|---|---|---|---|---|"]
        for name in names:
            key = f"{device}/{name}"
            wins, p = _versus(values, key, runs)
            cpu = timings.get(f"{key}/cpu_ms_per_evaluation", float("nan"))
            best = "*" if values[f"{key}/best_group"] else ""
            parts.append(f"| {name}{best} | {_quartiles(values, f'{key}/region')} | "
                         f"{_quartiles(values, f'{key}/full')} | {values[f'{key}/igd_region_median']:.4f} | "
                         f"{values[f'{key}/mean_rank']:.2f} | {wins} | {p} | {values[f'{key}/evaluations']:.0f} | "
                         f"{cpu:.2f} |")
        parts.append("")
    return "\n".join(parts).strip("\n")
