"""NB101 hashing speed: per-cell and batch paths against the straightforward implementation.

Run: .venv/bin/python bench/bench_nb101_hash.py [num_cells]
All three paths hash the same raw cells; outputs are checked identical before timing counts.
"""

import sys
import time

import numpy as np

from nasarena.spaces.nb101 import INPUT, OPS, OUTPUT, Cell, hash_cells, unique_cells
from nasarena.spaces.nb101.lookup import hash_of_row, row_of_pruned
from straightforward_nb101 import straightforward_hash


def raw_cells(count: int, rng: np.random.Generator):
    """Bernoulli(0.5) 7x7 cells as the original random search draws them (many prune small)."""
    matrices = np.triu(rng.integers(0, 2, size=(count, 7, 7)), 1)
    ops = np.array([OPS[i] for i in rng.integers(0, 3, size=count * 7)]).reshape(count, 7)
    ops[:, 0], ops[:, -1] = INPUT, OUTPUT
    return matrices, ops


def unique_space_cells(count: int, rng: np.random.Generator):
    """Cells drawn uniformly over the unique cells (85% have 7 vertices), widened to 7x7."""
    table = unique_cells()
    matrices = np.zeros((count, 7, 7), dtype=np.int64)
    ops = np.full((count, 7), OPS[0], dtype=object)
    for k, row in enumerate(rng.integers(0, len(table), size=count)):
        cell = table.cell(int(row))
        n = cell.num_vertices
        matrices[k, : n - 1, : n - 1] = np.array(cell.matrix)[: n - 1, : n - 1]
        matrices[k, : n - 1, 6] = np.array(cell.matrix)[: n - 1, n - 1]
        ops[k, : n - 1] = cell.ops[:-1]
        ops[k, 6] = OUTPUT
    return matrices, ops.astype(str)


def main(count: int = 20_000) -> None:
    unique_cells(), Cell([[0, 1], [0, 0]], [INPUT, OUTPUT]).hash  # load tables before timing
    for name, draw in (("raw Bernoulli(0.5) cells", raw_cells), ("uniform over unique cells", unique_space_cells)):
        print(f"--- {name}")
        measure(*draw(count, np.random.default_rng(0)))


def measure(matrices: np.ndarray, ops: np.ndarray) -> None:
    count = len(matrices)
    op_lists = ops.tolist()

    start = time.perf_counter()
    baseline = [straightforward_hash(matrices[i], op_lists[i]) for i in range(count)]
    t_base = time.perf_counter() - start

    start = time.perf_counter()
    per_cell = [Cell(matrices[i], op_lists[i]).hash for i in range(count)]
    t_cell = time.perf_counter() - start

    cells = [Cell(matrices[i], op_lists[i]) for i in range(count)]
    start = time.perf_counter()
    built = [hash_of_row(row_of_pruned(c.matrix, c.ops)) if c.is_valid else None for c in cells]
    t_built = time.perf_counter() - start

    start = time.perf_counter()
    batch = hash_cells(matrices, ops)
    t_batch = time.perf_counter() - start

    assert per_cell == baseline == built
    assert [h or None for h in batch.hashes.tolist()] == baseline
    valid = sum(h is not None for h in baseline)
    print(f"{count:,} raw cells ({valid:,} valid), identical hashes on all three paths")
    print(f"straightforward per cell : {t_base / count * 1e6:8.2f} us/cell   (baseline)")
    print(f"Cell(...).hash per cell  : {t_cell / count * 1e6:8.2f} us/cell   x{t_base / t_cell:6.1f}")
    print(f"  hash of a built Cell   : {t_built / count * 1e6:8.2f} us/cell   x{t_base / t_built:6.1f}")
    print(f"hash_cells batch         : {t_batch / count * 1e6:8.2f} us/cell   x{t_base / t_batch:6.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
