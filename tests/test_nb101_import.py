"""Official-layout NB101 files: write, import into the columnar store, query with the original semantics."""

import random

import numpy as np
import pytest
from typer.testing import CliRunner

import nasarena
from nasarena.benchmarks.nb101_store import RecordImportError, convert, load_store
from nasarena.cli.main import app
from nasarena.io.nb101_records import EvaluationData, ModelMetrics, NB101Record, serialize_record
from nasarena.io.tfrecord import write_records
from nasarena.spaces.nb101 import unique_cells

BUDGETS = (4, 12, 36, 108)
ROWS = (0, 7, 20_000, 423_623)


def value(row, budget, trial, stage, metric):
    """A distinct, decodable number per (cell, budget, trial, stage, metric)."""
    return round(0.5 + 1e-6 * (ROWS.index(row) * 10_000 + budget * 10 + trial * 3 + stage) + metric * 0.01, 9)


def records(rows=ROWS, budgets=BUDGETS, corrupt_hash_of=None):
    table = unique_cells()
    for row in rows:
        cell = table.cell(row)
        for budget in budgets:
            for trial in range(3):
                evaluations = [EvaluationData(0, 0, 0.1, 0.1, 0.1)]
                for stage, epoch in ((1, budget / 2), (0, budget)):
                    evaluations.append(EvaluationData(epoch, value(row, budget, trial, stage, 3) * 1000,
                                                      value(row, budget, trial, stage, 0),
                                                      value(row, budget, trial, stage, 1),
                                                      value(row, budget, trial, stage, 2)))
                module_hash = "f" * 32 if row == corrupt_hash_of else table.hashes[row]
                metrics = ModelMetrics(tuple(evaluations), 1000 + row, 1.0)
                yield serialize_record(NB101Record(module_hash, budget, cell.matrix, cell.ops, metrics))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    directory = tmp_path_factory.mktemp("nb101")
    write_records(directory / "nasbench_full.tfrecord", records())
    summary = convert(directory / "nasbench_full.tfrecord", directory / "store")
    assert summary.records == len(ROWS) * 4 * 3 and summary.cells == len(ROWS)
    return directory / "store"


def test_queries_return_exactly_the_written_numbers(store):
    bench = load_store(store)
    table = unique_cells()
    for row in ROWS:
        cell = table.cell(row)
        for budget in BUDGETS:
            for trial in range(3):
                result = bench.query(cell, fidelity=budget, trial=trial)
                assert result.valid_accuracy == pytest.approx(value(row, budget, trial, 0, 1), abs=1e-7)
                assert result.test_accuracy == pytest.approx(value(row, budget, trial, 0, 2), abs=1e-7)
                assert result.train_accuracy == pytest.approx(value(row, budget, trial, 0, 0), abs=1e-7)
                half = bench.query(cell, fidelity=budget, trial=trial, stop_halfway=True)
                assert half.valid_accuracy == pytest.approx(value(row, budget, trial, 1, 1), abs=1e-7)
        assert bench.query(cell).trainable_parameters == 1000 + row


def test_get_metrics_from_hash_returns_all_trials(store):
    bench = load_store(store)
    fixed, computed = bench.get_metrics_from_hash(unique_cells().hashes[7])
    assert fixed.trainable_parameters == 1007 and fixed.module_operations[0] == "input"
    assert sorted(computed) == list(BUDGETS) and all(len(trials) == 3 for trials in computed.values())
    assert computed[36][2].final_test_accuracy == pytest.approx(value(7, 36, 2, 0, 2), abs=1e-7)
    assert computed[36][2].halfway_training_time == pytest.approx(value(7, 36, 2, 1, 3) * 1000, rel=1e-6)


def test_compatible_stream_and_budget_counters(store):
    bench = load_store(store, seed=5, compatible_random_stream=True)
    expected = random.Random(5)
    cell = unique_cells().cell(0)
    trials = [bench.query(cell, fidelity=12).trial for _ in range(20)]
    assert trials == [expected.randint(0, 2) for _ in range(20)]
    bench.reset_budget_counters()
    bench.query(cell, fidelity=36, trial=1)
    bench.query(cell, fidelity=108, trial=0, stop_halfway=True)
    spent, epochs = bench.get_budget_counters()
    assert epochs == 36 + 54
    assert spent == pytest.approx(1000 * (value(0, 36, 1, 0, 3) + value(0, 108, 0, 1, 3)), rel=1e-6)


def test_regret_uses_the_mean_over_trials_at_the_highest_budget(store):
    bench = load_store(store)
    means = [np.mean([value(r, 108, t, 0, 2) for t in range(3)]) for r in ROWS]
    assert bench.optimum() == pytest.approx(max(means), abs=1e-7)
    assert bench.final_test_accuracy(unique_cells().cell(7)) == pytest.approx(means[1], abs=1e-7)


def test_only108_files_hold_one_budget(tmp_path):
    write_records(tmp_path / "only108.tfrecord", records(budgets=(108,)))
    convert(tmp_path / "only108.tfrecord", tmp_path / "store")
    bench = load_store(tmp_path / "store", verify=True)
    assert bench.fidelities == (108,)
    with pytest.raises(ValueError, match="no fidelity of 12 epochs"):
        bench.query(unique_cells().cell(0), fidelity=12)


def test_hash_mismatch_and_unknown_budget_leave_nothing_behind(tmp_path):
    write_records(tmp_path / "bad.tfrecord", records(corrupt_hash_of=7))
    with pytest.raises(RecordImportError, match=r"record at offset \d+: hash mismatch"):
        convert(tmp_path / "bad.tfrecord", tmp_path / "store")
    write_records(tmp_path / "epochs.tfrecord", records(budgets=(4, 50)))
    with pytest.raises(RecordImportError, match="unknown budget of 50 epochs"):
        convert(tmp_path / "epochs.tfrecord", tmp_path / "store")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tfrecord", "epochs.tfrecord"]


def test_a_failed_reimport_keeps_the_previous_store(tmp_path, store):
    write_records(tmp_path / "bad.tfrecord", records(corrupt_hash_of=0))
    target = tmp_path / "store"
    write_records(tmp_path / "good.tfrecord", records(rows=(0,)))
    convert(tmp_path / "good.tfrecord", target)
    with pytest.raises(RecordImportError):
        convert(tmp_path / "bad.tfrecord", target)
    assert load_store(target, verify=True).query(unique_cells().cell(0), trial=0).valid_accuracy > 0


def test_cli_import_and_benchmark_by_name(tmp_path):
    write_records(tmp_path / "full.tfrecord", records(rows=(0, 7)))
    result = CliRunner().invoke(app, ["nb101", "import", str(tmp_path / "full.tfrecord"), "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert "imported 24 records of 2 cells" in result.output
    bench = nasarena.benchmark("nb101", path=str(tmp_path / "s"))
    assert bench.describe().trials == 3
    truncated = tmp_path / "cut.tfrecord"
    truncated.write_bytes((tmp_path / "full.tfrecord").read_bytes()[:-3])
    result = CliRunner().invoke(app, ["nb101", "import", str(truncated), "--out", str(tmp_path / "t")])
    assert result.exit_code == 2 and "truncated data" in result.output
