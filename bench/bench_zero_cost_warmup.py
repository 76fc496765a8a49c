"""The zero-cost warm-up (Abdelfattah et al., ICLR 2021, Sec. 5) of RE and BANANAS on NB201 CIFAR-10,
with the proxy's measured cost charged to the simulated clock (issue 32).

Run: nice -n 10 .venv/bin/python bench/bench_zero_cost_warmup.py [OUT] [SEEDS] [JOBS] [SAMPLES] [PROXY]
  OUT: results directory, resumable (default results/bench-zero-cost-warmup); SEEDS: default 50;
  JOBS: processes (default 1); SAMPLES: architectures the warm-up scores (default 3000, the
  paper's); PROXY: default synflow (the paper's)

Each optimizer runs with and without ``zero_cost_warmup=SAMPLES`` on ``nb201-cifar10`` loaded with
``proxy=PROXY`` (the embedded table's values; fidelity 0 costs each architecture's measured
seconds), the same seeds, 3e5 simulated seconds. RE takes the paper's aging-evolution settings
(population 64, tournament 10: the warm-up's top 64 of 3,000 are the initial population);
BANANAS its defaults, the warm-up choosing its 10 initial samples (the paper warms up its own
predictor-based search, whose protocol it does not publish). Printed per optimizer: the median
test regret at three budgets, with and without, and the Wilcoxon signed-rank p over seeds
(paired by seed), and the trained architectures per run.

Measured 2026-11-27 (50 seeds, synflow over 3,000, about 2 CPU minutes): median [mean] test regret %,
without -> with the warm-up:

    re       2e4 s 1.20 -> 0.35 [1.28 -> 0.43] p 9e-12; 1e5 s 0.60 -> 0.08 [0.64 -> 0.13] p 1e-9;
             3e5 s 0.25 -> 0.01 [0.28 -> 0.08] p 2e-5; trained per run 134 -> 83
    bananas  2e4 s 1.15 -> 0.35 [1.26 -> 0.43] p 2e-8; 1e5 s 0.48 -> 0.01 [0.42 -> 0.08] p 9e-7;
             3e5 s 0.00 -> 0.00 [0.14 -> 0.00] p 0.002; trained per run 92 -> 79
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon

from nasarena.runner.experiment import grid, load_results, run_experiment
from nasarena.runner.protocol import Budget

BENCHMARK = "nb201-cifar10"
BUDGET = 3e5
#: About 13, 65 and 200 full trainings of an average NB201 cell (1,500 s each, modelled).
CHECKPOINTS = (2e4, 1e5, 3e5)
OPTIMIZERS = {"re": {"population_size": 64, "tournament_size": 10}, "bananas": {}}


def specs(seeds: int, samples: int, proxy: str) -> list:
    planned = []
    for warm in (0, samples):
        settings = {name: {**base, **({"zero_cost_warmup": warm} if warm else {})} for name, base in OPTIMIZERS.items()}
        planned += grid([BENCHMARK], list(OPTIMIZERS), range(seeds), Budget(seconds=BUDGET), settings,
                        benchmark_options={"proxy": proxy})
    return sorted(planned, key=lambda spec: (spec.seed, spec.optimizer))


def regret_at(results: pd.DataFrame, times) -> pd.DataFrame:
    """Per run (optimizer, settings hash, seed) the incumbent's test regret at each of ``times``
    (NaN before its first training evaluation ends) and its number of trained architectures."""
    rows = []
    for (optimizer, settings, seed), run in results.groupby(["optimizer", "settings_hash", "seed"]):
        run = run.sort_values("sim_time")
        clock, regret = run["sim_time"].to_numpy(), run["incumbent_test_regret"].to_numpy()
        positions = np.searchsorted(clock, times, side="right") - 1
        values = [regret[p] if p >= 0 else np.nan for p in positions]
        rows.append((optimizer, settings, seed, len(run), *values))
    return pd.DataFrame(rows, columns=["optimizer", "settings_hash", "seed", "trained", *times])


def report(results: pd.DataFrame, planned: list) -> None:
    warm_of = {spec.settings_hash: dict(spec.optimizer_settings).get("zero_cost_warmup", 0) for spec in planned}
    table = regret_at(results, CHECKPOINTS)
    table["warmup"] = table["settings_hash"].map(warm_of)
    print(f"{BENCHMARK}: median [mean] test regret (%) of the incumbent at each budget, over seeds; p: Wilcoxon "
          "signed-rank, paired by seed")
    for optimizer, runs in table.groupby("optimizer"):
        without = runs[runs["warmup"] == 0].set_index("seed")
        warmed = runs[runs["warmup"] > 0].set_index("seed")
        seeds = without.index.intersection(warmed.index)
        cells = []
        for time in CHECKPOINTS:
            a, b = without.loc[seeds, time].to_numpy(), warmed.loc[seeds, time].to_numpy()
            both = np.isfinite(a) & np.isfinite(b)
            p = wilcoxon(a[both], b[both]).pvalue if both.sum() > 0 and np.any(a[both] != b[both]) else float("nan")
            cells.append(f"@{time:.0e} s: {np.nanmedian(a) * 100:.2f} -> {np.nanmedian(b) * 100:.2f} "
                         f"[means {np.nanmean(a) * 100:.3f} -> {np.nanmean(b) * 100:.3f}] (p {p:.2g}"
                         f"{'' if both.all() else f', {int((~both).sum())} runs not started'})")
        print(f"  {optimizer} ({len(seeds)} seeds; trained per run {without.loc[seeds, 'trained'].median():.0f} -> "
              f"{warmed.loc[seeds, 'trained'].median():.0f}): " + "; ".join(cells))


def main(out: Path, seeds: int, jobs: int, samples: int, proxy: str) -> None:
    planned = specs(seeds, samples, proxy)
    run_experiment(planned, out, jobs=jobs)
    report(load_results(out, planned), planned)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/bench-zero-cost-warmup"),
         int(sys.argv[2]) if len(sys.argv) > 2 else 50, int(sys.argv[3]) if len(sys.argv) > 3 else 1,
         int(sys.argv[4]) if len(sys.argv) > 4 else 3000, sys.argv[5] if len(sys.argv) > 5 else "synflow")
