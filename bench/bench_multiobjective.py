"""Every multi-objective optimizer on NB201 x measured latency, scored against the exact true front.

Run: nice -n 10 .venv/bin/python bench/bench_multiobjective.py [OUT] [SEEDS] [OPTIMIZERS] [BUDGET] [JOBS]
  OUT: results directory, resumable (default results/bench-multiobjective)
  SEEDS: seeds per configuration (default 20); OPTIMIZERS: comma-separated, default every
  multi-objective optimizer; BUDGET: simulated seconds per run (default 3e5, about 200 NB201
  evaluations of ~1,400 s each); JOBS: processes (default 1)

The comparison is ``nasarena.studies.reproduce.multiobjective_nb201`` (the two problems, pixel3
and raspi4, the scores and the columns are in its docstring); this script runs it with other
settings and prints its table. At the defaults it is the table of docs/multi-objective.md, where
``nasarena reproduce multi-objective`` writes the measured numbers with their provenance.
"""

from __future__ import annotations

import sys
from pathlib import Path

from nasarena.runner.experiment import load_results, run_experiment
from nasarena.studies.latency_problems import cpu_per_evaluation, specs
from nasarena.studies.reproduce.multiobjective_nb201 import OPTIMIZERS, SECONDS, SEEDS, summarise, table


def main(out: Path, seeds: int, optimizers: list[str], budget: float, jobs: int) -> None:
    chosen = specs(optimizers, range(seeds), budget)
    run_experiment(chosen, out, jobs=jobs)
    print(table(summarise(load_results(out, chosen)), cpu_per_evaluation(out, chosen)))


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(Path(arguments[0]) if arguments else Path("results/bench-multiobjective"),
         int(arguments[1]) if len(arguments) > 1 else len(SEEDS),
         (arguments[2].split(",") if len(arguments) > 2 else list(OPTIMIZERS)),
         float(arguments[3]) if len(arguments) > 3 else SECONDS,
         int(arguments[4]) if len(arguments) > 4 else 1)
