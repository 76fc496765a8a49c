"""SMAC's forest fit: the depth-by-depth builder (``nasarena.optimizers.integer_trees``) against
scikit-learn's tree builder, on the histories a real SMAC run fits its forest on.

Run: nice -n 10 .venv/bin/python bench/bench_integer_trees.py [--sizes 250,1000,2500,4000] [--repeats 3]

A ``smac`` run on nb101-lite (seed 0, 1e7 s simulated: ~4,150 evaluations) records the model
inputs of its first refit at or above each size (configurations as category indices, their
log-scaled costs). On each, both build five trees on the same five bootstrap samples: scikit-learn's
``DecisionTreeRegressor`` with SMAC3's options, one tree after another (what ``LogForest`` did
before), and ``grow_forest``. Reported: CPU milliseconds per forest (best of ``repeats``), the
ratio, and the mean node count of each (equal up to ties between equally good splits).

Measured (2026-11-26, 2 cores, beside one other benchmark process):

    rows   scikit-learn ms  depth-by-depth ms  ratio  nodes (sklearn / ours)
     257              4.5               3.7    1.2x         242 / 242
    1001             11.4               8.0    1.4x         929 / 929
    2505             25.8              15.0    1.7x        2166 / 2166
    4001             42.2              23.5    1.8x        3532 / 3534

and over a whole 1e7 s run (``bench/bench_optimizer_cpu.py --optimizers smac``) SMAC's CPU per
evaluation went from 7.19 ms to 4.79 ms (with the local search scoring only real neighbours).
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np

import nasarena
from nasarena.optimizers import make
from nasarena.optimizers.integer_trees import ThresholdColumns, grow_forest
from nasarena.optimizers.random_forest import MIN_IMPURITY_DECREASE, LogForest
from nasarena.runner.protocol import Budget, run


def recorded_histories(sizes: list[int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The forest's inputs at SMAC's first refit at or above each size, from one full run."""
    histories: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    original = LogForest.fit

    def recording_fit(forest, x, log_costs):
        for size in sizes:
            if size not in histories and len(x) >= size:
                histories[size] = (np.array(x), np.array(log_costs))
        return original(forest, x, log_costs)

    bench = nasarena.benchmark("nb101-lite")
    with mock.patch.object(LogForest, "fit", recording_fit):
        run(bench, make("smac", bench.space, seed=0), Budget(seconds=1e7), seed=0)
    return histories


def scikit_learn_forest(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> list:
    from sklearn.tree import DecisionTreeRegressor

    rows = np.ascontiguousarray(x, dtype=np.float32)
    return [DecisionTreeRegressor(min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=MIN_IMPURITY_DECREASE,
                                  random_state=i).fit(rows, y, sample_weight=w).tree_ for i, w in enumerate(weights)]


def best_cpu_ms(call, repeats: int):
    times, result = [], None
    for _ in range(repeats):
        start = time.process_time()
        result = call()
        times.append(time.process_time() - start)
    return min(times) * 1e3, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="250,1000,2500,4000")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    histories = recorded_histories(sizes)
    print(f"{'rows':>6s} {'scikit-learn ms':>16s} {'depth-by-depth ms':>18s} {'ratio':>6s}  nodes (sklearn / ours)")
    rng = np.random.default_rng(0)
    for size in sizes:
        if size not in histories:
            print(f"{size:>6d}  (the run never refitted on this many rows)")
            continue
        x, y = histories[size]
        n = len(x)
        weights = np.stack([np.bincount(rng.integers(n, size=n), minlength=n) for _ in range(5)]).astype(np.float64)
        reference_ms, reference = best_cpu_ms(lambda: scikit_learn_forest(x, y, weights), args.repeats)
        ours_ms, ours = best_cpu_ms(lambda: grow_forest(ThresholdColumns(x), y, weights, np.random.default_rng(1),
                                                        MIN_IMPURITY_DECREASE), args.repeats)
        reference_nodes = np.mean([tree.node_count for tree in reference])
        our_nodes = np.mean([tree.node_count for tree, _ in ours])
        print(f"{n:>6d} {reference_ms:>16.1f} {ours_ms:>18.1f} {reference_ms / ours_ms:>5.1f}x  "
              f"{reference_nodes:.0f} / {our_nodes:.0f}")


if __name__ == "__main__":
    main()
