"""Benchmark the LightGBM fast path: ``query_batch`` of nb101-lgb-v1.0 with and without
:class:`nasarena.surrogates.forest.LightGBMForest`, in the same process.

Run: .venv/bin/python bench/bench_lightgbm_forest.py [--rows 100000] [--repeats 3]
Baseline: the same benchmark with every LightGBM booster (the five accuracy members and the
runtime model) called through LightGBM's own ``predict`` on one thread, as before the forest.
Measured (best of ``repeats``, alternating the two so that machine load hits both alike):
architectures per second of ``query_batch`` on pre-encoded rows and on row numbers, and of the
accuracy ensemble alone (``predict``); and that both paths give the same numbers.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from nasarena.benchmarks.surrogate import load_builtin
from nasarena.surrogates.models import LightGBMModel


def lightgbm_only(bench) -> None:
    """Route every LightGBM booster of ``bench`` through LightGBM's own predict (the baseline)."""
    for fidelity, fast in bench._ensembles.items():
        fast.forest = None
        fast.members = [_booster_predict(m) for m in bench.artifact.ensemble(fidelity).models]
    runtime = bench.artifact.runtime_model
    if runtime is not None and isinstance(runtime.model, LightGBMModel):
        runtime._predict = _booster_predict(runtime.model)


def _booster_predict(model):
    booster, best = model.model.booster_, model.model.best_iteration_ or None
    return lambda x: booster.predict(x, num_iteration=best, num_threads=1).astype(np.float64)


def best_rate(call, rows: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return rows / min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    forest, baseline = load_builtin("nb101-lgb-v1.0"), load_builtin("nb101-lgb-v1.0")
    lightgbm_only(baseline)
    rows = np.random.default_rng(0).integers(0, forest._index.size, options.rows)
    encoded = forest._index.encode_rows(rows, forest.artifact.encoding)
    a = forest.query_batch(encoded, noise=False)
    b = baseline.query_batch(encoded, noise=False)
    same = np.array_equal(a.valid_accuracy, b.valid_accuracy) and np.array_equal(a.cost_seconds, b.cost_seconds)
    print(f"nb101-lgb-v1.0, {options.rows:,} rows, best of {options.repeats}; identical results: {same}")
    cases = {"query_batch(encodings)": lambda bench: bench.query_batch(encoded),
             "query_batch(rows)": lambda bench: bench.query_batch(rows),
             "predict(encodings)": lambda bench: bench.predict(encoded)}
    for label, call in cases.items():
        rates = {"lightgbm": [], "forest": []}
        for _ in range(options.repeats):  # alternate, so that load changes hit both
            rates["lightgbm"].append(best_rate(lambda: call(baseline), options.rows, 1))
            rates["forest"].append(best_rate(lambda: call(forest), options.rows, 1))
        before, after = max(rates["lightgbm"]), max(rates["forest"])
        print(f"  {label:24s} LightGBM {before:10,.0f}/s   forest {after:10,.0f}/s   x{after / before:.2f}", flush=True)


if __name__ == "__main__":
    main()
