"""Every multi-objective optimizer on NB201 x measured latency, scored against the exact true front.

Run: nice -n 10 .venv/bin/python bench/bench_multiobjective.py [OUT] [SEEDS] [OPTIMIZERS] [BUDGET] [JOBS]
  OUT: results directory, resumable (default results/bench-multiobjective)
  SEEDS: seeds per configuration (default 20); OPTIMIZERS: default every registered
  multi-objective optimizer (mo-rs, mo-re, nsga2, nsga2-optuna, motpe-optuna, parego-tpe,
  parego-smac, parego-bananas, mo-asha, ehvi-rf); BUDGET: simulated seconds per run (default 3e5,
  about 200 NB201 evaluations of ~1,400 s each); JOBS: processes (default 1)

Two problems: nb201-cifar10 with objectives error and latency on a Pixel 3 phone (pixel3), and
error and latency on a Raspberry Pi 4 (raspi4), the edge device of HW-NAS-Bench's measured set.
Each run's final found front (the test vectors of its validation front) is scored against the
exact true front of the table, twice (``nasarena.analysis.pareto``):

- **region** (``hv_regret_roi``, the default score): hypervolume regret on the part of the true
  front within ``MAX_ERROR_ABOVE_BEST`` error of its best, normalised by that part's ideal and
  nadir: what a hardware-aware NAS paper compares, the accurate trade-offs;
- **full box** (``hv_regret``): over the whole front, normalised by its ideal and nadir, whose
  nadir is a degenerate 90 %-error cell, so it mostly measures the inaccurate end.

Printed per problem: the true front's size and extreme points; per optimizer the median final
region regret with its interquartile range, the same for the full box, the median IGD+ of the
region, the optimizer's CPU per evaluation (measured, ``timings/``), the mean Friedman rank on the
region score and whether it is in the best Nemenyi group (98 %, seeds as blocks; * marks it),
and against mo-rs the seeds on which it has the lower region regret and the paired Wilcoxon
signed-rank p-value. The table of a run of this script is in the closing note of the session
that ran it, not typed here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from nasarena.analysis.multiobjective import PROBLEM, final_scores, front_trajectories, true_front
from nasarena.analysis.statistics import friedman_nemenyi
from nasarena.optimizers.base import REGISTRY, optimizer_class
from nasarena.runner.experiment import grid, load_results, load_timings, run_experiment
from nasarena.runner.protocol import Budget, RunSettings

BENCHMARK = "nb201-cifar10"
DEVICES = ("pixel3", "raspi4")
OPTIMIZERS = ",".join(name for name in sorted(REGISTRY) if getattr(optimizer_class(name), "multi_objective", False))
BASELINE = "mo-rs"


def _median_iqr(values: pd.Series) -> str:
    low, middle, high = np.percentile(values, [25, 50, 75])
    return f"{middle:.4f} ({high - low:.4f})"


def main(out: Path, seeds: int, optimizers: list[str], budget: float, jobs: int) -> None:
    specs = [spec for device in DEVICES
             for spec in grid([BENCHMARK], optimizers, range(seeds), Budget(seconds=budget),
                              run_settings=RunSettings(objectives=("error", f"latency:{device}")))]
    run_experiment(specs, out, jobs=jobs)
    results = load_results(out, specs)
    final = final_scores(front_trajectories(results))
    timings = load_timings(out)  # optimizer_cpu_time is cumulative over a run's evaluations
    per_run = timings.groupby("run").agg(seconds=("optimizer_cpu_time", "max"), evaluations=("evaluation", "size"))
    per_run["optimizer"] = per_run.index.str.split("__").str[1]
    totals = per_run.groupby("optimizer")[["seconds", "evaluations"]].sum()
    ms_per_evaluation = totals["seconds"] / totals["evaluations"] * 1e3
    print(f"{BENCHMARK}, {seeds} seeds, {budget:g} simulated seconds a run; median (IQR) of the final scores")
    for device in DEVICES:
        objectives = f"error,latency:{device}"
        truth = true_front(BENCHMARK, objectives)
        low_error, fastest = truth.points[np.argmin(truth.points[:, 0])], truth.points[np.argmin(truth.points[:, 1])]
        print(f"\n{BENCHMARK} x {device}: true front {len(truth.points)} points; lowest error {low_error[0]:.4f} at "
              f"{low_error[1]:.3f} ms, fastest {fastest[1]:.3f} ms at error {fastest[0]:.4f}")
        problem = final[final[PROBLEM] == f"{BENCHMARK} {objectives}"]
        regret = problem.pivot_table(index="seed", columns="optimizer", values="hv_regret_roi")
        test = friedman_nemenyi(regret)
        print(f"  Friedman p {test.p_value:.2g} (region score), Nemenyi CD {test.critical_difference:.2f} (mean ranks)")
        print(f"  {'optimizer':15s} {'region HV regret':>17s} {'full-box HV regret':>19s} {'IGD+ region':>11s} "
              f"{'CPU ms/eval':>11s} {'mean rank':>9s} {'< mo-rs':>8s} {'p vs mo-rs':>10s}")
        for name in test.mean_ranks.index:
            runs = problem[problem["optimizer"] == name]
            best = "*" if test.significant and name in test.best_group else " "
            if name == BASELINE:
                wins, p_value = "", ""
            elif np.allclose(regret[name], regret[BASELINE]):  # the same fronts (e.g. RE still sampling)
                wins, p_value = f"0/{len(regret)}", "same"
            else:
                wins = f"{int((regret[name] < regret[BASELINE]).sum())}/{len(regret)}"
                p_value = f"{stats.wilcoxon(regret[name], regret[BASELINE]).pvalue:.2g}"
            print(f"  {name:14s}{best} {_median_iqr(runs['hv_regret_roi']):>17s} {_median_iqr(runs['hv_regret']):>19s} "
                  f"{runs['igd_plus_roi'].median():11.4f} {ms_per_evaluation.get(name, np.nan):11.2f} "
                  f"{test.mean_ranks[name]:9.2f} {wins:>8s} {p_value:>10s}")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(Path(arguments[0]) if arguments else Path("results/bench-multiobjective"),
         int(arguments[1]) if len(arguments) > 1 else 20,
         (arguments[2] if len(arguments) > 2 else OPTIMIZERS).split(","),
         float(arguments[3]) if len(arguments) > 3 else 3e5,
         int(arguments[4]) if len(arguments) > 4 else 1)
