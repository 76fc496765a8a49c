"""Benchmark surrogate queries: single-query latency and batch throughput of the built-in surrogates.

Run: .venv/bin/python bench/bench_surrogate.py [NAME ...] [--rows 100000]
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

``--large-spaces``: the DARTS and FBNet spaces have no built-in surrogate (no real training data
may be embedded) and no table, so every batch goes through the models. A surrogate of built-in
size (5 XGBoost members with the NB201 built-in's settings, plus the runtime model) is fitted on
``LARGE_FIT_ARCHITECTURES`` sampled architectures with a synthetic accuracy (a fixed function of
the encoding: speed does not depend on what was learnt), then ``query_batch`` of sampled
architecture objects is timed, split into encoding and forest walk, against the per-architecture
encoding path it replaced. CPU seconds (``process_time``) are reported beside wall seconds: on a
shared machine they are what one idle core would take.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from nasarena.benchmarks.surrogate import SurrogateBenchmark, load_builtin
from nasarena.studies.builtin_surrogates import nb101_lite_data
from nasarena.surrogates.builtin import BUILTINS, XGB_SETTINGS
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


LARGE_FIT_ARCHITECTURES = 3_000


def large_space_surrogate(space_name: str) -> SurrogateBenchmark:
    """A built-in-size XGBoost surrogate of ``space_name`` fitted on synthetic accuracies (see the module)."""
    import pandas as pd

    from nasarena.surrogates.data import training_data_from_frame
    from nasarena.surrogates.fitting import fit_surrogate
    from nasarena.surrogates.settings import FitSettings
    from nasarena.surrogates.spaces import space_by_name

    space = space_by_name(space_name)
    rng = np.random.default_rng(0)
    archs = [space.sample(rng) for _ in range(LARGE_FIT_ARCHITECTURES)]
    x = np.stack([space.encode(a, "one_hot") for a in archs])
    weights = np.random.default_rng(1).normal(size=x.shape[1])
    score = x @ weights / np.sqrt(x.shape[1])
    frame = pd.DataFrame({"arch": [space.to_text(a) for a in archs],
                          "valid_accuracy": 0.85 + 0.1 / (1 + np.exp(-score)) + rng.normal(0, 0.005, len(archs)),
                          "cost_seconds": 1000 + 500 * (x @ np.abs(weights)) / x.shape[1], "fidelity": 100})
    data = training_data_from_frame(frame, space)
    artifact = fit_surrogate(data, space_name, f"{space_name}-xgb-v0.1", FitSettings("xgb", 5, 0,
                                                                                     model_settings=XGB_SETTINGS))
    return SurrogateBenchmark(artifact)


def timed(call) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def large_spaces(batch_rows: int) -> None:
    """Batch throughput of the model path in the DARTS and FBNet spaces (see the module)."""
    print(f"model path, {batch_rows:,} sampled architectures per batch (architectures per second, wall / CPU):")
    for space_name in ("darts", "fbnet"):
        bench = large_space_surrogate(space_name)
        rng = np.random.default_rng(2)
        archs = [bench.space.sample(rng) for _ in range(batch_rows)]
        encoder = bench._encoder
        ensemble = bench._ensembles[bench.artifact.fidelity]
        x = encoder.encode_many(archs)
        encode = timed(lambda: encoder.encode_many(archs))
        one_by_one = archs[: max(1, batch_rows // 20)]
        old = timed(lambda: np.stack([np.asarray(bench.space.encode(a, encoder.kind), dtype=np.float32)
                                      for a in one_by_one]))
        forest = timed(lambda: ensemble.predict(x))
        runtime = timed(lambda: bench.artifact.runtime_model.predict(x, 100))
        whole = timed(lambda: bench.query_batch(archs, rng=np.random.default_rng(3)))

        def rate(seconds, rows=batch_rows):
            return f"{rows / seconds[0]:>10,.0f} / {rows / seconds[1]:>10,.0f}"
        print(f"  {space_name:6s} query_batch {rate(whole)}   encoding {rate(encode)} (one at a time, as before: "
              f"{rate(old, len(one_by_one))})   accuracy ensemble {rate(forest)}   runtime model {rate(runtime)}",
              flush=True)


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
    parser.add_argument("--large-spaces", action="store_true", help="model path of DARTS and FBNet surrogates only")
    options = parser.parse_args()
    if options.large_spaces:
        large_spaces(options.rows)
        return
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
