"""Optimizer CPU per evaluation of every optimizer: a full 1e7 s NB101 run and 300 NB201 evaluations.

Run: nice -n 10 .venv/bin/python bench/bench_optimizer_cpu.py [--optimizers smac,tpe,...]
     [--seeds 1] [--max-evaluations N] [--skip-nb101] [--skip-nb201]

What is measured is the runner's own ``optimizer_cpu_time`` column (CPU seconds spent in the
optimizer's ask and tell, cumulative; estimated from wall-clock reads and the process's share of
the CPU, see ``nasarena.runner.clock``): what ``count_optimizer_time`` would charge, recorded
here without charging it, so the simulated run (and its number of evaluations) does not depend
on the machine. NB101: nb101-lite with a 1e7 s simulated budget (the NB101 paper's; several thousand
evaluations), multi-fidelity optimizers (Hyperband, BOHB) on nb101-slice; NB201: nb201-cifar10,
300 evaluations. The model-based optimizers refit on the whole history at every step, so their
cost per evaluation grows with the run: a full 1e7 s SMAC run takes hours on a busy machine.
``--max-evaluations`` caps every run (the report then says ``capped``) and the table gives, besides
the mean over the run, the mean over its last tenth: the marginal cost at the cap, from which the
cost of the rest of a full run can be bounded.

Columns: evaluations, whether the budget or the cap ended the run, optimizer CPU in ms per
evaluation (mean over the run, mean over its last 10% of evaluations), and the wall seconds of
the whole run (protocol, table look-ups and optimizer).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import nasarena
from nasarena.optimizers import available, make
from nasarena.optimizers.base import REGISTRY
from nasarena.runner.protocol import Budget, run

NB101_SECONDS = 1e7
NB201_EVALUATIONS = 300


def measure(bench, name: str, budget: Budget, seed: int) -> dict:
    """One run's optimizer CPU per evaluation (mean and over the last tenth) and wall seconds."""
    settings = {"fidelities": bench.fidelities} if REGISTRY[name].multi_fidelity else {}
    optimizer = make(name, bench.space, seed=seed, **settings)
    start = time.perf_counter()
    frame = run(bench, optimizer, budget, seed=seed)
    wall = time.perf_counter() - start
    cpu = frame.optimizer_cpu_time.to_numpy()
    tail = max(1, len(cpu) // 10)
    before_tail = cpu[-tail - 1] if len(cpu) > tail else 0.0
    capped = budget.seconds is not None and budget.evaluations is not None and len(frame) >= budget.evaluations
    return dict(evaluations=len(frame), capped=capped, mean_ms=cpu[-1] / len(cpu) * 1e3,
                tail_ms=(cpu[-1] - before_tail) / tail * 1e3, wall_s=wall)


def report(label: str, benches, names, budget_of, seeds: int) -> None:
    print(f"\n{label}")
    print(f"{'optimizer':10s} {'benchmark':14s} {'evals':>6s} {'ended by':>9s} {'CPU ms/eval':>12s} "
          f"{'last 10%':>9s} {'wall s':>8s}")
    for name in names:
        bench = benches[REGISTRY[name].multi_fidelity]
        runs = [measure(bench, name, budget_of(name), seed) for seed in range(seeds)]
        evaluations = int(np.mean([r["evaluations"] for r in runs]))
        ended = "cap" if any(r["capped"] for r in runs) else "budget"
        print(f"{name:10s} {bench.name:14s} {evaluations:6d} {ended:>9s} {np.mean([r['mean_ms'] for r in runs]):12.3f} "
              f"{np.mean([r['tail_ms'] for r in runs]):9.3f} {np.mean([r['wall_s'] for r in runs]):8.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--optimizers", default=",".join(e.name for e in available()))
    parser.add_argument("--seeds", type=int, default=1, help="seeds per optimizer (means are over them)")
    parser.add_argument("--max-evaluations", type=int, default=None,
                        help="cap on the evaluations of every NB101 run (default: none, the full 1e7 s)")
    parser.add_argument("--skip-nb101", action="store_true")
    parser.add_argument("--skip-nb201", action="store_true")
    options = parser.parse_args()
    names = options.optimizers.split(",")
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        parser.error(f"unknown optimizer(s) {', '.join(unknown)}")
    if not options.skip_nb201:
        nb201 = nasarena.benchmark("nb201-cifar10")
        report(f"nb201-cifar10, {NB201_EVALUATIONS} evaluations", {False: nb201, True: nb201}, names,
               lambda name: Budget(evaluations=NB201_EVALUATIONS), options.seeds)
    if not options.skip_nb101:
        lite, sliced = nasarena.benchmark("nb101-lite"), nasarena.benchmark("nb101-slice")
        run(lite, make("rs", lite.space, seed=0), Budget(evaluations=50), seed=0)  # load the look-up tables first
        cap = options.max_evaluations
        report(f"nb101-lite / nb101-slice, {NB101_SECONDS:.0e} s" + (f", capped at {cap} evaluations" if cap else ""),
               {False: lite, True: sliced}, names, lambda name: Budget(seconds=NB101_SECONDS, evaluations=cap),
               options.seeds)


if __name__ == "__main__":
    main()
