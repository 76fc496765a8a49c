"""True (test error, latency) Pareto fronts of the NB201 benchmarks per device, and the Kendall
matrix of latency across the 27 device settings (issue 31's proof figures).

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_hardware_fronts.py [benchmark] [device ...]

The front comes from a two-objective sweep written from the definition (sort by latency, keep
each architecture that lowers the best error so far), checked against moocore's
``analysis.pareto.non_dominated``. About 10 s, most of it the 351 Kendall pairs.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import nasarena
from nasarena.analysis.hardware import latency_kendall_matrix
from nasarena.analysis.pareto import non_dominated
from nasarena.benchmarks.objectives import best_under, objective_matrix, parse_objectives

DEVICES = ("pixel3", "raspi4", "titan_rtx_1", "titan_rtx_256", "eyeriss")


def sweep_front(points: np.ndarray) -> np.ndarray:
    """Rows of the non-dominated (error, latency) points, each distinct point once, by latency."""
    order = np.lexsort((points[:, 0], points[:, 1]))  # by latency, then error
    kept, best = [], np.inf
    for row in order:
        if points[row, 0] < best:
            kept.append(row)
            best = points[row, 0]
    return np.array(kept)


def main(name: str, devices: tuple[str, ...]) -> None:
    bench = nasarena.benchmark(name)
    for device in devices:
        matrix = objective_matrix(bench, parse_objectives(f"error,latency:{device}"))
        front = sweep_front(matrix)
        assert len(front) == non_dominated(matrix).sum(), "the sweep and moocore disagree"
        fastest, most_accurate = front[0], front[-1]
        print(f"{name} x {device}: true front of {len(front)} architectures")
        for label, row in (("fastest", fastest), ("most accurate", most_accurate)):
            print(f"  {label:14s} row {row:5d} {bench.arch_at(row).to_string()}: test error {matrix[row, 0]:.4f}, "
                  f"{matrix[row, 1]:.4g} ms")
        median = float(np.median(matrix[:, 1]))
        best = best_under(bench, device, median)
        print(f"  best under the median latency {median:.4g} ms: row {best.row}, accuracy {best.accuracy:.4f} "
              f"({best.latency_ms:.4g} ms, {best.feasible:,} feasible)")
    start = time.perf_counter()
    names, tau = latency_kendall_matrix(bench)
    print(f"Kendall tau-b of latency over {len(bench):,} cells, {len(names)} device settings "
          f"({time.perf_counter() - start:.1f} s):")
    upper = tau[np.triu_indices(len(names), 1)]
    print(f"  off-diagonal: min {upper.min():.3f}, median {np.median(upper):.3f}, max {upper.max():.3f}")
    i, j = np.unravel_index(np.argmin(np.where(np.eye(len(names), dtype=bool), 2, tau)), tau.shape)
    print(f"  least alike: {names[i]} / {names[j]} ({tau[i, j]:.3f})")
    for device in ("pixel3", "raspi4", "titan_rtx_1"):
        k = names.index(device)
        order = np.argsort(-tau[k])
        print(f"  {device}: most alike {', '.join(f'{names[o]} {tau[k, o]:.2f}' for o in order[1:4])}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nb201-cifar10", tuple(sys.argv[2:]) or DEVICES)
