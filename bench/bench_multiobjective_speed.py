"""CPU per evaluation of every multi-objective optimizer, beside single-objective RE and Optuna's NSGA-II.

Run: nice -n 10 .venv/bin/python bench/bench_multiobjective_speed.py [--evaluations 300] [--seeds 0,1]
     [--objectives error,latency:pixel3] [--optimizers mo-rs,mo-re,...]

Every optimizer runs the same loop on nb201-cifar10 with the same objectives and number of
evaluations (one worker): ask, look the architecture up in the table, tell it its validation
objective vector (RE: its validation accuracy). Only the ask and the tell are timed
(``time.process_time_ns`` around each, so the table look-ups are left out); the table gives the
mean CPU microseconds per ask+tell over the whole run, per optimizer, its ratio to RE measured
in the same process, and to Optuna's ``NSGAIISampler`` (``nsga2-optuna``) on the same objective
and budget.

Measured (2026-11-27, 2 cores shared with other agents' jobs, so single figures vary by ~30 %;
300 evaluations, error,latency:pixel3, seeds 0 and 1):

    optimizer        us/eval     x re  x nsga2-optuna
    re                  27.1      1.0           0.016
    mo-rs               27.0      1.0           0.016
    mo-re              343.8     12.7           0.206
    nsga2              119.2      4.4           0.071
    parego-tpe         990.2     36.5           0.593
    parego-smac      23409.3    863.5          14.023
    parego-bananas  140739.4   5191.5          84.308
    nsga2-optuna      1669.3     61.6           1.000
    motpe-optuna     22483.3    829.4          13.468

Why the ParEGO ones cost what they do: a new weight vector per ask changes every told value, so
SMAC refits its forest and searches its acquisition at every ask (instead of every 8th), and
BANANAS retrains its ensemble at every ask (instead of every 10th), with new networks while the
results are fewer than its batch size (200), as BANANAS itself does. mo-re sorts its population
of 100 at every ask after a tell (one ``preference_order``, ~0.3 ms); nsga2 sorts only when a
generation of children is complete.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import nasarena
from nasarena.benchmarks.objectives import objective_vector, parse_objectives
from nasarena.optimizers import Observation, make

OPTIMIZERS = ("re", "mo-rs", "mo-re", "nsga2", "parego-tpe", "parego-smac", "parego-bananas", "nsga2-optuna",
              "motpe-optuna")


def cpu_per_evaluation(benchmark, name: str, objectives, evaluations: int, seed: int) -> float:
    """Mean CPU microseconds of one ask plus one tell over a run of ``evaluations``."""
    options = {"n_objectives": len(objectives)} if name.endswith("-optuna") else {}
    optimizer = make(name, benchmark.space, seed=seed, **options)
    query_rng = np.random.default_rng(seed)
    multi = optimizer.multi_objective
    spent = 0
    for _ in range(evaluations):
        start = time.process_time_ns()
        trial = optimizer.ask()
        spent += time.process_time_ns() - start
        result = benchmark.query(trial.arch, trial.fidelity, query_rng)
        vector = objective_vector(benchmark, trial.arch, result, objectives, "valid") if multi else ()
        observation = Observation(result.valid_accuracy, result.cost_seconds, True, vector)
        start = time.process_time_ns()
        optimizer.tell(trial, observation)
        spent += time.process_time_ns() - start
    return spent / evaluations / 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=300)
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--objectives", default="error,latency:pixel3")
    parser.add_argument("--optimizers", default=",".join(OPTIMIZERS))
    arguments = parser.parse_args()
    benchmark = nasarena.benchmark("nb201-cifar10")
    objectives = parse_objectives(arguments.objectives)
    seeds = [int(seed) for seed in arguments.seeds.split(",")]
    names = arguments.optimizers.split(",")
    for name in ("re", "nsga2-optuna"):  # the two baselines, always in the same process
        if name not in names:
            names.append(name)
    costs = {}
    for name in names:
        costs[name] = float(np.mean([cpu_per_evaluation(benchmark, name, objectives, arguments.evaluations, seed)
                                     for seed in seeds]))
    print(f"nb201-cifar10, {arguments.objectives}, {arguments.evaluations} evaluations, seeds {arguments.seeds}")
    print(f"{'optimizer':<18}{'us/eval':>10}{'x re':>9}{'x nsga2-optuna':>16}")
    for name, cost in costs.items():
        print(f"{name:<18}{cost:>10.1f}{cost / costs['re']:>9.1f}{cost / costs['nsga2-optuna']:>16.3f}")


if __name__ == "__main__":
    main()
