"""EHVI with random forests (``ehvi-rf``) against the other multi-objective optimizers, NB201 x latency.

Run: nice -n 10 .venv/bin/python bench/bench_multiobjective_ehvi.py [OUT] [SEEDS] [OPTIMIZERS] [BUDGET] [JOBS]
  OUT: results directory, resumable (default results/bench-multiobjective-ehvi)
  SEEDS: seeds per configuration (default 20); OPTIMIZERS: default ehvi-rf,mo-rs,mo-re,nsga2,parego-smac
  (ParEGO with SMAC's forest: the other model-based one); BUDGET: simulated seconds per run
  (default 3e5, the budget of ``bench/bench_multiobjective.py``); JOBS: processes (default 1)

The problems, scores and table are those of ``bench/bench_multiobjective_fidelity.py`` (whose
``compare`` this calls): nb201-cifar10 with error and latency on pixel3 and on raspi4, the
median final hypervolume regret over the seeds with its interquartile range, evaluations per
run, the optimizer's CPU milliseconds per evaluation (measured over the whole run: it varies
with the machine's load), and the paired comparison with mo-rs. Every optimizer here trains at
200 epochs only, so the table has one regret column.

No library reference runs EHVI here: Optuna's samplers have none and BoTorch is not installed.

Measured 2026-12-01 with the defaults (20 seeds, 3e5 s, one job on 2 cores shared with other
jobs, the NB201 latency data of the working tree that day; mo-rs, mo-re and nsga2 make the runs
of ``bench/bench_multiobjective_fidelity.py``'s table, as a run is determined by its seed), as
printed:

    nb201-cifar10 error,latency:pixel3: 20 seeds, 300000 s; final HV regret: median (interquartile range)
      optimizer             region     whole front evals@200 latency ms/eval < mo-rs p vs mo-rs
      ehvi-rf      0.1460 (0.0656) 0.0074 (0.0034)       297    3.18   21.43   13/20       0.93
      mo-rs        0.1646 (0.0299) 0.0183 (0.0080)       182   10.64    0.01
      mo-re        0.1063 (0.0253) 0.0079 (0.0050)       192    9.34    0.16   19/20    5.7e-06
      nsga2        0.1323 (0.0415) 0.0130 (0.0099)       201    9.19    0.07   15/20    0.00085
      parego-smac  0.1278 (0.0546) 0.0074 (0.0026)       229    6.64   11.38   16/20     0.0064

    nb201-cifar10 error,latency:raspi4: 20 seeds, 300000 s; final HV regret: median (interquartile range)
      optimizer             region     whole front evals@200 latency ms/eval < mo-rs p vs mo-rs
      ehvi-rf      0.1658 (0.0487) 0.0079 (0.0018)       284    8.50   18.75   10/20       0.73
      mo-rs        0.1552 (0.0290) 0.0106 (0.0029)       182   25.56    0.01
      mo-re        0.1096 (0.0145) 0.0067 (0.0031)       197   23.11    0.15   19/20    5.7e-06
      nsga2        0.1290 (0.0448) 0.0069 (0.0040)       197   23.17    0.07   18/20    0.00021
      parego-smac  0.1218 (0.0204) 0.0058 (0.0008)       231   17.04   11.32   17/20    6.3e-05

ehvi-rf's whole-front regret is below random search's on both devices (on pixel3 level with
parego-smac's), but in the region of interest it does no better than random search (the paired
test's p-value): it maximises the hypervolume of the whole box, to which the fast, less accurate
cells add most, and that is where it spends its evaluations (the lowest median latency of all,
and the most evaluations, as fast cells train fast). Its CPU per evaluation is that of two
forest refits and 500 candidates per ask.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench_multiobjective_fidelity import compare

OPTIMIZERS = "ehvi-rf,mo-rs,mo-re,nsga2,parego-smac"

if __name__ == "__main__":
    arguments = sys.argv[1:]
    compare(Path(arguments[0]) if arguments else Path("results/bench-multiobjective-ehvi"),
            int(arguments[1]) if len(arguments) > 1 else 20,
            (arguments[2] if len(arguments) > 2 else OPTIMIZERS).split(","),
            float(arguments[3]) if len(arguments) > 3 else 3e5,
            int(arguments[4]) if len(arguments) > 4 else 1)
