"""Optimizer overhead of irace, BANANAS and DE against random search on nb101-lite, in one run.

The overhead is the optimizer's own CPU time (ask + tell, the runner's ``optimizer_cpu_time``)
per evaluation. BANANAS retrains its ensemble every 10 results on all results so far, so its
overhead grows with the budget; the cost of one ensemble training at a few training-set sizes
is printed as well.

Run: .venv/bin/python bench/bench_optimizers_extra.py [evaluations] [seeds]
  evaluations: budget of each run (default 300)
  seeds: runs per optimizer (default 2)
"""

import sys
import time

import numpy as np

import nasarena
from nasarena.optimizers import make
from nasarena.runner import Budget, run

OPTIMIZERS = ("rs", "irace", "de", "bananas")


def overheads(bench, evaluations: int, seeds: int) -> None:
    run(bench, make("rs", bench.space, seed=0), Budget(evaluations=50), seed=0)  # load look-up tables first
    print(f"{'optimizer':10s} {'evals':>6s} {'optimizer CPU us/eval':>22s} {'wall us/eval':>13s} {'final regret':>13s}")
    for name in OPTIMIZERS:
        cpu, wall, regrets = [], [], []
        for seed in range(seeds):
            start = time.perf_counter()
            frame = run(bench, make(name, bench.space, seed=seed), Budget(evaluations=evaluations), seed=seed)
            wall.append((time.perf_counter() - start) / len(frame))
            cpu.append(frame.optimizer_cpu_time.iloc[-1] / len(frame))
            regrets.append(frame.incumbent_test_regret.iloc[-1])
        print(f"{name:10s} {evaluations:6d} {np.mean(cpu) * 1e6:22.1f} {np.mean(wall) * 1e6:13.1f} "
              f"{np.mean(regrets):13.5f}")


def ensemble_training(bench, sizes=(100, 300, 1000)) -> None:
    """CPU seconds of one BANANAS retraining (5 MLPs) on n random NB101 cells."""
    from nasarena.optimizers.bananas import PredictorEnsemble

    rng = np.random.default_rng(0)
    cells = [bench.space.sample(rng) for _ in range(max(sizes))]
    x = np.stack([bench.space.encode(c, "path") for c in cells]).astype(np.float32)
    y = np.array([bench.query(c, rng=rng).valid_accuracy for c in cells])
    for n in sizes:
        start = time.process_time()
        PredictorEnsemble(rng.integers(2**31, size=5), epochs=200, batch_size=200).fit(x[:n], y[:n])
        spent = time.process_time() - start
        print(f"BANANAS ensemble training on {n:5d} results: {spent:6.2f} s CPU "
              f"(retraining every 10 results: {spent / 10 * 1e6:9.0f} us/eval)")


if __name__ == "__main__":
    evaluations = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    lite = nasarena.benchmark("nb101-lite")
    overheads(lite, evaluations, seeds)
    ensemble_training(lite)
