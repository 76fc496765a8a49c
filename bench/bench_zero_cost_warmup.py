"""The zero-cost warm-up (Abdelfattah et al., ICLR 2021, Sec. 5) of RE and BANANAS on NB201 CIFAR-10,
with the proxy's measured cost charged to the simulated clock (issue 32).

Run: nice -n 10 .venv/bin/python bench/bench_zero_cost_warmup.py [OUT] [SEEDS] [JOBS] [SAMPLES] [PROXY]
  OUT: results directory, resumable (default results/bench-zero-cost-warmup); SEEDS: default 50;
  JOBS: processes (default 1); SAMPLES: architectures the warm-up scores (default 3000, the
  paper's); PROXY: default synflow (the paper's)

Prints the study of :mod:`nasarena.studies.zero_cost_warmup` (read it for what runs and what is
read off the runs) at any size: ``docs/estimators.md`` publishes it at the defaults, written by
``nasarena reproduce estimators`` (block ``warmup``); this script only prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

from nasarena.runner.experiment import load_results, run_experiment
from nasarena.studies import zero_cost_warmup as study


def main(out: Path, seeds: int, jobs: int, samples: int, proxy: str) -> None:
    chosen = study.Study(seeds=seeds, samples=samples, proxy=proxy)
    planned = study.specs(chosen)
    run_experiment(planned, out, jobs=jobs)
    values = study.summarise(load_results(out, planned), planned, chosen) | study.warmup_cost(chosen)
    print(study.markdown(values, chosen))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/bench-zero-cost-warmup"),
         int(sys.argv[2]) if len(sys.argv) > 2 else 50, int(sys.argv[3]) if len(sys.argv) > 3 else 1,
         int(sys.argv[4]) if len(sys.argv) > 4 else 3000, sys.argv[5] if len(sys.argv) > 5 else "synflow")
