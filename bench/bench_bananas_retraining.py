"""Does BANANAS' warm retraining predict as well as new networks? Kendall tau on each scored pool.

Run: nice -n 5 .venv/bin/python bench/bench_bananas_retraining.py [--benchmark nb101-lite] [--seeds 4]
     [--evaluations 1000] [--seconds S] [--jobs 2] [--variants 40,null]

Each variant (``warm_steps`` values; ``null`` trains new networks at every retraining, as the
original) runs BANANAS for seeds 0..S-1. Every time the acquisition scores a pool of candidate
mutations, the ensemble's mean prediction of each candidate is set against its true validation
accuracy on the benchmark (looked up, not evaluated, so the run is unchanged): the Kendall tau of
the pool is where the predictor's quality decides the search. Reported per variant: the mean tau
over pools, grouped by how many results the ensemble was trained on, and the optimizer CPU per
evaluation (which includes the look-ups of this measurement, the same for every variant).

Up to 200 results (one minibatch) both variants train new networks: the same runs, so the same taus (not shown).
Measured (2026-11-26, 2 cores, both variants side by side; mean tau, pools in brackets):

    nb101-lite, 1e7 s, seeds 0-1       200-500      500-1000     1000-2000    2000-        CPU ms/eval
      warm_steps=40                    0.497 (60)   0.546 (100)  0.603 (200)  0.603 (402)   3.88
      new networks (null)              0.484 (60)   0.537 (100)  0.587 (200)  0.606 (364)  54.03
    nb101-lite, 1000 evaluations, seeds 0-5
      warm_steps=40                    0.465 (180)  0.544 (300)                             3.93
      new networks (null)              0.477 (180)  0.556 (300)                            18.02
    nb201-cifar10, 300 evaluations, seeds 0-39
      warm_steps=40                    0.286 (26)                                           6.56
      new networks (null)              0.195 (31)                                           8.40

The search outcomes (final regrets, anytime curves) are compared by ``bench/bench_equivalence.py``.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy.stats import kendalltau

STAGES = (0, 200, 500, 1000, 2000, 10**9)


def one_run(task: tuple) -> dict:
    """One seed of one variant: (history size, pool tau) for every scored pool, and the CPU."""
    import nasarena
    from nasarena.optimizers import make
    from nasarena.optimizers.bananas import PredictorEnsemble
    from nasarena.runner import Budget, run

    benchmark_name, warm_steps, seed, evaluations, seconds = task
    bench = nasarena.benchmark(benchmark_name)
    optimizer = make("bananas", bench.space, seed=seed, warm_steps=warm_steps)
    taus: list[tuple[int, float]] = []
    scored: list = []  # the pool being scored (drawn once, by the optimizer: its stream is untouched)
    draw_pool, predict = optimizer._pool, PredictorEnsemble.predict

    def pool_recorded():
        scored[:] = draw_pool()
        return list(scored)

    def predict_recorded(ensemble, x):
        mean, std = predict(ensemble, x)
        if len(scored) == len(mean) > 2:
            truth = [bench.query(arch).valid_accuracy for arch in scored]
            taus.append((optimizer.trained_on, float(kendalltau(mean, truth)[0])))
        return mean, std

    optimizer._pool = pool_recorded
    PredictorEnsemble.predict = predict_recorded  # in this worker process, for this run
    start = time.process_time()
    try:
        frame = run(bench, optimizer, Budget(evaluations=evaluations, seconds=seconds), seed=seed)
    finally:
        PredictorEnsemble.predict = predict
    return {"warm_steps": warm_steps, "seed": seed, "taus": taus, "evaluations": len(frame),
            "cpu_ms": (time.process_time() - start) / len(frame) * 1e3,
            "regret": float(frame.incumbent_test_regret.iloc[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="nb101-lite")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--evaluations", type=int, default=None, help="evaluations per run (default 1000 "
                                                                      "without --seconds)")
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--variants", default="40,null", help="warm_steps values, comma-separated (null: cold)")
    options = parser.parse_args()
    if options.evaluations is None and options.seconds is None:
        options.evaluations = 1000
    variants = [None if v.strip() == "null" else int(v) for v in options.variants.split(",")]
    tasks = [(options.benchmark, v, seed, options.evaluations, options.seconds)
             for seed in range(options.seeds) for v in variants]
    with ProcessPoolExecutor(options.jobs) as pool:
        results = list(pool.map(one_run, tasks))
    print(f"{options.benchmark}, budget {options.evaluations} evaluations / {options.seconds} s, "
          f"seeds 0..{options.seeds - 1}: mean Kendall tau of the scored pools (pools) by results trained on")
    header = "  ".join(f"{low}-{high if high < 10**9 else ''}".ljust(14) for low, high in zip(STAGES, STAGES[1:]))
    print(f"{'warm_steps':12s} {header} {'evals':>7s} {'CPU ms/eval':>12s} {'regret':>9s}")
    for variant in variants:
        mine = [r for r in results if r["warm_steps"] == variant]
        taus = [t for r in mine for t in r["taus"]]
        cells = []
        for low, high in zip(STAGES, STAGES[1:]):
            stage = [tau for size, tau in taus if low <= size < high and np.isfinite(tau)]
            cells.append(f"{np.mean(stage):.3f} ({len(stage)})".ljust(14) if stage else "-".ljust(14))
        print(f"{str(variant):12s} {'  '.join(cells)} {np.mean([r['evaluations'] for r in mine]):7.0f} "
              f"{np.mean([r['cpu_ms'] for r in mine]):12.2f} {np.mean([r['regret'] for r in mine]):9.5f}")


if __name__ == "__main__":
    main()
