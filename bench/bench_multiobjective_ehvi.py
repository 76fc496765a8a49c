"""EHVI with random forests (``ehvi-rf``) against the other multi-objective optimizers, NB201 x latency.

Run: nice -n 10 .venv/bin/python bench/bench_multiobjective_ehvi.py [OUT] [SEEDS] [OPTIMIZERS] [BUDGET] [JOBS]
  OUT: results directory, resumable (default results/bench-multiobjective-ehvi)
  SEEDS: seeds per configuration (default 20); OPTIMIZERS: default ehvi-rf,mo-rs,mo-re,nsga2,parego-smac
  (ParEGO with SMAC's forest: the other model-based one; the first is the one the verdict is
  about, mo-rs must be among them); BUDGET: simulated seconds per run (default 3e5);
  JOBS: processes (default 1)

Prints the EHVI comparison of :mod:`nasarena.studies.multiobjective_bench` (the problems, scores
and table of ``bench/bench_multiobjective_fidelity.py``, whose ``command_line`` this calls; every
optimizer here trains at 200 epochs only, so the table has no region@200 column) at any size:
``docs/multi-objective.md`` publishes it at the defaults, written by ``nasarena reproduce
multi-objective`` (block ``bench``); this script only prints.

No library reference runs EHVI here: Optuna's samplers have none and BoTorch is not installed.
"""

from __future__ import annotations

from bench_multiobjective_fidelity import command_line
from nasarena.studies import multiobjective_bench as study

if __name__ == "__main__":
    command_line("results/bench-multiobjective-ehvi", study.EHVI)
