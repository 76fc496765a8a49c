"""The NAS-Bench-1Shot1 spaces: their counts, the test-accuracy distributions of Fig. 6, and
discrete NAS on them through an NB101 table.

Run: .venv/bin/python bench/bench_oneshot_spaces.py [--nb101 nb101-lite] [--seeds 10]
     [--budget 1e6] [--optimizers rs,re,ls]

Prints, per space: the four architecture sets of ``nasarena.spaces.oneshot.enumeration`` next
to the paper's Table 1 and how long each takes to build and hash; the quartiles of the final
test accuracy with and without loose ends (the paper's Fig. 6 shows these distributions) and
the best cell of each set; then the mean final test regret of each optimizer over ``--seeds``
runs of ``--budget`` simulated seconds (regret against the best cell of the space).
"""

import argparse
import time

import numpy as np

from nasarena.benchmarks import benchmark
from nasarena.benchmarks.oneshot import OneShotBenchmark, oneshot_accuracies
from nasarena.optimizers import make
from nasarena.runner.protocol import Budget, run
from nasarena.spaces.oneshot import ONESHOT_SPACES, PAPER_COUNTS, architectures


def counts_table() -> None:
    print("space        set                         ours       paper    seconds")
    for name, (paper_with, paper_without) in PAPER_COUNTS.items():
        for loose_ends, complete, paper in ((True, False, paper_with), (True, True, None),
                                            (False, False, paper_without), (False, True, None)):
            start = time.perf_counter()
            archs = architectures(name, loose_ends, complete)
            archs.nb101_rows()
            seconds = time.perf_counter() - start
            label = f"{'with' if loose_ends else 'without'} loose ends, {'complete' if complete else 'authors'}"
            print(f"{name:12} {label:27} {len(archs):>9,} {'' if paper is None else f'{paper:,}':>11} {seconds:>9.2f}")


def distributions(nb101) -> None:
    print(f"\nfinal test accuracy in {nb101.name} (quartiles; Fig. 6 of the paper)")
    print("space        loose ends   count        q25       median     q75        best")
    for name in ONESHOT_SPACES:
        for loose_ends in (True, False):
            accuracy = oneshot_accuracies(name, nb101, loose_ends)
            q25, q50, q75 = np.nanquantile(accuracy, [0.25, 0.5, 0.75])
            print(f"{name:12} {str(loose_ends):10} {len(accuracy):>8,} {q25:>10.4f} {q50:>10.4f} {q75:>10.4f} "
                  f"{np.nanmax(accuracy):>10.4f}")


def discrete_nas(nb101, optimizers: list[str], seeds: int, budget: float) -> None:
    print(f"\nmean final test regret over {seeds} seeds, budget {budget:g} simulated seconds")
    print("space        optimizer   mean regret   median regret   evaluations   seconds")
    for name in ONESHOT_SPACES:
        bench = OneShotBenchmark(name, nb101)
        for optimizer in optimizers:
            start = time.perf_counter()
            finals, evaluations = [], []
            for seed in range(seeds):
                frame = run(bench, make(optimizer, bench.space, seed=seed), Budget(seconds=budget), seed)
                finals.append(frame["incumbent_test_regret"].iloc[-1])
                evaluations.append(len(frame))
            print(f"{name:12} {optimizer:10} {np.mean(finals):>12.5f} {np.median(finals):>15.5f} "
                  f"{np.mean(evaluations):>13.1f} {time.perf_counter() - start:>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nb101", default="nb101-lite")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=float, default=1e6)
    parser.add_argument("--optimizers", default="rs,re,ls")
    args = parser.parse_args()
    nb101 = benchmark(args.nb101)
    counts_table()
    distributions(nb101)
    discrete_nas(nb101, args.optimizers.split(","), args.seeds, args.budget)


if __name__ == "__main__":
    main()
