"""SMAC's forest fit: the depth-by-depth builder (``nasarena.optimizers.integer_trees``), as arrays
and compiled (``compiled_trees``), against scikit-learn's tree builder, on the histories a real
SMAC run fits its forest on.

Run: nice -n 10 .venv/bin/python bench/bench_integer_trees.py [--preset anytime-C] [--seconds 3e6]
     [--sizes 1000,4000,10000,20000] [--repeats 3]

The preset's ``smac`` run (seed 0, ``--seconds`` simulated; the cached setups' histories grow
longest: every configuration SMAC proposes is a row, ~57,000 late in a 1e7 s C run) records the
model inputs of its first refit at or above each size (configurations as category indices, their
log-scaled costs). On each, all three build five trees on the same five bootstrap samples:
scikit-learn's ``DecisionTreeRegressor`` with SMAC3's options, one tree after another (what
``LogForest`` did before), and ``grow_forest`` as arrays and compiled. Reported: CPU milliseconds
per forest (best of ``repeats``), the ratios, the mean node count (scikit-learn's equal to ours up
to ties between equally good splits), and whether the two builders' trees are the same bits.

Measured 2026-11-26 (array builder only, nb101-lite at 1e7 s, 2 cores beside one other process):
1.2x to 1.8x faster than scikit-learn from 257 to 4,001 rows. Measured 2026-12-03 at commit
1b61bcb (``--sizes 1000,4000,10000,20000,40000 --seconds 8e6``; Intel Xeon 2 GHz, 2 cores beside
four niced background jobs, so times are high; the 8e6 s run never refitted on 40,000 rows):

      rows  sklearn ms  arrays ms  compiled ms  sklearn/compiled  arrays/compiled  nodes (sklearn / ours)  same bits
      1001        27.0       19.4         10.4              2.6x             1.9x      1008 / 1008         True
      4001        88.4       59.9         25.8              3.4x             2.3x      3583 / 3584         True
     10001       197.0      142.3         55.4              3.6x             2.6x      8591 / 8593         True
     20001       429.5      271.3        105.8              4.1x             2.6x     16043 / 16043        True
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from unittest import mock

import numpy as np

from nasarena.optimizers.integer_trees import ThresholdColumns, grow_forest
from nasarena.optimizers.random_forest import MIN_IMPURITY_DECREASE, LogForest
from nasarena.runner.experiment import execute
from nasarena.runner.protocol import Budget
from nasarena.studies.anytime_presets import PRESETS


def recorded_histories(preset: str, seconds: float, sizes: list[int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The forest's inputs at SMAC's first refit at or above each size, from one run of the preset."""
    histories: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    original = LogForest.fit

    def recording_fit(forest, x, log_costs):
        for size in sizes:
            if size not in histories and len(x) >= size:
                histories[size] = (np.array(x), np.array(log_costs))
        return original(forest, x, log_costs)

    [spec] = PRESETS[preset].specs(seeds=[0], optimizers=["smac"])
    with mock.patch.object(LogForest, "fit", recording_fit):
        execute(dataclasses.replace(spec, budget=Budget(seconds=seconds)))
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


def _same_bits(ours: list, theirs: list) -> bool:
    return all(a.__getstate__()["nodes"].tobytes() == b.__getstate__()["nodes"].tobytes()
               and np.array_equal(leaf_a, leaf_b) for (a, leaf_a), (b, leaf_b) in zip(ours, theirs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="anytime-C", help="an anytime preset whose smac run records the histories")
    parser.add_argument("--seconds", type=float, default=3e6, help="simulated budget of that run")
    parser.add_argument("--sizes", default="1000,4000,10000,20000")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    histories = recorded_histories(args.preset, args.seconds, sizes)
    print(f"{'rows':>6s} {'sklearn ms':>10s} {'arrays ms':>10s} {'compiled ms':>12s} {'sklearn/compiled':>17s} "
          f"{'arrays/compiled':>16s}  nodes (sklearn / ours)  same bits")
    rng = np.random.default_rng(0)
    for size in sizes:
        if size not in histories:
            print(f"{size:>6d}  (the run never refitted on this many rows)")
            continue
        x, y = histories[size]
        n = len(x)
        weights = np.stack([np.bincount(rng.integers(n, size=n), minlength=n) for _ in range(5)]).astype(np.float64)
        reference_ms, reference = best_cpu_ms(lambda: scikit_learn_forest(x, y, weights), args.repeats)
        grown = {}
        for compiled in (False, True):
            grown[compiled] = best_cpu_ms(lambda: grow_forest(ThresholdColumns(x), y, weights, np.random.default_rng(1),
                                                              MIN_IMPURITY_DECREASE, compiled=compiled), args.repeats)
        (arrays_ms, arrays), (compiled_ms, ours) = grown[False], grown[True]
        reference_nodes = np.mean([tree.node_count for tree in reference])
        our_nodes = np.mean([tree.node_count for tree, _ in ours])
        print(f"{n:>6d} {reference_ms:>10.1f} {arrays_ms:>10.1f} {compiled_ms:>12.1f} {reference_ms / compiled_ms:>16.1f}x "
              f"{arrays_ms / compiled_ms:>15.1f}x  {reference_nodes:>8.0f} / {our_nodes:<8.0f}     {_same_bits(ours, arrays)}")


if __name__ == "__main__":
    main()
