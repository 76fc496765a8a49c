"""The nb301 benchmark (YAHPO Gym's model of NB301's training data): speed, rank agreement, curves.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_nb301_yahpo.py [--archs 10000] [--curves 1000] [--seed 0]

Prints the checks of :mod:`nasarena.studies.nb301_validation` (read it for what each one is) at
any size and seed: the page ``docs/reproduce/nas-bench-301.md`` publishes them at the defaults,
written by ``nasarena reproduce nas-bench-301``; this script only prints.
"""

from __future__ import annotations

import argparse

from nasarena.benchmarks.nb301_yahpo import NB301Benchmark
from nasarena.studies import nb301_validation as check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archs", type=int, default=10_000)
    parser.add_argument("--curves", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    benchmark = NB301Benchmark(threads=1)
    archs = check.drawn(benchmark, args.archs, args.seed)
    for name, values in (("speed (queries/s)", check.speed(benchmark, archs)),
                         ("rank agreement", check.rank_agreement(benchmark, args.seed)),
                         ("curves", check.curve_shape(benchmark, archs[: args.curves]))):
        print(f"{name}:")
        for key, value in values.items():
            print(f"  {key}: {value:.4g}")
    print(f"noise: repeated and batched queries bit-identical: {check.deterministic(benchmark, archs[:200])}")
    best = benchmark.query_batch(archs).valid_accuracy.max()
    print(f"optimum {benchmark.optimum():.5f} (optimum.json) against {best:.4f}, the best of the {len(archs):,} drawn")


if __name__ == "__main__":
    main()
