"""Benchmark surrogate queries: single-query latency and batch throughput of the built-in surrogates.

Run: .venv/bin/python benchmarks/bench_surrogate.py [NAME ...] [--rows 100000]
Baseline (same run): a plain per-architecture loop that encodes each architecture and calls the
ensemble's ``predict`` (every member's scikit-learn wrapper) and the runtime model's ``predict``
on one row at a time, with no cache: what a straightforward surrogate benchmark does per query.
Measured: load time; ``query`` of architectures never queried before (encoding, every member,
runtime model) and of architectures already queried (cached prediction, one noise draw);
``query_batch`` on pre-encoded rows, on row numbers (vectorised encoding) and on architecture
objects (cached encodings).
For artefacts with a prediction table (``tabulate=True``) the same run also measures the same
artefact with its table removed (queries answered by the models), and ``--compare`` prints the
held-out fit metrics of the NB101 built-ins on the cells none of them was fitted on.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from nasarena.benchmarks.surrogate import SurrogateBenchmark, load_builtin
from nasarena.surrogates.builtin import BUILTINS, nb101_lite_data
from nasarena.surrogates.metrics import fit_metrics
from nasarena.surrogates.spaces import finite_index

SINGLE_QUERIES = 2_000
BASELINE_QUERIES = 300


def per_query_microseconds(call, items) -> float:
    start = time.perf_counter()
    for item in items:
        call(item)
    return (time.perf_counter() - start) / len(items) * 1e6


def rows_per_second(call, rows: int) -> float:
    start = time.perf_counter()
    call()
    return rows / (time.perf_counter() - start)


def baseline_query(bench, arch) -> tuple[float, float]:
    """Encode, predict with the ensemble's own predict and the runtime model's wrapper, no cache."""
    x = np.asarray(bench.space.encode(arch, bench.artifact.encoding), dtype=np.float32)[None, :]
    mean, std = bench.artifact.accuracy_model.predict(x)
    runtime = bench.artifact.runtime_model
    cost = bench.artifact.fidelity * np.exp(runtime.model.predict(x)) if runtime is not None else 0.0
    return float(mean[0] + std[0] * np.random.standard_normal()), float(np.ravel(cost)[0])


def measure(name: str, batch_rows: int) -> dict:
    start = time.perf_counter()
    bench = load_builtin(name)
    loaded = time.perf_counter() - start
    rng = np.random.default_rng(0)
    space = bench.space
    archs = [space.sample(rng) for _ in range(SINGLE_QUERIES)]
    bench.query(archs[0])  # first query loads the parameter counts
    query_rng = np.random.default_rng(1)
    fresh = per_query_microseconds(lambda a: bench.query(a, rng=query_rng), archs[1:])
    cached = per_query_microseconds(lambda a: bench.query(a, rng=query_rng), archs[1:])
    baseline = per_query_microseconds(lambda a: baseline_query(bench, a), archs[1:BASELINE_QUERIES + 1])

    index = finite_index(bench.artifact.space)
    rows = rng.integers(0, index.size, batch_rows)
    encoded = index.encode_rows(rows, bench.artifact.encoding)
    batch_encoded = rows_per_second(lambda: bench.query_batch(encoded, rng=query_rng), batch_rows)
    accuracy_only = rows_per_second(lambda: bench.predict(encoded), batch_rows)
    batch_rows_rate = rows_per_second(lambda: bench.query_batch(rows, rng=query_rng), batch_rows)
    batch_archs = rows_per_second(lambda: bench.query_batch(archs, rng=query_rng), len(archs))
    baseline_batch = 1e6 / baseline
    return dict(name=name, load_s=loaded, fresh_query_us=fresh, cached_query_us=cached, baseline_query_us=baseline,
                batch_encoded_per_s=batch_encoded, ensemble_only_per_s=accuracy_only,
                batch_rows_per_s=batch_rows_rate, batch_archs_per_s=batch_archs, baseline_loop_per_s=baseline_batch)


def table_versus_models(name: str, batch_rows: int) -> dict:
    """Single-query latency and row-batch throughput of a tabulated artefact, with its table and
    without it (the same artefact answered by its models), in the same run."""
    with_table = load_builtin(name)
    without = SurrogateBenchmark(dataclasses.replace(with_table.artifact, prediction_table=None))
    rng = np.random.default_rng(0)
    archs = [with_table.space.sample(rng) for _ in range(SINGLE_QUERIES)]
    rows = rng.integers(0, with_table.artifact.prediction_table.size, batch_rows)
    measured = {}
    for label, bench in (("table", with_table), ("models", without)):
        bench.query(archs[0])
        single = archs[1:] if label == "table" else archs[1:BASELINE_QUERIES + 1]
        query_rng = np.random.default_rng(1)
        measured[f"{label}_query_us"] = per_query_microseconds(lambda a: bench.query(a, rng=query_rng), single)
        measured[f"{label}_rows_per_s"] = rows_per_second(lambda: bench.query_batch(rows, rng=query_rng), batch_rows)
    return measured


def heldout_comparison(names) -> None:
    """Fit metrics of NB101 built-ins on the nb101-lite cells outside all their training data."""
    _, (held_out,) = nb101_lite_data()  # the 373,624 cells outside the 50,000 (the GIN's 25,000 are nested)
    rows, truth = held_out.data.archs.rows, held_out.data.valid_accuracy
    print(f"held-out fit on the {len(rows):,} nb101-lite cells no NB101 built-in was fitted on:")
    for name in names:
        metrics = fit_metrics(truth, load_builtin(name).predict(rows)[0])
        print(f"  {name:16s} R2={metrics.r2:.4f} MAE={metrics.mae:.5f} Kendall={metrics.kendall_tau:.4f} "
              f"sparse Kendall={metrics.sparse_kendall_tau:.4f} Spearman={metrics.spearman:.4f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(BUILTINS))
    parser.add_argument("--rows", type=int, default=100_000, help="rows of the batch measurements")
    parser.add_argument("--compare", action="store_true", help="held-out metrics of the NB101 built-ins")
    options = parser.parse_args()
    if options.compare:
        heldout_comparison([n for n in BUILTINS if n.startswith("nb101-") and "slice" not in n])
    print(f"{'surrogate':24s} {'load s':>7s} {'query new':>10s} {'cached':>8s} {'baseline':>9s}   "
          f"{'batch enc/s':>12s} {'ensemble/s':>11s} {'rows/s':>10s} {'archs/s':>10s} {'baseline/s':>11s}")
    for name in options.names:
        m = measure(name, options.rows)
        print(f"{m['name']:24s} {m['load_s']:7.2f} {m['fresh_query_us']:8.0f}us {m['cached_query_us']:6.1f}us "
              f"{m['baseline_query_us']:7.0f}us   {m['batch_encoded_per_s']:12,.0f} {m['ensemble_only_per_s']:11,.0f} "
              f"{m['batch_rows_per_s']:10,.0f} {m['batch_archs_per_s']:10,.0f} {m['baseline_loop_per_s']:11,.0f}",
              flush=True)
        if BUILTINS[name].settings.tabulate:
            t = table_versus_models(name, options.rows)
            print(f"{'':24s} table: {t['table_query_us']:.1f}us/query {t['table_rows_per_s']:,.0f} rows/s; "
                  f"without the table: {t['models_query_us']:.0f}us/query {t['models_rows_per_s']:,.0f} rows/s",
                  flush=True)


if __name__ == "__main__":
    main()
