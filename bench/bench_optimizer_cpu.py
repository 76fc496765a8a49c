"""Optimizer CPU per evaluation of every optimizer, a re-implementation beside its reference: a full 1e7 s NB101
run and 300 NB201 evaluations.

Run: nice -n 10 .venv/bin/python bench/bench_optimizer_cpu.py [--optimizers smac,tpe,...] [--seeds 1]
     [--reference-cap 1000] [--max-evaluations N] [--skip-nb101] [--skip-nb201]

What is measured is the runner's own ``optimizer_cpu_time`` column (CPU seconds spent in the
optimizer's ask and tell, cumulative; estimated from wall-clock reads and the process's share of
the CPU, see ``nasarena.runner.clock``): what ``count_optimizer_time`` would charge, recorded
here without charging it, so the simulated run (and its number of evaluations) does not depend
on the machine. NB101: nb101-lite with a 1e7 s simulated budget (the NB101 paper's; several thousand
evaluations), multi-fidelity optimizers (Hyperband, BOHB) on nb101-slice; NB201: nb201-cifar10,
300 evaluations.

Before and after in one run: each vectorised re-implementation (``REFERENCES``: ``tpe``, ``smac``,
``bananas``) runs beside the implementation it replaces (``tpe-optuna``, ``smac3``, BANANAS with
scikit-learn's MLPs). A reference refits on the whole history with a library's per-object
overhead, so its cost per evaluation grows with the run and a full 1e7 s run takes hours:
references stop after ``--reference-cap`` NB101 evaluations (the table says ``cap``), and the
comparison table sets the re-implementation's CPU over the same first evaluations beside it
(the ratio), then its mean over the whole 1e7 s run. ``--max-evaluations`` caps every NB101 run.

Measured (2026-11-26, 2 cores, beside one other benchmark process; seed 0):

    nb201-cifar10, 300 evaluations   new ms/eval  reference ms/eval  ratio
    tpe     vs tpe-optuna                  0.172              4.331    25x
    smac    vs smac3                       1.160             46.271    40x
    bananas vs predictor=sklearn           9.786             37.095   3.8x
    nb101-lite, first 1000 evaluations
    tpe     vs tpe-optuna                  0.366             70.434   192x
    smac    vs smac3                       2.585            243.510    94x
    bananas vs predictor=sklearn          22.082            118.258   5.4x
    nb101 full 1e7 s run (new only): tpe 2.17 (7,229 evaluations), smac 5.32 (4,156; 4.84 over
    seeds 0-2 on an idle machine, 7.19 before its trees were grown by integer_trees), bananas 52.2
    (3,988), bohb 3.88 (26,841 on nb101-slice), rs 0.004

After BANANAS' ensemble step was made 1.3x faster (later that day, idle machine, ``--optimizers bananas``):
nb201-cifar10 300 evaluations 8.301 vs 38.044 ms (4.6x); nb101-lite first 1000 evaluations 17.462 vs
111.404 (6.4x); the whole 1e7 s run 53.2 ms (3,849 evaluations: its stopping rule stopped elsewhere, so
it trained on other data for other numbers of epochs than the 3,988-evaluation run above).

With warm retraining (``warm_steps=40``, the default; the reference keeps new networks at every
retraining; idle machine, ``--optimizers bananas``): nb201-cifar10 300 evaluations 6.354 vs 37.617 ms
(5.9x; its first 200 results train new networks, as the reference); nb101-lite first 1000 evaluations
3.678 vs 115.621 (31.4x); the whole 1e7 s run 3.780 ms (4,013 evaluations; 4.175 over its last 10%).

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
#: Each re-implementation and the implementation it replaces (name and settings).
REFERENCES = {"tpe": ("tpe-optuna", {}), "smac": ("smac3", {}),
              "bananas": ("bananas", {"predictor": "sklearn", "warm_steps": None})}  # new networks each time


def measure(bench, name: str, settings: dict, budget: Budget, seed: int) -> dict:
    """One run's optimizer CPU per evaluation (mean, last tenth, cumulative) and wall seconds."""
    if REGISTRY[name].multi_fidelity:
        settings = {**settings, "fidelities": bench.fidelities}
    optimizer = make(name, bench.space, seed=seed, **settings)
    start = time.perf_counter()
    frame = run(bench, optimizer, budget, seed=seed)
    wall = time.perf_counter() - start
    cpu = frame.optimizer_cpu_time.to_numpy()
    tail = max(1, len(cpu) // 10)
    before_tail = cpu[-tail - 1] if len(cpu) > tail else 0.0
    capped = budget.seconds is not None and budget.evaluations is not None and len(frame) >= budget.evaluations
    return dict(evaluations=len(frame), capped=capped, mean_ms=cpu[-1] / len(cpu) * 1e3,
                tail_ms=(cpu[-1] - before_tail) / tail * 1e3, wall_s=wall, cumulative=cpu)


def label(name: str, settings: dict) -> str:
    return name + "".join(f" {key}={value}" for key, value in settings.items())


def report(title: str, benches, runs_of, seeds: int) -> dict:
    """Print one table; return each (name, settings) label's runs."""
    print(f"\n{title}")
    print(f"{'optimizer':26s} {'benchmark':14s} {'evals':>6s} {'ended by':>9s} {'CPU ms/eval':>12s} "
          f"{'last 10%':>9s} {'wall s':>8s}")
    measured = {}
    for name, settings, budget in runs_of:
        bench = benches[REGISTRY[name].multi_fidelity]
        runs = [measure(bench, name, settings, budget, seed) for seed in range(seeds)]
        measured[label(name, settings)] = runs
        ended = "cap" if any(r["capped"] for r in runs) else "budget"
        print(f"{label(name, settings):26s} {bench.name:14s} {int(np.mean([r['evaluations'] for r in runs])):6d} "
              f"{ended:>9s} {np.mean([r['mean_ms'] for r in runs]):12.3f} {np.mean([r['tail_ms'] for r in runs]):9.3f} "
              f"{np.mean([r['wall_s'] for r in runs]):8.1f}", flush=True)
    return measured


def compare(measured: dict, names: list[str]) -> None:
    """Each re-implementation over its reference's evaluations, beside the reference."""
    if not any(name in REFERENCES for name in names):
        return
    print(f"{'re-implementation':18s} {'reference':26s} {'evals':>6s} {'new ms/eval':>12s} {'ref ms/eval':>12s} "
          f"{'ratio':>7s} {'new, whole run':>15s}")
    for name in names:
        if name not in REFERENCES or label(*REFERENCES[name]) not in measured or name not in measured:
            continue
        new, reference = measured[name], measured[label(*REFERENCES[name])]
        window = min(min(r["evaluations"] for r in reference), min(r["evaluations"] for r in new))
        new_ms = np.mean([r["cumulative"][window - 1] / window * 1e3 for r in new])
        reference_ms = np.mean([r["cumulative"][window - 1] / window * 1e3 for r in reference])
        print(f"{name:18s} {label(*REFERENCES[name]):26s} {window:6d} {new_ms:12.3f} {reference_ms:12.3f} "
              f"{reference_ms / new_ms:6.1f}x {np.mean([r['mean_ms'] for r in new]):15.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # every optimizer; a reference is run beside its re-implementation (bananas is both: its own name)
    only_references = {name for name, _ in REFERENCES.values()} - set(REFERENCES)
    parser.add_argument("--optimizers", default=",".join(e.name for e in available() if e.name not in only_references))
    parser.add_argument("--seeds", type=int, default=1, help="seeds per optimizer (means are over them)")
    parser.add_argument("--reference-cap", type=int, default=1000,
                        help="NB101 evaluations of each reference implementation (default 1000)")
    parser.add_argument("--max-evaluations", type=int, default=None,
                        help="cap on the evaluations of every NB101 run (default: none, the full 1e7 s)")
    parser.add_argument("--skip-nb101", action="store_true")
    parser.add_argument("--skip-nb201", action="store_true")
    options = parser.parse_args()
    names = options.optimizers.split(",")
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        parser.error(f"unknown optimizer(s) {', '.join(unknown)}")
    plan = [(name, {}) for name in names] + [REFERENCES[name] for name in names if name in REFERENCES]
    if not options.skip_nb201:
        nb201 = nasarena.benchmark("nb201-cifar10")
        budget = Budget(evaluations=NB201_EVALUATIONS)
        measured = report(f"nb201-cifar10, {NB201_EVALUATIONS} evaluations", {False: nb201, True: nb201},
                          [(name, settings, budget) for name, settings in plan], options.seeds)
        compare(measured, names)
    if not options.skip_nb101:
        lite, sliced = nasarena.benchmark("nb101-lite"), nasarena.benchmark("nb101-slice")
        run(lite, make("rs", lite.space, seed=0), Budget(evaluations=50), seed=0)  # load the look-up tables first
        cap = options.max_evaluations
        references = {label(*REFERENCES[name]) for name in names if name in REFERENCES}

        def budget(name: str, settings: dict) -> Budget:
            limit = options.reference_cap if label(name, settings) in references else cap
            if cap is not None and limit is not None:
                limit = min(limit, cap)
            return Budget(seconds=NB101_SECONDS, evaluations=limit)

        measured = report(f"nb101-lite / nb101-slice, {NB101_SECONDS:.0e} s" + (f", capped at {cap} evaluations"
                                                                                if cap else ""),
                          {False: lite, True: sliced}, [(n, s, budget(n, s)) for n, s in plan], options.seeds)
        compare(measured, names)


if __name__ == "__main__":
    main()
