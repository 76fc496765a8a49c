"""Optimizer CPU of BANANAS per evaluation: the numpy ensemble against the scikit-learn reference.

Run: nice -n 5 .venv/bin/python bench/bench_bananas.py [--evaluations 1000] [--nb201-evaluations 300]
     [--full] [--seed 0] [--equivalence-seeds 0]

Measures the optimizer's CPU seconds (``frame.optimizer_cpu_time``, cumulative) per evaluation of
``bananas`` with ``predictor="numpy"`` and ``predictor="sklearn"``, one after the other in this
process on the same seed and budget, so the ratio is fair on a shared machine:

- nb201-cifar10, ``--nb201-evaluations`` evaluations (default 300);
- nb101-lite, ``--evaluations`` evaluations (default 1000; the reference costs minutes);
- with ``--full``, a full nb101-lite run (simulated 1e7 s) of the numpy predictor alone.

The two predictors draw different random streams (the ensemble's float rounding differs), so
their trajectories part after the first retraining; the evaluations run are the same number.
``--equivalence-seeds S`` (> 0) adds a small study of search behaviour: final incumbent test
regrets of seeds 0..S-1 on nb201-cifar10 after 150 evaluations for each predictor, their means
and medians, and the two-sided Mann-Whitney U test (a small p says the distributions differ).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def cpu_per_evaluation(bench, predictor: str, seed: int, evaluations: int | None = None,
                       seconds: float | None = None) -> tuple[float, int, float, float]:
    """(ms of optimizer CPU per evaluation, evaluations, final test regret, wall seconds)."""
    from nasarena.optimizers import make
    from nasarena.runner import Budget, run

    start = time.perf_counter()
    frame = run(bench, make("bananas", bench.space, seed=seed, predictor=predictor),
                Budget(evaluations=evaluations, seconds=seconds), seed=seed)
    return (float(frame.optimizer_cpu_time.iloc[-1]) / len(frame) * 1e3, len(frame),
            float(frame.incumbent_test_regret.iloc[-1]), time.perf_counter() - start)


def compare(name: str, evaluations: int, seed: int) -> None:
    import nasarena

    bench = nasarena.benchmark(name)
    results = {predictor: cpu_per_evaluation(bench, predictor, seed, evaluations) for predictor in ("numpy", "sklearn")}
    for predictor, (ms, count, regret, wall) in results.items():
        print(f"{name:14s} {predictor:8s} {count:6d} evaluations  {ms:8.2f} ms/eval  regret {regret:.4f}  "
              f"({wall:.0f} s wall)", flush=True)
    print(f"{name:14s} sklearn / numpy: {results['sklearn'][0] / results['numpy'][0]:.1f}x", flush=True)


def equivalence(seeds: int) -> None:
    from scipy.stats import mannwhitneyu

    import nasarena

    bench = nasarena.benchmark("nb201-cifar10")
    finals = {predictor: np.array([cpu_per_evaluation(bench, predictor, seed, 150)[2] for seed in range(seeds)])
              for predictor in ("numpy", "sklearn")}
    for predictor, regrets in finals.items():
        print(f"equivalence {predictor:8s} final regret mean {regrets.mean():.4f} median {np.median(regrets):.4f} "
              f"({seeds} seeds, nb201-cifar10, 150 evaluations)")
    print(f"equivalence Mann-Whitney U p = {mannwhitneyu(finals['numpy'], finals['sklearn']).pvalue:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=1000, help="nb101-lite evaluations of the comparison")
    parser.add_argument("--nb201-evaluations", type=int, default=300)
    parser.add_argument("--full", action="store_true", help="also a full 1e7 s nb101-lite run of the numpy predictor")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--equivalence-seeds", type=int, default=0)
    parser.add_argument("--skip-comparison", action="store_true", help="only --full and/or the equivalence study")
    options = parser.parse_args()
    if not options.skip_comparison:
        if options.nb201_evaluations:
            compare("nb201-cifar10", options.nb201_evaluations, options.seed)
        if options.evaluations:
            compare("nb101-lite", options.evaluations, options.seed)
    if options.full:
        import nasarena

        ms, count, regret, wall = cpu_per_evaluation(nasarena.benchmark("nb101-lite"), "numpy", options.seed,
                                                     seconds=1e7)
        print(f"nb101-lite     numpy    full 1e7 s run: {count} evaluations  {ms:.2f} ms/eval  regret {regret:.4f}  "
              f"({wall:.0f} s wall)", flush=True)
    if options.equivalence_seeds:
        equivalence(options.equivalence_seeds)


if __name__ == "__main__":
    main()
