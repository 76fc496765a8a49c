"""NAS-Bench-1Shot1's discrete comparison (its Sec. 5.4, Figs. 5 and 15-18): RS, RE, TPE, HB, BOHB
and SMAC on the three spaces, on their default table (nb101-noisy, NB101's three trials).

Run: nice -n 10 .venv/bin/python bench/bench_nb1shot1_discrete.py [OUT] [SEEDS] [JOBS] [BUDGET]
  OUT: results directory, resumable, and shareable by a second process with the same arguments
  (default results/bench-nb1shot1-discrete); SEEDS: default 20; JOBS: processes (default 1);
  BUDGET: simulated seconds per run (default 1e6)

What the paper ran (its code, automl/nasbench-1shot1, ``optimizers/discrete``): RS and RE for 280
evaluations (RE: population 100, sample 10), HB and BOHB for 280 SuccessiveHalving iterations from
4 to 108 epochs (eta 3), 500 repetitions each, NB101's API drawing one of the three trials per
query; regret is the test error against the space's lowest mean test error. Its figures show the
mean +- std of the incumbent's test regret over simulated wall-clock time; the text gives no number
for the discrete optimizers, only that RE is the strongest ("a state-of-the-art discrete NAS
optimizer" that tuned DARTS beats on CS2 and that no sampled configuration beats on CS1 and CS3).

Here every optimizer gets the same simulated-time budget under nasarena's one protocol (1e6 s,
the order of the paper's 280 RE evaluations: about 400-600 full evaluations); SMAC is ``smac``,
nasarena's vectorised re-implementation of SMAC3's facade (``bench_equivalence.py``), 30x faster
than the library-backed ``smac3`` on these spaces. Printed per space: each optimizer's mean,
standard deviation and median final test regret, its mean regret at 1e4, 1e5 and the budget, its
evaluations, and the Friedman/Nemenyi best group over seeds (98 %).

The published table is generated from the same runs by ``nasarena reproduce nas-bench-1shot1``
(``nasarena.studies.reproduce.nb1shot1_discrete``, the page docs/reproduce/nas-bench-1shot1.md and
its recorded values, which the report's note quotes); this script prints more columns of them.
The whole run takes about 20 CPU minutes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from nasarena.analysis.curves import incumbent_curves
from nasarena.analysis.statistics import friedman_nemenyi
from nasarena.analysis.trajectories import final_results
from nasarena.runner.experiment import grid, load_results, run_experiment
from nasarena.runner.protocol import Budget

SPACES = ["nb1shot1-1", "nb1shot1-2", "nb1shot1-3"]
OPTIMIZERS = ["rs", "re", "tpe", "hb", "bohb", "smac"]
CHECKPOINTS = (1e4, 1e5)


def main(out: Path, seeds: int, jobs: int, budget: float) -> None:
    specs = grid(SPACES, OPTIMIZERS, range(seeds), Budget(seconds=budget))
    specs.sort(key=lambda spec: (spec.seed, spec.benchmark, spec.optimizer))
    run_experiment(specs, out, jobs=jobs)
    report(load_results(out, specs), budget)


def report(results, budget: float) -> None:
    final = final_results(results)
    points = (*CHECKPOINTS, budget)
    curves = incumbent_curves(results, grid=np.array(points))
    header = (f"{'optimizer':10} {'runs':>4} {'mean':>8} {'sd':>8} {'median':>8} "
              + " ".join(f"{f'@{p:.0e}':>8}" for p in points) + f" {'evals':>6}  best group")
    for space, runs in final.groupby("benchmark"):
        scores = runs.pivot_table(index="seed", columns="optimizer", values="incumbent_test_regret")
        test = friedman_nemenyi(scores)
        print(f"\n{space}: final test regret (x 10^3) over {scores.shape[0]} seeds; Friedman p = {test.p_value:.2g}")
        print("  " + header)
        for optimizer in test.mean_ranks.index:
            regret = runs.loc[runs["optimizer"] == optimizer, "incumbent_test_regret"] * 1e3
            evaluations = results[(results["benchmark"] == space) & (results["optimizer"] == optimizer)] \
                .groupby("seed").size().mean()
            at = curves[(curves["benchmark"] == space) & (curves["label"] == optimizer)]["mean"].to_numpy() * 1e3
            marks = "*" if test.significant and optimizer in test.best_group else ""
            print(f"  {optimizer:10} {len(regret):>4} {regret.mean():>8.3f} {regret.std():>8.3f} {regret.median():>8.3f} "
                  + " ".join(f"{v:>8.3f}" for v in at) + f" {evaluations:>6.0f}  {marks}")


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/bench-nb1shot1-discrete")
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    budget = float(sys.argv[4]) if len(sys.argv) > 4 else 1e6
    main(out, seeds, jobs, budget)
