"""Proof runs of nb101-noisy: does the NB101 paper's order RS < NRE < RE reappear with training noise?

Run: nice -n 10 .venv/bin/python bench/bench_nb101_noisy.py [OUT] [SEEDS] [JOBS] [PART]
  OUT: results directory, resumable (default results/bench-nb101-noisy)
  SEEDS: seeds per configuration (default 100); JOBS: processes (default 1)
  PART: all (default), plain (no caching), cached (RE with caching) or report (only print)

Prints the validation-test correlation over all cells (the paper reports r = 0.999 at 108
epochs), then the final regret at 1e7 s of RS, NRE and RE (paper's mutation), and RE with
caching (a repeated query returns the first result at no cost) against without, with
two-sided Wilcoxon rank-sum tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy import stats

import nasarena
from nasarena.runner import Budget, RunSettings
from nasarena.runner.experiment import grid, load_results, run_experiment

BUDGET = Budget(seconds=1e7)
MAX_QUERIES = 100_000


def correlations() -> None:
    bench = nasarena.benchmark("nb101-noisy")
    values = bench.data.values[:, 0, :, 0]
    valid, test = values[..., 1], values[..., 2]
    same = np.corrcoef(valid.ravel(), test.ravel())[0, 1]
    means = np.corrcoef(valid.mean(axis=1), test.mean(axis=1))[0, 1]
    across = np.corrcoef(valid[:, 1], test[:, 0])[0, 1]
    spearman = stats.spearmanr(valid[:, 1], test[:, 0])[0]
    print(f"nb101-noisy optimum (best mean test accuracy over 3 trials): {bench.optimum():.4f} (paper: 0.9432)")
    print(f"validation-test Pearson r over all 423,624 cells: same trial {same:.4f}, means over trials {means:.4f}, "
          f"validation of trial 1 vs test of trial 0 {across:.4f} (Spearman {spearman:.4f}); paper: r = 0.999")


def final_regrets(out: Path, seeds: int, jobs: int, part: str = "all") -> None:
    specs = grid(["nb101-noisy"], ["rs", "nre", "re"], range(seeds), BUDGET)
    # with caching a converged population re-queries cached cells for free and the clock can stop:
    # a cap on queries ends such a run (runs without caching make < 10,000 queries in 1e7 s)
    specs += grid(["nb101-noisy"], ["re"], range(seeds), Budget(seconds=1e7, evaluations=MAX_QUERIES),
                  run_settings=RunSettings(caching=True))
    specs.sort(key=lambda spec: spec.seed)  # seed by seed: an interrupted run leaves balanced results
    if part != "report":  # "plain" / "cached": only the runs without / with caching (two processes)
        run_experiment([s for s in specs if part == "all" or s.run_settings.caching == (part == "cached")], out,
                       jobs=jobs)
    results = load_results(out)
    final = results.sort_values("evaluation").groupby(["optimizer", "setup", "seed"]).tail(1)
    samples = {f"{o}{'' if s == 'O' else ' +' + s}": g["incumbent_test_regret"].to_numpy()
               for (o, s), g in final.groupby(["optimizer", "setup"])}
    print(f"final test regret at {BUDGET.seconds:.0e} s on nb101-noisy (mean over 3 trials):")
    for name, regret in sorted(samples.items(), key=lambda item: np.mean(item[1])):
        evaluations = final.loc[final["optimizer"] == name.split()[0], "evaluation"].mean()
        print(f"  {name:8s} runs {len(regret):3d}  mean {regret.mean():.5f}  median {np.median(regret):.5f}  "
              f"(mean evaluations {evaluations:.0f})")
    for a, b in (("rs", "nre"), ("nre", "re"), ("rs", "re"), ("re", "re +C")):
        if a in samples and b in samples:
            p = stats.ranksums(samples[a], samples[b]).pvalue
            print(f"  Wilcoxon rank-sum {a} vs {b}: p = {p:.3g}")


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/bench-nb101-noisy")
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    part = sys.argv[4] if len(sys.argv) > 4 else "all"
    correlations()
    final_regrets(out, seeds, jobs, part)
