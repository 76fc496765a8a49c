"""BANANAS' predictor: time per training step of the batched MLP ensemble, this tree against a baseline
tree and scikit-learn, and BANANAS' optimizer CPU over a full 1e7 s NB101 run, in one run.

Run: nice -n 5 .venv/bin/python bench/bench_mlp_ensemble.py [--baseline DIR] [--cells 300,1000,3000]
     [--epochs 20] [--repeats 3] [--bananas-seeds 1]

Training data: the path encodings of distinct random NB101 cells (nb101-lite's sampler) with their
standardised validation accuracies. The ensemble is BANANAS' (5 members, 10 hidden layers of 20
units, Adam at 0.01, batches of 200), trained for exactly ``--epochs`` epochs (the stopping rule
off, so every variant takes the same steps); a step is one minibatch of all five members. The
reference is scikit-learn's ``MLPRegressor`` with the same settings, the five members one after
another (``predictor="sklearn"``), timed in this process. With ``--baseline`` (a checkout of an
older commit, e.g. ``git worktree add /tmp/base <commit>``) the same measurements run in child
processes on that tree's ``src/``, alternating with this tree's, ``--repeats`` times, and the best
of each is reported. ``--bananas-seeds S`` also runs BANANAS (seeds 0..S-1) on nb101-lite for a
full 1e7 s budget in each tree, once: optimizer CPU per evaluation, as the runner records it.

Measured (2026-11-26, 2 cores, one BLAS thread, ``--baseline`` at 574f8c5 (row layout, separate biases),
``--repeats 3``), us per step, scikit-learn / baseline / new: 300 cells 4,062 / 736 / 565 (1.30x less than
the baseline, 7.2x less than scikit-learn), 1,000 cells 4,529 / 877 / 656 (1.34x, 6.9x), 3,000 cells
4,479 / 893 / 674 (1.33x, 6.6x). Full BANANAS runs differ in their number of steps (float rounding moves
where the stopping rule stops): over the first 1,200 evaluations of seeds 1 and 2, one tree per core at
once, 661-693 us per five-member step against 861-920 for the baseline, the same number of steps within
3%, 20.9 and 22.6 ms of optimizer CPU per evaluation against 29.1 and 26.5. Twenty seeds at 1e7 s
(``nasarena run --optimizers bananas --seeds 0-19 --jobs 2``, idle machine): 35 min 26 s, 79,693
evaluations, 53 ms per evaluation and core.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from _trees import HERE, measure_in_tree

HIDDEN = (20,) * 10
SEEDS = [11, 22, 33, 44, 55]


def training_data(cells: int) -> tuple[np.ndarray, np.ndarray]:
    import nasarena

    lite = nasarena.benchmark("nb101-lite")
    rng = np.random.default_rng(0)
    chosen: dict = {}
    while len(chosen) < cells:
        cell = lite.space.sample(rng)
        chosen.setdefault(lite.space.identity(cell), cell)
    x = np.stack([lite.space.encode(cell, "path") for cell in chosen.values()]).astype(np.float32)
    y = np.array([lite.query(cell).valid_accuracy for cell in chosen.values()])
    return x, (y - y.mean()) / y.std()


def steps_of(cells: int, epochs: int) -> int:
    return epochs * -(-cells // 200)


def ensemble_step_us(cells: int, epochs: int) -> float:
    from threadpoolctl import threadpool_limits

    from nasarena.optimizers.mlp_ensemble import MLPEnsemble

    x, y = training_data(cells)
    with threadpool_limits(1):
        start = time.process_time()
        MLPEnsemble(SEEDS, HIDDEN, learning_rate_init=0.01, max_iter=epochs, batch_size=200,
                    n_iter_no_change=epochs).fit(x, y)
        return (time.process_time() - start) / steps_of(cells, epochs) * 1e6


def sklearn_step_us(cells: int, epochs: int) -> float:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor
    from threadpoolctl import threadpool_limits

    x, y = training_data(cells)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.process_time()
        for seed in SEEDS:
            MLPRegressor(hidden_layer_sizes=HIDDEN, learning_rate_init=0.01, max_iter=epochs, batch_size=200,
                         n_iter_no_change=epochs, random_state=seed).fit(x, y)
        return (time.process_time() - start) / steps_of(cells, epochs) * 1e6


def bananas_runs(seeds: int) -> dict:
    """Full 1e7 s BANANAS runs: optimizer CPU per evaluation, and how many minibatch steps the
    ensemble trained (counted by wrapping ``MLPEnsemble.fit``): float rounding makes each
    tree's members stop after different epochs, so runs differ in steps, not only in their cost."""
    import nasarena
    from nasarena.optimizers import make, mlp_ensemble
    from nasarena.runner import Budget, run

    fit, steps = mlp_ensemble.MLPEnsemble.fit, [0]

    def counting_fit(ensemble, x, y):
        fitted = fit(ensemble, x, y)
        steps[0] += int(ensemble.n_iter_.sum()) * -(-len(x) // min(ensemble.batch_size, len(x)))
        return fitted

    mlp_ensemble.MLPEnsemble.fit = counting_fit
    lite = nasarena.benchmark("nb101-lite")
    evaluations, cpu, wall = 0, 0.0, time.perf_counter()
    for seed in range(seeds):
        frame = run(lite, make("bananas", lite.space, seed=seed), Budget(seconds=1e7), seed=seed)
        evaluations += len(frame)
        cpu += float(frame.optimizer_cpu_time.iloc[-1])
    return dict(evaluations=evaluations, ms_per_evaluation=cpu / evaluations * 1e3,
                wall_seconds=time.perf_counter() - wall, member_steps=steps[0], us_per_member_step=cpu / steps[0] * 1e6)


def measure(cells: list[int], epochs: int, bananas_seeds: int) -> dict:
    import nasarena

    results: dict = {"nasarena": nasarena.__file__, "step_us": {str(n): ensemble_step_us(n, epochs) for n in cells}}
    if bananas_seeds:
        results["bananas"] = bananas_runs(bananas_seeds)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default="300,1000,3000", help="training set sizes")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bananas-seeds", type=int, default=0, help="full BANANAS runs per tree (0: skip)")
    parser.add_argument("--baseline", type=Path, help="a source tree to compare with (its src/ is imported)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    cells = [int(n) for n in options.cells.split(",")]
    if options.child:
        print(json.dumps(measure(cells, options.epochs, options.bananas_seeds)))
        return
    trees = {"new": HERE} | ({"baseline": options.baseline.resolve()} if options.baseline else {})
    runs: dict[str, list[dict]] = {label: [] for label in trees}
    reference: dict[int, float] = {}
    for repeat in range(options.repeats):
        for label, tree in reversed(trees.items()):  # the baseline first in each round
            arguments = ["--cells", options.cells, "--epochs", str(options.epochs),
                         "--bananas-seeds", str(options.bananas_seeds if repeat == 0 else 0)]
            runs[label].append(measure_in_tree(tree, __file__, arguments))
            print(f"round {repeat + 1}: {label} done", file=sys.stderr, flush=True)
        for n in cells:
            reference[n] = min(reference.get(n, np.inf), sklearn_step_us(n, options.epochs))
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores)")
    print(f"{'cells':>6s} {'scikit-learn':>13s} " + " ".join(f"{label:>9s}" for label in trees)
          + "   us per step (5 members, batch 200), best of the repeats")
    for n in cells:
        best = {label: min(r["step_us"][str(n)] for r in runs[label]) for label in trees}
        ratios = f"   new: {reference[n] / best['new']:.1f}x less than scikit-learn" + (
            f", {best['baseline'] / best['new']:.2f}x less than the baseline" if "baseline" in trees else "")
        print(f"{n:6d} {reference[n]:13.0f} " + " ".join(f"{best[label]:9.0f}" for label in trees) + ratios)
    if options.bananas_seeds:
        for label in trees:
            run = runs[label][0]["bananas"]
            print(f"BANANAS, nb101-lite, 1e7 s, seeds 0-{options.bananas_seeds - 1}, {label}: {run['evaluations']:,} "
                  f"evaluations, {run['ms_per_evaluation']:.1f} ms optimizer CPU per evaluation, "
                  f"{run['wall_seconds']:.0f} s wall; {run['member_steps']:,} member steps, "
                  f"{run['us_per_member_step']:.0f} us of optimizer CPU per member step")


if __name__ == "__main__":
    main()
