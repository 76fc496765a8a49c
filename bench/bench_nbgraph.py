"""NAS-Bench-Graph: the cross-dataset rank correlation of architecture performance, and every optimizer on it.

Prints what ``docs/nas-bench-graph.md``'s generated block shows (the NAS-Bench-Graph paper's
analysis of how the ranking of architectures transfers between datasets: Spearman and Kendall
tau-b of test performance for every pair of the nine datasets, on the networks both measure,
``nasarena.analysis.rank_transfer``), timed. With ``--optimizers`` it runs nasarena's conformance
check of every registered optimizer (two seeded 25-evaluation runs and the rest of
``check_optimizer``) on nbgraph-cora and nbgraph-proteins, with the seconds each took; the
multi-fidelity optimizers refuse (the package holds one fidelity).

    OMP_NUM_THREADS=1 python bench/bench_nbgraph.py [--optimizers]

The published numbers are on the page, written by ``nasarena reproduce nas-bench-graph``; this
script only prints.
"""

from __future__ import annotations

import argparse
import os
import time

import nasarena
from nasarena.analysis.rank_transfer import by_identity, rank_transfer, self_agreement, upper_triangle
from nasarena.benchmarks.nbgraph import DATASETS, PROTEINS
from nasarena.benchmarks.tabular import TabularBenchmark


def tables() -> dict[str, TabularBenchmark]:
    return {dataset: nasarena.benchmark(f"nbgraph-{dataset}") for dataset in DATASETS}


def check_optimizers() -> list[tuple[str, str, str]]:
    """(optimizer, outcome on nbgraph-cora, outcome on nbgraph-proteins): seconds or the refusal."""
    from nasarena.optimizers.base import available
    from nasarena.testing import check_optimizer

    benchmarks = [nasarena.benchmark(name) for name in ("nbgraph-cora", f"nbgraph-{PROTEINS}")]
    rows = []
    for entry in available():
        outcomes = []
        for benchmark in benchmarks:
            started = time.perf_counter()
            try:
                check_optimizer(entry.name, benchmark)
                outcomes.append(f"{time.perf_counter() - started:.1f} s")
            except ValueError as error:  # the multi-fidelity optimizers refuse one fidelity
                outcomes.append(f"refused ({str(error).split(';')[0]})")
        rows.append((entry.name, *outcomes))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--optimizers", action="store_true", help="also run check_optimizer of every optimizer")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    started = time.perf_counter()
    loaded = tables()
    transfer = rank_transfer({name: by_identity(table) for name, table in loaded.items()})
    spearman, kendall = transfer.spearman, transfer.kendall
    print(f"correlations in {time.perf_counter() - started:.1f} s; networks compared per pair: "
          f"{sorted(set(upper_triangle(transfer.common).tolist()))}")
    print("Spearman rho of test performance (upper triangle; lower triangle: Kendall tau-b):")
    print(" " * 10 + "".join(f"{name:>10}" for name in DATASETS))
    for i, name in enumerate(DATASETS):
        cells = [spearman[i, j] if j > i else kendall[i, j] for j in range(len(DATASETS))]
        print(f"{name:>10}" + "".join("       -  " if i == j else f"{value:10.3f}" for j, value in enumerate(cells)))
    print("validation vs test rank correlation (Spearman / Kendall):")
    for dataset, table in loaded.items():
        rho, tau = self_agreement(table)
        print(f"  {dataset:>10} {rho:.3f} / {tau:.3f}")
    if args.optimizers:
        print("check_optimizer on nbgraph-cora / nbgraph-proteins:")
        for name, *outcomes in check_optimizers():
            print(f"  {name:>15} {' / '.join(outcomes)}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
