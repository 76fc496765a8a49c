"""Full-size official-layout NB101 file: conversion throughput, store load time and memory.

Run: .venv/bin/python bench/bench_nb101_import.py [WORKDIR] [--load-only]
Writes a synthetic nasbench_full.tfrecord (every unique cell x 4 budgets x 3 trials, the
official record layout, made-up numbers; ~5.1 million records), converts it, then loads the
store in a fresh process. Baseline of the same run: loading the file the way the original API
does, into a dict of Python objects (hash -> fixed stats and per-budget lists of trial dicts).
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from nasarena.benchmarks.nb101_store import convert
from nasarena.io.nb101_records import EvaluationData, ModelMetrics, NB101Record, serialize_record
from nasarena.io.tfrecord import write_records
from nasarena.spaces.nb101 import unique_cells

BUDGETS = (4, 12, 36, 108)

LOAD_STORE = """
import resource, time, sys
start = time.perf_counter()
from nasarena.benchmarks.nb101_store import load_store
from nasarena.spaces.nb101 import Cell
bench = load_store(sys.argv[1])
cell = Cell([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]],
            ["input", "conv3x3-bn-relu", "maxpool3x3", "output"])
bench.query(cell, fidelity=108)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""

LOAD_DICT = """
import resource, time, sys
start = time.perf_counter()
from nasarena.io.nb101_records import iter_nb101_records
fixed, computed = {}, {}
for _, r in iter_nb101_records(sys.argv[1]):
    if r.module_hash not in fixed:
        fixed[r.module_hash] = {"module_adjacency": r.matrix, "module_operations": r.ops,
                                "trainable_parameters": r.metrics.trainable_parameters}
        computed[r.module_hash] = {}
    end, half = r.metrics.evaluation_data[2], r.metrics.evaluation_data[1]
    computed[r.module_hash].setdefault(r.epochs, []).append({
        "final_training_time": end.training_time, "final_train_accuracy": end.train_accuracy,
        "final_validation_accuracy": end.validation_accuracy, "final_test_accuracy": end.test_accuracy,
        "halfway_training_time": half.training_time, "halfway_train_accuracy": half.train_accuracy,
        "halfway_validation_accuracy": half.validation_accuracy, "halfway_test_accuracy": half.test_accuracy})
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def synthetic_records():
    table = unique_cells()
    rng = np.random.default_rng(0)
    for row in range(len(table)):
        cell = table.cell(row)
        accuracies = rng.uniform(0.1, 0.95, size=(len(BUDGETS), 3, 2, 3))
        times = rng.uniform(100, 5000, size=(len(BUDGETS), 3))
        for b, budget in enumerate(BUDGETS):
            for trial in range(3):
                evaluations = [EvaluationData(0.0, 0.0, 0.1, 0.1, 0.1)]
                for stage, epoch in ((1, budget / 2), (0, budget)):
                    train, valid, test = accuracies[b, trial, stage].tolist()
                    evaluations.append(EvaluationData(epoch, times[b, trial] / (2 - stage), train, valid, test))
                metrics = ModelMetrics(tuple(evaluations), 1_000_000 + row, float(times[b, trial]))
                yield serialize_record(NB101Record(table.hashes.item(row), budget, cell.matrix, cell.ops, metrics))


def in_fresh_process(snippet: str, path: Path) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", snippet, str(path)], capture_output=True, text=True, check=True)
    seconds, megabytes = out.stdout.split()
    return float(seconds), float(megabytes)


def main(workdir: Path) -> None:
    source = workdir / "nasbench_full.tfrecord"
    if (workdir / "store").exists() and "--load-only" in sys.argv:
        report_loading(workdir, source)
        return
    start = time.perf_counter()
    count = write_records(source, synthetic_records())
    print(f"wrote {count:,} records ({source.stat().st_size / 1e9:.2f} GB) in {time.perf_counter() - start:.0f} s")

    summary = convert(source, workdir / "store")
    print(f"conversion: {summary.seconds:.0f} s, {summary.records / summary.seconds:,.0f} records/s")
    report_loading(workdir, source)


def report_loading(workdir: Path, source: Path) -> None:
    store_seconds, store_mb = in_fresh_process(LOAD_STORE, workdir / "store")
    dict_seconds, dict_mb = in_fresh_process(LOAD_DICT, source)
    print(f"load, baseline dict of Python objects : {dict_seconds:7.2f} s, peak RSS {dict_mb:7.0f} MB")
    print(f"load, nasarena store (+ first query)  : {store_seconds:7.2f} s, peak RSS {store_mb:7.0f} MB "
          f"(x{dict_seconds / store_seconds:.0f} faster, x{dict_mb / store_mb:.1f} less memory)")


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(arguments[0]) if arguments else Path(tempfile.mkdtemp(prefix="nb101-import-")))
