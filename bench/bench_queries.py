"""Benchmark loading and querying, against a baseline laid out like the original API.

Run: .venv/bin/python bench/bench_queries.py
Baseline: a plain dict hash -> {"fixed": {...}, "computed": {epochs: [dict per trial]}} of Python
objects, the layout the original NB101 API keeps in memory, queried the way it does it
(random trial, dict copies).
"""

import random
import subprocess
import sys
import time

import numpy as np

LOAD_SNIPPET = """
import resource, time
start = time.perf_counter()
import nasarena
bench = nasarena.benchmark({name!r}{options})
bench.query(0)
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def load_in_fresh_process(name: str, options: str = "") -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", LOAD_SNIPPET.format(name=name, options=options)],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def baseline_layout(bench, rows: np.ndarray) -> dict:
    """The original API's in-memory layout for the given rows (Python dicts and lists)."""
    from nasarena.spaces.nb101 import unique_cells

    table = unique_cells()
    data = {}
    for row in rows.tolist():
        result = bench.query(row)
        trial = {"final_training_time": result.cost_seconds, "final_train_accuracy": result.train_accuracy,
                 "final_validation_accuracy": result.valid_accuracy, "final_test_accuracy": result.test_accuracy}
        data[table.hashes.item(row)] = {
            "fixed": {"module_adjacency": table.matrix(row), "module_operations": table.ops(row),
                      "trainable_parameters": result.trainable_parameters},
            "computed": {108: [dict(trial), dict(trial), dict(trial)]},
        }
    return data


def baseline_query(data: dict, module_hash: str, epochs: int = 108) -> dict:
    fixed, computed = data[module_hash]["fixed"], data[module_hash]["computed"]
    sampled = computed[epochs][random.randint(0, 2)]
    result = {key: fixed[key] for key in ("module_adjacency", "module_operations", "trainable_parameters")}
    result.update({key[len("final_"):]: value for key, value in sampled.items()})
    return result


def main() -> None:
    import nasarena
    from nasarena.spaces.nb101 import unique_cells

    seconds, rss = load_in_fresh_process("nb101-lite")
    print(f"nb101-lite: import + load + first query {seconds:.2f} s, peak RSS {rss:.0f} MB (fresh process)")

    bench = nasarena.benchmark("nb101-lite")
    table = unique_cells()
    table.cell(0).row  # build the one-time hashing look-up before timing
    rng = np.random.default_rng(0)
    rows = rng.choice(len(table), size=20_000, replace=False)
    cells = [table.cell(int(r)) for r in rows]
    hashes = [table.hashes.item(int(r)) for r in rows]

    data = baseline_layout(bench, rows)
    random.seed(0)
    start = time.perf_counter()
    for h in hashes:
        baseline_query(data, h)
    t_base = (time.perf_counter() - start) / len(rows)

    start = time.perf_counter()
    for cell in cells:
        bench.query(cell, rng=rng)
    t_hashing = (time.perf_counter() - start) / len(rows)
    start = time.perf_counter()
    for cell in cells:
        bench.query(cell, rng=rng)
    t_built = (time.perf_counter() - start) / len(rows)
    start = time.perf_counter()
    for r in rows.tolist():
        bench.query(r, rng=rng)
    t_row = (time.perf_counter() - start) / len(rows)

    many = rng.integers(0, len(table), size=2_000_000)
    start = time.perf_counter()
    bench.query_batch(many, rng=rng)
    t_batch = time.perf_counter() - start

    print(f"baseline dict-of-objects query      : {t_base * 1e6:6.2f} us")
    print(f"query(Cell), hash not yet computed  : {t_hashing * 1e6:6.2f} us   x{t_base / t_hashing:5.2f}")
    print(f"query(Cell), hash already cached    : {t_built * 1e6:6.2f} us   x{t_base / t_built:5.2f}")
    print(f"query(row index)                    : {t_row * 1e6:6.2f} us   x{t_base / t_row:5.2f}")
    print(f"query_batch                         : {len(many) / t_batch / 1e6:6.1f} M queries/s "
          f"(x{t_base * len(many) / t_batch:.0f} over the baseline per query)")


if __name__ == "__main__":
    main()
