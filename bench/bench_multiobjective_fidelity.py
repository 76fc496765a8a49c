"""MO-ASHA (multi-fidelity) against single-fidelity multi-objective search at equal simulated time.

Run: nice -n 10 .venv/bin/python bench/bench_multiobjective_fidelity.py [OUT] [SEEDS] [OPTIMIZERS] [BUDGET] [JOBS]
  OUT: results directory, resumable (default results/bench-multiobjective-fidelity)
  SEEDS: seeds per configuration (default 20); OPTIMIZERS: default mo-asha,mo-rs,mo-re,nsga2 (the
  first is the one the verdict is about; mo-rs, the baseline, must be among them);
  BUDGET: simulated seconds per run (default 3e5, about 200 NB201 trainings of 200 epochs);
  JOBS: processes (default 1)

Prints the MO-ASHA comparison of :mod:`nasarena.studies.multiobjective_bench` (read it for what
runs and what is read off the runs: nb201-cifar10 with error and latency on pixel3 and raspi4,
region, region@200 and whole-front regret, evaluations per fidelity, against mo-rs paired by
seed) at any size: ``docs/multi-objective.md`` publishes it at the defaults, written by
``nasarena reproduce multi-objective`` (block ``bench``); this script only prints.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from nasarena.runner.experiment import load_results, run_experiment
from nasarena.studies import multiobjective_bench as study
from nasarena.studies.latency_problems import cpu_per_evaluation


def main(out: Path, seeds: int, comparison: study.Comparison, budget: float, jobs: int) -> None:
    """Run ``comparison``'s grid (resumable) and print its table and verdict."""
    chosen = study.Study(comparisons=(comparison,), seeds=seeds, seconds=budget)
    planned = study.specs(chosen)
    run_experiment(planned, out, jobs=jobs)
    values = study.summarise(load_results(out, planned), chosen)
    print(study.markdown(values, cpu_per_evaluation(out, planned), chosen))


def command_line(default_out: str, default: study.Comparison) -> None:
    """``main`` with the arguments of the module docstring (``default``: the comparison's optimizers)."""
    arguments = sys.argv[1:]
    optimizers = tuple(arguments[2].split(",")) if len(arguments) > 2 else default.optimizers
    main(Path(arguments[0]) if arguments else Path(default_out), int(arguments[1]) if len(arguments) > 1 else 20,
         dataclasses.replace(default, optimizers=optimizers), float(arguments[3]) if len(arguments) > 3 else 3e5,
         int(arguments[4]) if len(arguments) > 4 else 1)


if __name__ == "__main__":
    command_line("results/bench-multiobjective-fidelity", study.FIDELITY)
