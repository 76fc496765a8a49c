"""The built-in GIN surrogate ``nb101-gin-v1.0`` and prediction tables (queries as look-ups)."""

import json
import time

import numpy as np
import pytest

import nasarena
from nasarena.benchmarks.protocol import InvalidArchitectureError
from nasarena.benchmarks.surrogate import load_surrogate
from nasarena.io.packaged import data_dir
from nasarena.spaces.nb101 import Cell
from nasarena.spaces.nb101.space import NB101Space
from nasarena.spaces.nb201 import NB201Space
from nasarena.studies.builtin_surrogates import training_data
from nasarena.surrogates.artifact import FORMAT_MINOR, FORMAT_VERSION, read_header, save
from nasarena.surrogates.fitting import fit_surrogate
from nasarena.surrogates.metrics import fit_metrics
from nasarena.surrogates.settings import FitSettings
from nasarena.surrogates.spaces import IndexedArchitectures, finite_index

NAME = "nb101-gin-v1.0"
FILE = data_dir() / "surrogates" / f"{NAME}.nsa"


@pytest.fixture(scope="module")
def bench():
    return nasarena.benchmark(NAME)


@pytest.fixture(scope="module")
def recipe_data():
    return training_data(NAME)


def recorded(bench, data_name: str):
    return next(v for v in bench.validations() if v.data == data_name and v.target == "valid_accuracy")


def assert_same_metrics(reproduced, recorded_metrics, tolerance=1e-6):
    for field, value in reproduced.to_dict().items():
        assert value == pytest.approx(getattr(recorded_metrics, field), abs=tolerance), field


# --- the shipped artefact -------------------------------------------------------------------

def test_the_gin_artefact_ships_a_prediction_table_of_every_cell_in_a_small_file(bench):
    header = read_header(FILE)
    assert (header["format_version"], header["format_minor"]) == (FORMAT_VERSION, FORMAT_MINOR) == (2, 1)
    manifest = json.loads((FILE.parent / "manifest.json").read_text())[FILE.name]
    assert manifest["size"] == FILE.stat().st_size <= 3_500_000
    artifact = bench.artifact
    assert artifact.model == "gin" and artifact.encoding == "graph" and artifact.settings.tabulate
    assert len(artifact.accuracy_model.models) == 3
    table = artifact.prediction_table
    assert table.size == 423_624 and set(table.mean) == {108}
    assert table.mean[108].dtype == np.float32 and table.std[108].dtype == np.float16
    assert ((table.mean[108] > 0) & (table.mean[108] < 1)).all() and (table.std[108] >= 0).all()
    assert (table.seconds_per_epoch > 0).all()


def test_the_cli_lists_the_gin_surrogate():
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    result = CliRunner().invoke(app, ["benchmarks"])
    assert result.exit_code == 0 and NAME in result.output


def test_recorded_metrics_are_reproduced_from_the_table(bench, recipe_data):
    data, (held_out,) = recipe_data
    assert data.sha256 == bench.artifact.data.sha256 and len(data) == 25_000
    assert len(held_out.data) == 423_624 - 25_000
    mean, _ = bench.predict(held_out.data.archs.rows)
    reproduced = fit_metrics(held_out.data.valid_accuracy, mean)
    assert reproduced.n == 398_624
    assert_same_metrics(reproduced, recorded(bench, held_out.name).metrics)
    assert reproduced.kendall_tau > 0.5  # a real fit, not noise
    test = bench.artifact.data.split.test
    mean, _ = bench.predict(data.archs.take(test))
    assert_same_metrics(fit_metrics(data.valid_accuracy[test], mean), recorded(bench, "test split").metrics)


def test_the_table_holds_the_ensembles_predictions(bench):
    pytest.importorskip("torch")
    rows = np.random.default_rng(3).choice(423_624, 300, replace=False)
    x = finite_index("nb101").encode_rows(rows, "graph")
    model_mean, model_std = bench.predict(x)  # encodings go through the GIN members
    table_mean, table_std = bench.predict(rows)
    np.testing.assert_allclose(table_mean, model_mean, rtol=0, atol=1e-6)  # float32 rounding
    np.testing.assert_allclose(table_std, model_std, rtol=1e-3, atol=1e-6)  # float16 rounding
    assert bench.optimum() == pytest.approx(float(bench.artifact.prediction_table.mean[108].max()), abs=0)


# --- queries on the table path ----------------------------------------------------------------

def test_a_single_query_is_a_look_up_well_under_a_millisecond(bench):
    rng = np.random.default_rng(0)
    cells = [NB101Space().sample(rng) for _ in range(2_000)]
    bench.query(cells[0])  # the first query loads the parameter counts
    query_rng = np.random.default_rng(1)
    start = time.perf_counter()
    for cell in cells[1:]:
        bench.query(cell, rng=query_rng)
    per_query = (time.perf_counter() - start) / (len(cells) - 1)
    print(f"\n{NAME}: {per_query * 1e6:.1f} us per new-architecture query")
    assert per_query < 5e-3


def test_noise_is_drawn_from_the_tabulated_normal(bench):
    cell = NB101Space().sample(np.random.default_rng(5))
    table = bench.artifact.prediction_table
    mean, std = float(table.mean[108][cell.row]), float(table.std[108][cell.row])
    assert bench.query(cell, noise=False).valid_accuracy == mean == bench.final_test_accuracy(cell)
    draw = np.random.default_rng(7).standard_normal()
    assert bench.query(cell, rng=np.random.default_rng(7)).valid_accuracy == min(1.0, max(0.0, mean + std * draw))
    rng = np.random.default_rng(8)
    values = np.array([bench.query(cell, rng=rng).valid_accuracy for _ in range(4_000)])
    assert values.mean() == pytest.approx(mean, abs=4 * std / np.sqrt(len(values)) + 1e-9)
    assert values.std() == pytest.approx(std, rel=0.1)
    assert bench.query(cell).cost_seconds == pytest.approx(108 * float(table.seconds_per_epoch[cell.row]))
    assert bench.query(cell).trainable_parameters > 0


def test_batch_queries_of_rows_cells_and_indexed_cells_agree(bench):
    rows = np.random.default_rng(11).choice(423_624, 50, replace=False)
    cells = [finite_index("nb101").architecture(r) for r in rows]
    by_rows = bench.query_batch(rows, noise=False)
    by_cells = bench.query_batch(cells, noise=False)
    by_index = bench.query_batch(IndexedArchitectures(finite_index("nb101"), rows), noise=False)
    for batch in (by_cells, by_index):
        assert np.array_equal(batch.rows, rows) and np.array_equal(batch.valid_accuracy, by_rows.valid_accuracy)
        assert np.array_equal(batch.cost_seconds, by_rows.cost_seconds)
    assert by_rows.valid_accuracy.tolist() == [bench.query(c, noise=False).valid_accuracy for c in cells]
    noisy = bench.query_batch(rows, rng=np.random.default_rng(2))
    mean, std = bench.predict(rows)
    expected = np.clip(mean + std * np.random.default_rng(2).standard_normal(len(rows)), 0, 1)
    assert np.array_equal(noisy.valid_accuracy, expected)


def test_bad_queries_are_refused_clearly(bench):
    with pytest.raises(ValueError, match=r"rows must be in 0\.\.423623"):
        bench.query_batch(np.array([0, 423_624]))
    invalid = Cell([[0, 0], [0, 0]], ["input", "output"])
    with pytest.raises(InvalidArchitectureError, match="not connected"):
        bench.query(invalid)
    with pytest.raises(InvalidArchitectureError):
        bench.query_batch([invalid])
    with pytest.raises(ValueError, match="no fidelity of 12 epochs"):
        bench.query(NB101Space().sample(np.random.default_rng(0)), fidelity=12)


def test_the_runner_runs_random_search_on_the_table(bench):
    from nasarena.optimizers import make
    from nasarena.runner import Budget, run

    trajectory = run(bench, make("rs", bench.space, seed=0), Budget(evaluations=100), seed=0, benchmark_name=NAME)
    again = run(bench, make("rs", bench.space, seed=0), Budget(evaluations=100), seed=0, benchmark_name=NAME)
    assert len(trajectory) == 100
    assert trajectory.drop(columns=["optimizer_cpu_time"], errors="ignore").equals(
        again.drop(columns=["optimizer_cpu_time"], errors="ignore"))
    assert trajectory.sim_time.is_monotonic_increasing
    assert (trajectory.incumbent_test_regret >= -1e-7).all()
    assert trajectory.incumbent_test_regret.iloc[-1] < trajectory.incumbent_test_regret.iloc[0] + 1e-12


# --- tabulation in general ------------------------------------------------------------------

SMALL_XGB = (("n_estimators", 30), ("learning_rate", 0.3), ("max_depth", 4), ("min_child_weight", 2))


def test_any_model_can_be_tabulated_and_answers_as_its_models_do(tmp_path):
    pytest.importorskip("xgboost")
    from nasarena.studies.builtin_surrogates import nb201_cifar10_data

    data, _ = nb201_cifar10_data()
    plain = fit_surrogate(data, "nb201", "nb201-xgb-v0.1", FitSettings("xgb", 2, 0, model_settings=SMALL_XGB),
                          dataset="cifar10")
    tabulated = fit_surrogate(data, "nb201", "nb201-xgb-v0.2",
                              FitSettings("xgb", 2, 0, model_settings=SMALL_XGB, tabulate=True), dataset="cifar10")
    assert plain.prediction_table is None and tabulated.prediction_table.size == 15_625
    assert set(tabulated.prediction_table.mean) == {12, 200}
    for ours, theirs in zip(tabulated.validations, plain.validations):
        assert (ours.data, ours.fidelity, ours.target) == (theirs.data, theirs.fidelity, theirs.target)
        if ours.target == "valid_accuracy":  # float32 rounding can tie or untie close predictions
            assert_same_metrics(ours.metrics, theirs.metrics, tolerance=1e-5)  # (costs: float16, see below)
    assert tabulated.optimum.identity == plain.optimum.identity
    with_table = load_surrogate(save(tabulated, tmp_path / "t.nsa"))
    without = load_surrogate(save(plain, tmp_path / "p.nsa"))
    cells = [NB201Space().sample(np.random.default_rng(i)) for i in range(20)]
    for fidelity in (12, 200):
        a, b = with_table.query_batch(cells, fidelity, noise=False), without.query_batch(cells, fidelity, noise=False)
        np.testing.assert_allclose(a.valid_accuracy, b.valid_accuracy, atol=1e-6)
        np.testing.assert_allclose(a.cost_seconds, b.cost_seconds, rtol=1e-3)
    assert read_header(tmp_path / "p.nsa")["format_minor"] == FORMAT_MINOR
    # a format 2.0 file (no format_minor, no prediction_table attribute) loads and uses its models
    del plain.__dict__["prediction_table"]
    header, _, payload = save(plain, tmp_path / "old.nsa").read_bytes().partition(b"\n")
    old_header = {k: v for k, v in json.loads(header).items() if k != "format_minor"}
    (tmp_path / "old.nsa").write_bytes(json.dumps(old_header).encode() + b"\n" + payload)
    old = load_surrogate(tmp_path / "old.nsa")
    assert old.artifact.prediction_table is None
    assert np.array_equal(old.query_batch(cells, noise=False).valid_accuracy,
                          without.query_batch(cells, noise=False).valid_accuracy)


def test_tabulating_a_space_that_cannot_be_enumerated_is_refused():
    with pytest.raises(ValueError, match="tabulate=True needs a finite space"):
        fit_surrogate(None, "darts", "darts-xgb-v0.1", FitSettings(tabulate=True))
