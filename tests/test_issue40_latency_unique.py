"""Issue 40, points 1 and 4: latencies are the source's float64 values, so a bound equal to a
published latency is inclusive; ``unique=True`` makes one class of equivalent NB201 cells one
architecture (identity, cache, evaluation count, true front), and is hashed only when set.

Point 1 is checked against the real CSV of ../shared/data/latency (skipped where absent), parsed
with Python's ``float`` (correctly rounded; pandas' default fast parser is not)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from typer.testing import CliRunner

import nasarena
from conftest import SHARED_DATA
from nasarena.analysis.pareto import non_dominated
from nasarena.benchmarks.latency import nb201_latencies
from nasarena.benchmarks.objectives import best_under, objective_matrix, parse_objectives
from nasarena.benchmarks.registry import BenchmarkSpec, result_options
from nasarena.cli.main import app
from nasarena.errors import InvalidSettingError
from nasarena.io.packaged import NB201_LATENCY_FILE, load_arrays
from nasarena.runner.experiment import RunSpec, load_results
from nasarena.runner.protocol import Budget, RunSettings
from nasarena.spaces.nb201 import cell_at
from nasarena.spaces.nb201.space import NB201Space

LATENCY_CSV = SHARED_DATA / "latency" / "nb201-latency-ms-27devices.csv"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"NASARENA_PROGRESS": "0"})


@pytest.fixture(scope="module")
def source() -> dict[str, np.ndarray]:
    """Device -> every cell's latency exactly as the CSV writes it, parsed as float64."""
    if not LATENCY_CSV.exists():
        pytest.skip(f"real data not found at {LATENCY_CSV}")
    with LATENCY_CSV.open() as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    assert [int(row[0]) for row in body] == list(range(len(body)))
    return {device: np.array([float(row[i]) for row in body]) for i, device in enumerate(header) if i >= 2}


@pytest.fixture(scope="module")
def bench():
    return nasarena.benchmark("nb201-cifar10")


@pytest.fixture(scope="module")
def unique():
    return nasarena.benchmark("nb201-cifar10", unique=True)


@pytest.fixture(scope="module")
def representatives() -> np.ndarray:
    return NB201Space().representatives()


def sweep_front(error: np.ndarray, latency: np.ndarray) -> np.ndarray:
    """Rows of the (error, latency) true front from the definition, each distinct point once: by
    latency, then error, keep each row that lowers the best error so far."""
    kept, best = [], np.inf
    for row in np.lexsort((error, latency)):
        if np.isfinite(error[row]) and error[row] < best:
            kept.append(row)
            best = error[row]
    return np.array(kept)


def front_rows(benchmark, objectives: str) -> np.ndarray:
    """The rows of the benchmark's true front, as the analysis computes it (moocore)."""
    matrix = objective_matrix(benchmark, parse_objectives(objectives))
    finite = np.flatnonzero(np.isfinite(matrix).all(axis=1))
    return finite[non_dominated(matrix[finite])]


# --- point 1: the source's float64 values, inclusive bounds -----------------------------------------------------


def test_stored_latencies_are_the_csvs_float64_values(bench, source):
    devices, values = nb201_latencies()
    assert values.dtype == np.float64 and load_arrays(NB201_LATENCY_FILE)["latency_ms"].dtype == np.float64
    assert list(devices) == list(source)
    for i, device in enumerate(devices):
        assert np.array_equal(values[:, i], source[device]), device
        assert np.array_equal(bench.latency_column(device), source[device]), device
    row = 3731
    assert bench.latency(row, "fpga") == source["fpga"][row] == 5.93616


@pytest.mark.parametrize("device", ["pixel3", "fpga"])
def test_a_bound_at_every_published_front_latency_admits_that_cell(bench, source, device):
    accuracy = bench.mean_over_trials(bench.regret_metric)
    front = sweep_front(1 - accuracy, source[device])
    assert len(front) == len(front_rows(bench, f"error,latency:{device}"))
    for row in front:
        best = best_under(bench, device, float(source[device][row]))
        assert best.accuracy >= accuracy[row] and best.latency_ms <= source[device][row], (device, row)


def test_the_issue_query_answers_the_cell_at_exactly_the_bound(bench):
    assert best_under(bench, "fpga", 5.93616).row == 3731
    answer = invoke("query", "nb201-cifar10", "--best-under", "5.93616", "--device", "fpga", "--json")
    assert answer.exit_code == 0, answer.output
    values = json.loads(answer.output)
    assert values["row"] == 3731 and values["latency_ms"] == values["max_latency_ms"] == 5.93616


def test_the_eyeriss_front_has_16_points(bench, source):
    rows = front_rows(bench, "error,latency:eyeriss")
    assert len(rows) == 16
    accuracy = bench.mean_over_trials(bench.regret_metric)
    assert sorted(rows.tolist()) == sorted(sweep_front(1 - accuracy, source["eyeriss"]).tolist())


# --- point 4: unique architectures ---------------------------------------------------------------------------------


def answer(result) -> tuple:
    """What a query answers, comparable (the missing train accuracy is NaN in both)."""
    return (result.valid_accuracy, result.test_accuracy, result.cost_seconds, result.trainable_parameters)


def test_a_unique_benchmark_answers_every_cell_as_its_representative(bench, unique, representatives):
    row = int(np.flatnonzero(representatives != np.arange(len(representatives)))[0])
    cell, representative = cell_at(row), cell_at(int(representatives[row]))
    assert bench.final_test_accuracy(cell) != bench.final_test_accuracy(representative)  # its own records differ
    assert unique.space.identity(cell) == unique.space.identity(representative) == representative.to_string()
    assert bench.space.identity(cell) != bench.space.identity(representative)
    assert answer(unique.query(cell)) == answer(bench.query(representative))
    assert unique.final_test_accuracy(cell) == bench.final_test_accuracy(representative)
    assert unique.latency(cell, "pixel3") == bench.latency(representative, "pixel3")
    assert unique.flops(cell) == bench.flops(representative)
    assert answer(unique.query(representative)) == answer(bench.query(representative))
    assert unique.space.identity(cell) not in {unique.space.identity(n) for n in unique.space.neighbours(cell)}
    assert "6,466 classes" in unique.describe().to_text()


def test_unique_fronts_are_per_class(bench, unique, representatives):
    full = front_rows(bench, "error,latency:pixel3")
    assert len(full) == 47 and len(set(representatives[full].tolist())) == 32
    rows = front_rows(unique, "error,latency:pixel3")
    assert (representatives[rows] == rows).all()  # representatives only, each class once
    assert len(rows) == 28
    # the front of the representatives' own records, computed without the option
    matrix = objective_matrix(bench, parse_objectives("error,latency:pixel3"))
    own = np.flatnonzero(representatives == np.arange(len(representatives)))
    assert sorted(rows.tolist()) == sorted(own[non_dominated(matrix[own])].tolist())
    matrix = objective_matrix(unique, parse_objectives("latency:pixel3,flops"))
    assert np.isnan(matrix[representatives != np.arange(len(representatives))]).all()
    best = best_under(unique, "fpga", 5.93616)
    assert representatives[best.row] == best.row and best.feasible <= len(own)


def test_a_unique_run_never_evaluates_two_cells_of_one_class_under_caching(tmp_path, representatives):
    class_of = {cell_at(i).to_string(): int(representatives[i]) for i in range(len(representatives))}
    runs = {}
    for label, options in (("all", []), ("unique", ["--benchmark-option", "unique=true"])):
        out = tmp_path / label
        result = invoke("run", "--benchmarks", "nb201-cifar10", "--optimizers", "rs", "--seeds", "0", "--budget",
                        "1e9", "--max-evaluations", "1500", "--caching", "--jobs", "1", *options, "--out", out)
        assert result.exit_code == 0, result.output
        runs[label] = load_results(out)
        assert len(runs[label]) == 1500
    classes = [class_of[text] for text in runs["all"]["arch_id"]]
    assert len(set(classes)) < len(classes)  # without the option, repeated classes are evaluations
    ids = runs["unique"]["arch_id"].tolist()
    assert len(set(ids)) == len(ids)
    assert all(class_of[text] == cell_at(class_of[text]).index for text in ids)  # each a representative
    settings = json.loads((tmp_path / "unique" / "settings.json").read_text())
    assert [entry.get("benchmark_options") for entry in settings.values()] == [{"unique": True}]


def test_unique_enters_the_settings_hash_only_when_set():
    budget, run = Budget(seconds=1e7), RunSettings(caching=True)

    def spec(*options):
        return RunSpec("nb201-cifar10", "rs", 0, budget, run_settings=run, benchmark_options=tuple(options))

    plain = spec()
    assert plain.settings_hash == "7fbce21813"  # the hash of such runs before the option existed
    assert spec(("unique", False)).settings_hash == spec(("unique", "false")).settings_hash == plain.settings_hash
    assert spec(("unique", True)).settings_hash == spec(("unique", "true")).settings_hash != plain.settings_hash
    assert result_options({"unique": "True"}, "nb201-cifar100") == {"unique": True}
    assert BenchmarkSpec.of("nb201-cifar10", unique=False).result_options == {}
    with pytest.raises(InvalidSettingError, match="unique="):
        nasarena.benchmark("nb201-cifar10", unique="maybe")


def test_a_unique_run_is_scored_against_the_unique_front(tmp_path):
    """A multi-objective run on ``unique=true`` carries ``unique_cells`` and is scored against the
    front of the unique cells: a run that found exactly that front has regret 0, which the
    all-cells front would not give it. Runs without the option have no such column."""
    import subprocess
    import sys

    import pandas as pd

    from nasarena.analysis.multiobjective import front_trajectories, true_front
    from nasarena.runner.experiment import load_results

    out = tmp_path / "unique"
    command = [sys.executable, "-m", "nasarena.cli.main", "run", "--benchmarks", "nb201-cifar10", "--optimizers", "mo-rs",
               "--objectives", "error,latency:pixel3", "--benchmark-option", "unique=true", "--seeds", "0",
               "--max-evaluations", "20", "--jobs", "1", "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True)
    run = load_results(out)
    assert run["unique_cells"].all()
    unique, full = (true_front("nb201-cifar10", "error,latency:pixel3", None, flag) for flag in (True, False))
    points = unique.points
    perfect = run.iloc[[0] * len(points)].reset_index(drop=True)
    perfect["evaluation"] = np.arange(len(points))
    perfect["feasible"] = True
    perfect["valid_objectives"] = pd.Series([list(p) for p in points], dtype=object)
    perfect["test_objectives"] = pd.Series([list(p) for p in points], dtype=object)
    scored = front_trajectories(perfect)
    assert scored["hv_regret"].iloc[-1] == pytest.approx(0, abs=1e-12)
    assert scored["hv_regret_roi"].iloc[-1] == pytest.approx(0, abs=1e-12)
    assert full.hypervolume_regret(points) > 0
    all_cells = front_trajectories(perfect.drop(columns="unique_cells"))
    assert all_cells["hv_regret"].iloc[-1] == pytest.approx(full.hypervolume_regret(points))
