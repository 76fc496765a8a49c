"""Protocol throughput: many seeds of an optimizer on nb101-lite, and per-evaluation overheads.

Run: .venv/bin/python bench/bench_runner.py [seeds] [optimizers]
  seeds: number of seeds of regularized evolution with a 1e7 s budget (default 500)
  optimizers: comma-separated list whose per-evaluation overhead is measured (default: all)
"""

import shutil
import sys
import tempfile
import time
from pathlib import Path

import nasarena
from nasarena.optimizers import available, make
from nasarena.runner import Budget, run
from nasarena.runner.experiment import grid, load_results, run_experiment, summarize


def many_seeds(seeds: int) -> None:
    out = Path(tempfile.mkdtemp(prefix="nasarena-bench-"))
    try:
        specs = grid(["nb101-lite"], ["re"], range(seeds), Budget(seconds=1e7))
        start = time.perf_counter()
        run_experiment(specs, out)
        elapsed = time.perf_counter() - start
        results = load_results(out)
        summary = summarize(results)[0]
        print(f"{seeds} seeds of RE, 1e7 s budget, nb101-lite: {elapsed:.1f} s wall on 2 processes, "
              f"{len(results):,} evaluations ({len(results) / elapsed:,.0f}/s), mean final regret "
              f"{summary.mean_final_regret:.5f}")
    finally:
        shutil.rmtree(out)


def overheads(names: list[str]) -> None:
    """Per-evaluation cost of each optimizer on nb101-lite (multi-fidelity ones on nb101-slice)."""
    from nasarena.optimizers.base import REGISTRY

    lite, multi_fidelity = nasarena.benchmark("nb101-lite"), nasarena.benchmark("nb101-slice")
    run(lite, make("rs", lite.space, seed=0), Budget(evaluations=50), seed=0)  # load look-up tables first
    print(f"{'optimizer':10s} {'benchmark':12s} {'evals':>6s} {'us/eval (all)':>14s} {'optimizer CPU us/eval':>22s}")
    for name in names:
        needs_fidelities = REGISTRY[name].multi_fidelity
        bench = multi_fidelity if needs_fidelities else lite
        settings = {"fidelities": bench.fidelities} if needs_fidelities else {}
        start = time.perf_counter()
        frame = run(bench, make(name, bench.space, seed=0, **settings), Budget(seconds=1e7, evaluations=2000), seed=0)
        elapsed = time.perf_counter() - start
        print(f"{name:10s} {bench.name:12s} {len(frame):6d} {elapsed / len(frame) * 1e6:14.1f} "
              f"{frame.optimizer_cpu_time.iloc[-1] / len(frame) * 1e6:22.1f}")


if __name__ == "__main__":
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else [e.name for e in available()]
    overheads(names)
    if seeds:
        many_seeds(seeds)
