"""MO-ASHA (multi-fidelity) against single-fidelity multi-objective search at equal simulated time.

Run: nice -n 10 .venv/bin/python bench/bench_multiobjective_fidelity.py [OUT] [SEEDS] [OPTIMIZERS] [BUDGET] [JOBS]
  OUT: results directory, resumable (default results/bench-multiobjective-fidelity)
  SEEDS: seeds per configuration (default 20); OPTIMIZERS: default mo-asha,mo-rs,mo-re,nsga2;
  BUDGET: simulated seconds per run (default 3e5, about 200 NB201 trainings of 200 epochs);
  JOBS: processes (default 1)

The problems of ``bench/bench_multiobjective.py``: nb201-cifar10 with error and latency on a
Pixel 3 (pixel3) and on a Raspberry Pi 4 (raspi4). Every optimizer gets the same simulated time;
MO-ASHA spends it on 12-epoch trainings (about 85 s each) and promotes the best third of them,
by Pareto rank and crowding, to 200 epochs (about 1,400 s); the others train every architecture
for 200 epochs. Each run's final found front is scored against the exact true front of the
table (normalised hypervolume regret, ``nasarena.analysis.pareto``).

Printed per problem and optimizer, each as the median over the seeds and, in brackets, its
interquartile range (75th minus 25th percentile): the final HV regret in the region of interest
(``region``, the default score: the true front within 5 points of its best error,
``hv_regret_roi``) of the run's front as ``nasarena run`` and the report score it (the
non-dominated set of every evaluation's validation vector, whatever its fidelity: an
architecture seen only after 12 epochs may sit on it, and is scored by its test error after
200); when some optimizer evaluated lower fidelities, the same for the front of the 200-epoch
evaluations alone (``region@200``: what a user who deploys only fully trained networks gets;
the same front for the single-fidelity optimizers); the HV regret of the whole true front's box
(``whole front``, ``hv_regret``). Then the median number of evaluations per fidelity per run,
the median latency (ms) of the evaluated architectures (where on the front a search spends its
time), the optimizer's CPU milliseconds per evaluation (its measured time over the whole run, so
it varies with the machine's load), and against mo-rs, on the region's regret, the seeds with
the lower regret and the paired Wilcoxon signed-rank p-value.

Measured 2026-12-01 with the defaults (20 seeds, 3e5 s, one job on 2 cores shared with other
jobs, the NB201 latency data of the working tree that day), as printed:

    nb201-cifar10 error,latency:pixel3: 20 seeds, 300000 s; final HV regret: median (interquartile range)
      optimizer             region      region@200     whole front  evals@12 evals@200 latency ms/eval < mo-rs p vs mo-rs
      mo-asha      0.1142 (0.0210) 0.1142 (0.0210) 0.0088 (0.0077)       472       185    9.83    0.60   20/20    1.9e-06
      mo-rs        0.1646 (0.0299) 0.1646 (0.0299) 0.0183 (0.0080)         0       182   10.64    0.01
      mo-re        0.1063 (0.0253) 0.1063 (0.0253) 0.0079 (0.0050)         0       192    9.34    0.15   19/20    5.7e-06
      nsga2        0.1323 (0.0415) 0.1323 (0.0415) 0.0130 (0.0099)         0       201    9.19    0.07   15/20    0.00085

    nb201-cifar10 error,latency:raspi4: 20 seeds, 300000 s; final HV regret: median (interquartile range)
      optimizer             region      region@200     whole front  evals@12 evals@200 latency ms/eval < mo-rs p vs mo-rs
      mo-asha      0.1084 (0.0408) 0.1084 (0.0408) 0.0070 (0.0040)       483       189   24.58    0.62   20/20    1.9e-06
      mo-rs        0.1552 (0.0290) 0.1552 (0.0290) 0.0106 (0.0029)         0       182   25.56    0.01
      mo-re        0.1096 (0.0145) 0.1096 (0.0145) 0.0067 (0.0031)         0       197   23.11    0.18   19/20    5.7e-06
      nsga2        0.1290 (0.0448) 0.1290 (0.0448) 0.0069 (0.0040)         0       197   23.17    0.09   18/20    0.00021

MO-ASHA's region regret is below random search's on every seed on both devices, and its median
is close to mo-re's, the best single-fidelity one, at a few hundred 12-epoch evaluations besides
as many 200-epoch ones as the others make. Its scores owe nothing to the runner counting
low-fidelity evaluations in the front: the 12-epoch evaluations that stay on some final fronts
add nothing to them (region@200 equals region; checked run by run on that day's runs, the
whole-front regret is also the same without them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from nasarena.analysis.multiobjective import PROBLEM, final_scores, front_trajectories
from nasarena.runner.experiment import grid, load_results, load_timings, run_experiment
from nasarena.runner.protocol import Budget, RunSettings

BENCHMARK = "nb201-cifar10"
DEVICES = ("pixel3", "raspi4")
OPTIMIZERS = "mo-asha,mo-rs,mo-re,nsga2"
BASELINE = "mo-rs"


def _regrets(results: pd.DataFrame) -> pd.DataFrame:
    """One row per run: its final scores (``final_scores``), ``problem``, ``optimizer`` and ``seed``."""
    return final_scores(front_trajectories(results))


def _median_iqr(values: pd.Series) -> str:
    """The median and, in brackets, the interquartile range (75th minus 25th percentile)."""
    low, median, high = np.percentile(values, [25, 50, 75])
    return f"{median:.4f} ({high - low:.4f})"


def compare(out: Path, seeds: int, optimizers: list[str], budget: float, jobs: int) -> None:
    """Run the grid (resumable) and print the table of the module docstring."""
    specs = [spec for device in DEVICES
             for spec in grid([BENCHMARK], optimizers, range(seeds), Budget(seconds=budget),
                              run_settings=RunSettings(objectives=("error", f"latency:{device}")))]
    run_experiment(specs, out, jobs=jobs)
    results = load_results(out, specs)
    top = results["fidelity"].max()
    every, trained = _regrets(results), _regrets(results[results["fidelity"] == top])
    timings = load_timings(out).groupby("run").tail(1).set_index("run")["optimizer_cpu_time"]
    counts = results.groupby(["objectives", "optimizer", "seed", "fidelity"]).size()
    cpu = {(spec.run_settings.objectives[1], spec.optimizer, spec.seed): timings.get(spec.file_name, np.nan)
           for spec in specs}
    fidelities = sorted(results["fidelity"].unique())
    several = len(fidelities) > 1  # the front of the top-fidelity evaluations differs from the run's
    columns = [("region", every, "hv_regret_roi"), ("whole front", every, "hv_regret")]
    if several:
        columns.insert(1, (f"region@{top}", trained, "hv_regret_roi"))
    for device in DEVICES:
        objectives = f"error,latency:{device}"
        problem = f"{BENCHMARK} {objectives}"
        tables = [table[table[PROBLEM] == problem].pivot_table(index="seed", columns="optimizer", values=score)
                  for _, table, score in columns]
        regret = tables[0]
        print(f"\n{problem}: {seeds} seeds, {budget:g} s; final HV regret: median (interquartile range)")
        print(f"  {'optimizer':12s}" + "".join(f" {heading:>15s}" for heading, _, _ in columns)
              + "".join(f" {'evals@' + str(f):>9s}" for f in fidelities)
              + f" {'latency':>7s} {'ms/eval':>7s} {'< mo-rs':>7s} {'p vs mo-rs':>10s}")
        for name in optimizers:
            per_seed = counts.loc[objectives, name]
            present = per_seed.index.get_level_values("fidelity")
            evaluations = [int(per_seed.xs(f, level="fidelity").median()) if f in present else 0 for f in fidelities]
            total = per_seed.groupby(level="seed").sum()
            rows = results[(results["objectives"] == objectives) & (results["optimizer"] == name)]
            latency = np.median([vector[1] for vector in rows["valid_objectives"]])
            ms = np.median([cpu[f"latency:{device}", name, seed] / total[seed] * 1e3 for seed in total.index])
            if name == BASELINE or BASELINE not in regret:
                wins, p_value = "", ""
            elif np.allclose(regret[name], regret[BASELINE]):  # the same fronts
                wins, p_value = f"0/{len(regret)}", "same"
            else:
                wins = f"{int((regret[name] < regret[BASELINE]).sum())}/{len(regret)}"
                p_value = f"{stats.wilcoxon(regret[name], regret[BASELINE]).pvalue:.2g}"
            print(f"  {name:12s}" + "".join(f" {_median_iqr(table[name]):>15s}" for table in tables)
                  + "".join(f" {n:>9d}" for n in evaluations) + f" {latency:>7.2f} {ms:>7.2f} {wins:>7s} {p_value:>10s}".rstrip())

if __name__ == "__main__":
    arguments = sys.argv[1:]
    compare(Path(arguments[0]) if arguments else Path("results/bench-multiobjective-fidelity"),
            int(arguments[1]) if len(arguments) > 1 else 20,
            (arguments[2] if len(arguments) > 2 else OPTIMIZERS).split(","),
            float(arguments[3]) if len(arguments) > 3 else 3e5,
            int(arguments[4]) if len(arguments) > 4 else 1)
