"""Surrogate benchmarks: query semantics, artefacts, fitting from data files, built-in surrogates."""

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import nasarena
from nasarena.benchmarks.protocol import InvalidArchitectureError
from nasarena.benchmarks.surrogate import SurrogateBenchmark, load_builtin, load_surrogate
from nasarena.spaces.nb101 import Cell, unique_cells
from nasarena.spaces.nb101.encodings import adjacency_one_hot
from nasarena.spaces.nb101.space import NB101Space
from nasarena.spaces.nb201 import NB201Space, trainable_parameters
from nasarena.studies.builtin_surrogates import training_data
from nasarena.surrogates.artifact import ArtifactError, load, save
from nasarena.surrogates.builtin import BUILTINS
from nasarena.surrogates.data import read_training_data, training_data_from_frame
from nasarena.surrogates.fitting import fit_surrogate, split_by_architecture
from nasarena.surrogates.learning_curves import learning_curve, leave_one_source_out
from nasarena.surrogates.metrics import fit_metrics
from nasarena.surrogates.models import Ensemble
from nasarena.surrogates.prediction import FastEnsemble
from nasarena.surrogates.settings import FitSettings
from nasarena.surrogates.spaces import finite_index, nb101_adjacency_one_hot

pytest.importorskip("xgboost")
pytest.importorskip("lightgbm")

SMALL_XGB = FitSettings("xgb", members=3, seed=0, model_settings=(("n_estimators", 40), ("learning_rate", 0.2),
                                                                   ("min_child_weight", 2),
                                                                   ("max_depth", 4)))


def nb201_frame(table, n: int, seed: int = 0, fidelities=(200,)) -> pd.DataFrame:
    """n real NB201 CIFAR-10 cells of ``table`` (percent accuracies, modelled costs) from two 'optimizers'."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(15_625, n, replace=False)
    cells = NB201Space().enumerate()
    frames = []
    for epochs in fidelities:
        frames.append(pd.DataFrame({
            "arch": [cells[r].to_string() for r in rows],
            "valid_accuracy": 100 * table.mean_over_trials("valid_accuracy", epochs)[rows],
            "cost_seconds": table.mean_over_trials("cost_seconds", epochs)[rows],
            "source": np.where(np.arange(n) % 3 == 0, "re", "rs"),
            "fidelity": epochs,
        }))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def fitted(tmp_path_factory, nb201):
    """A small multi-fidelity NB201 surrogate fitted from a CSV file, saved and loaded back."""
    directory = tmp_path_factory.mktemp("surrogate")
    path = directory / "runs.csv"
    nb201_frame(nb201, 1500, fidelities=(12, 200)).to_csv(path, index=False)
    data = read_training_data(path, NB201Space())
    artifact = fit_surrogate(data, "nb201", "nb201-xgb-v0.1", SMALL_XGB, dataset="cifar10")
    file = save(artifact, directory / "nb201-xgb-v0.1.nsa")
    return file, data


@pytest.fixture()
def bench(fitted):
    return load_surrogate(fitted[0], seed=0)


# --- query semantics ------------------------------------------------------------------------

def test_noise_free_query_is_the_ensemble_mean(bench):
    cell = NB201Space().sample(np.random.default_rng(3))
    x = NB201Space().encode(cell, "one_hot")[None, :].astype(np.float32)
    mean, std = bench.artifact.accuracy_model.predict(x)
    result = bench.query(cell, noise=False)
    assert result.valid_accuracy == mean[0]
    assert bench.final_test_accuracy(cell) == mean[0]
    assert std[0] > 0
    lower_mean, _ = bench.artifact.ensemble(12).predict(x)
    assert bench.query(cell, fidelity=12, noise=False).valid_accuracy == lower_mean[0] != mean[0]


def test_noisy_queries_sample_the_ensembles_normal(bench):
    cell = NB201Space().sample(np.random.default_rng(4))
    mean, std = bench.predict([cell])
    rng = np.random.default_rng(0)
    values = np.array([bench.query(cell, rng=rng).valid_accuracy for _ in range(4000)])
    assert values.std() == pytest.approx(std[0], rel=0.05)
    assert values.mean() == pytest.approx(mean[0], abs=4 * std[0] / np.sqrt(len(values)))
    first = bench.query(cell, rng=np.random.default_rng(11)).valid_accuracy
    assert bench.query(cell, rng=np.random.default_rng(11)).valid_accuracy == first
    assert bench.query(cell, rng=np.random.default_rng(12)).valid_accuracy != first


def test_queries_without_rng_use_the_benchmarks_own_seeded_stream(fitted):
    cell = NB201Space().sample(np.random.default_rng(5))
    a, b, c = (load_surrogate(fitted[0], seed=s) for s in (1, 1, 2))
    assert [a.query(cell).valid_accuracy for _ in range(3)] == [b.query(cell).valid_accuracy for _ in range(3)]
    assert a.query(cell).valid_accuracy != c.query(cell).valid_accuracy


def test_result_fields_say_what_is_modelled(bench):
    cell = NB201Space().sample(np.random.default_rng(6))
    result = bench.query(cell, fidelity=200)
    assert result.modelled == {"valid_accuracy", "cost_seconds"}
    assert np.isnan(result.test_accuracy) and np.isnan(result.train_accuracy)
    assert result.trainable_parameters == trainable_parameters(cell, "cifar10")
    assert result.fidelity == 200
    # one runtime model for all fidelities: training time proportional to epochs
    assert bench.query(cell, fidelity=12).cost_seconds == pytest.approx(result.cost_seconds * 12 / 200)
    with pytest.raises(ValueError, match=r"no fidelity of 50 epochs; available: \[12, 200\]"):
        bench.query(cell, fidelity=50)


def test_batch_queries_match_single_queries(bench):
    space = NB201Space()
    rng = np.random.default_rng(7)
    cells = [space.sample(rng) for _ in range(50)]
    batch = bench.query_batch(cells, noise=False)
    assert np.array_equal(batch.valid_accuracy, [bench.query(c, noise=False).valid_accuracy for c in cells])
    assert np.allclose(batch.cost_seconds, [bench.query(c).cost_seconds for c in cells])
    assert np.array_equal(batch.rows, [c.index for c in cells])
    by_rows = bench.query_batch(batch.rows, noise=False)
    encoded = bench.query_batch(np.stack([space.encode(c, "one_hot") for c in cells]), noise=False)
    assert np.array_equal(by_rows.valid_accuracy, batch.valid_accuracy)
    assert np.array_equal(encoded.valid_accuracy, batch.valid_accuracy)
    assert (encoded.rows == -1).all()
    noisy = [bench.query_batch(cells, rng=np.random.default_rng(1)).valid_accuracy for _ in range(2)]
    assert np.array_equal(*noisy) and not np.array_equal(noisy[0], batch.valid_accuracy)


def test_optimum_is_the_best_noise_free_prediction_over_the_space(bench):
    mean, _ = bench.predict(np.arange(15_625))
    assert bench.optimum() == bench.optimum("valid_accuracy") == pytest.approx(mean.max(), abs=1e-7)
    best = NB201Space().from_text(bench.artifact.optimum.identity)
    assert bench.final_test_accuracy(best) == pytest.approx(bench.optimum(), abs=1e-7)
    with pytest.raises(ValueError, match="optimum of test_accuracy or valid_accuracy"):
        bench.optimum("cost_seconds")


def test_describe_says_everything_is_modelled_and_where_it_comes_from(bench, fitted):
    description = bench.describe()
    text = description.to_text()
    assert description.fidelities == (12, 200) and description.num_architectures == 15_625
    assert "Normal(0, ensemble std)" in description.modelled and "noise-free" in description.modelled
    assert fitted[1].sha256 in text and "1,500" not in text  # rows: 3,000 runs (1,500 cells x 2 epochs)
    assert "3,000 rows" in text and "sources re, rs" in text
    assert "test split, 200 epochs, valid_accuracy" in text and "Kendall" in text


def test_invalid_nb101_cells_are_refused_like_tabular_ones():
    bench = load_builtin("nb101-xgb-v1.0")
    invalid = Cell([[0, 0], [0, 0]], ["input", "output"])
    with pytest.raises(InvalidArchitectureError, match="not connected"):
        bench.query(invalid)


# --- artefacts ------------------------------------------------------------------------------

def test_tampered_and_incompatible_artefacts_are_refused(fitted, tmp_path):
    content = fitted[0].read_bytes()
    tampered = bytearray(content)
    tampered[-100] ^= 1
    (tmp_path / "tampered.nsa").write_bytes(bytes(tampered))
    with pytest.raises(ArtifactError, match="modified or is corrupted"):
        load(tmp_path / "tampered.nsa")
    line, _, payload = content.partition(b"\n")
    header = json.loads(line)
    (tmp_path / "old.nsa").write_bytes(json.dumps({**header, "format_version": 1}).encode() + b"\n" + payload)
    with pytest.raises(ArtifactError, match="written in artefact format 1 .* reads format 2"):
        load_surrogate(tmp_path / "old.nsa")
    (tmp_path / "other.nsa").write_bytes(b"hello\nworld")
    with pytest.raises(ArtifactError, match="not a nasarena surrogate artefact"):
        nasarena.benchmark("surrogate", path=str(tmp_path / "other.nsa"))
    renamed = json.dumps({**header, "name": "nb201-xgb-v9.9"}).encode() + b"\n" + payload
    (tmp_path / "renamed.nsa").write_bytes(renamed)
    with pytest.raises(ArtifactError, match="does not hold the surrogate artefact its header names"):
        load(tmp_path / "renamed.nsa")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load(tmp_path / "missing.nsa")


def test_incomplete_artefact_cannot_be_a_benchmark(fitted):
    artifact = load(fitted[0])
    artifact.optimum = None
    with pytest.raises(ValueError, match="incomplete"):
        SurrogateBenchmark(artifact)


# --- data files -----------------------------------------------------------------------------

def test_data_files_detect_the_accuracy_scale_and_fill_defaults(nb201, tmp_path):
    frame = nb201_frame(nb201, 20)[["arch", "valid_accuracy"]]
    frame.to_parquet(tmp_path / "runs.parquet")
    percent = read_training_data(tmp_path / "runs.parquet", NB201Space())
    assert percent.value_scale == "percent" and percent.valid_accuracy.max() <= 1
    assert any("in percent" in note for note in percent.notes)
    assert percent.fidelities == (200,) and percent.sources == ("unknown",) and np.isnan(percent.cost_seconds).all()
    fraction = training_data_from_frame(frame.assign(valid_accuracy=frame.valid_accuracy / 100), NB201Space())
    assert fraction.value_scale == "fraction"
    assert np.allclose(fraction.valid_accuracy, percent.valid_accuracy)


@pytest.mark.parametrize("column, value, message", [
    ("arch", "|nor_conv_3x3~0|+|bogus~0|none~1|+|none~0|none~1|none~2|", "data row 3, column 'arch': .*unknown op"),
    ("arch", None, "data row 3, column 'arch': expected the architecture's text"),
    ("valid_accuracy", None, "data row 3, column 'valid_accuracy': value is missing"),
    ("valid_accuracy", "high", "data row 3, column 'valid_accuracy': 'high' is not a number"),
    ("valid_accuracy", 140.0, "data row 3, column 'valid_accuracy': 140.0 is not an accuracy"),
    ("cost_seconds", -5.0, "data row 3, column 'cost_seconds': -5.0 is negative"),
    ("fidelity", 1.5, "data row 3, column 'fidelity': 1.5 is not a positive whole number"),
])
def test_bad_rows_are_named(nb201, column, value, message):
    frame = nb201_frame(nb201, 5).astype({column: object})
    frame.loc[2, column] = value
    with pytest.raises(ValueError, match=message):
        training_data_from_frame(frame, NB201Space())


def test_missing_columns_and_cells_outside_the_space_are_named(tmp_path):
    with pytest.raises(ValueError, match="needs the column.* valid_accuracy; found: arch"):
        training_data_from_frame(pd.DataFrame({"arch": ["x"]}), NB201Space())
    disconnected = json.dumps({"matrix": [[0, 0, 0], [0, 0, 0], [0, 0, 0]], "ops": ["input", "conv3x3-bn-relu",
                                                                                     "output"]})
    with pytest.raises(ValueError, match="data row 1, column 'arch': the architecture is outside the nb101 space"):
        training_data_from_frame(pd.DataFrame({"arch": [disconnected], "valid_accuracy": [0.9]}), NB101Space())
    (tmp_path / "runs.txt").write_text("arch,valid_accuracy\n")
    with pytest.raises(ValueError, match=".csv or .parquet"):
        read_training_data(tmp_path / "runs.txt", NB201Space())


def test_nb101_cells_are_read_from_json_or_hash():
    space = NB101Space()
    cell = space.sample(np.random.default_rng(0))
    data = training_data_from_frame(pd.DataFrame({"arch": [space.to_text(cell), cell.hash],
                                                  "valid_accuracy": [0.9, 0.91]}), space)
    assert list(data.identities) == [cell.hash, cell.hash]
    assert space.from_text(space.to_text(cell)).original_matrix == cell.original_matrix
    with pytest.raises(ValueError, match="not the hash of a cell"):
        space.from_text("0" * 32)
    with pytest.raises(ValueError, match="needs the keys 'matrix' and 'ops'"):
        space.from_text('{"matrix": []}')


# --- fitting ----------------------------------------------------------------------------------

def test_split_keeps_architectures_together_and_sources_stratified(fitted):
    data = fitted[1]
    split = split_by_architecture(data, np.random.default_rng(0))
    parts = [set(data.identities[p]) for p in (split.train, split.validation, split.test)]
    assert not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
    assert sum(map(len, (split.train, split.validation, split.test))) == len(data)
    share = np.mean(data.source[split.test] == "re")
    assert share == pytest.approx(np.mean(data.source == "re"), abs=0.01)


def test_recorded_metrics_are_the_test_split_metrics(fitted, bench):
    data = fitted[1]
    split = bench.artifact.data.split
    test = split.test[data.fidelity[split.test] == 200]
    mean, _ = bench.predict(data.archs[i] for i in test)
    recorded = next(v for v in bench.validations() if v.fidelity == 200 and v.target == "valid_accuracy")
    assert recorded.metrics == fit_metrics(data.valid_accuracy[test], mean)
    assert recorded.metrics.n == len(test) and recorded.metrics.kendall_tau > 0.4


def test_repeated_runs_give_a_kl_divergence(nb201):
    frame = nb201_frame(nb201, 300)
    noisy = frame.assign(valid_accuracy=frame.valid_accuracy + np.random.default_rng(1).normal(0, 0.3, len(frame)))
    data = training_data_from_frame(pd.concat([frame, noisy], ignore_index=True), NB201Space())
    artifact = fit_surrogate(data, "nb201", "nb201-xgb-v0.2", SMALL_XGB)
    validation = next(v for v in artifact.validations if v.target == "valid_accuracy")
    assert validation.repeated_architectures == len(set(data.identities[artifact.data.split.test]))
    assert np.isfinite(validation.kl_divergence) and validation.kl_divergence > 0


def test_learning_curve_and_leave_one_source_out(nb201):
    data = training_data_from_frame(nb201_frame(nb201, 400), NB201Space())
    single = dataclasses.replace(SMALL_XGB, members=1)
    points = learning_curve(data, "nb201", [60, 150, 10_000], single)
    assert [p.training_architectures for p in points] == [60, 150, 320]  # clipped to the training split
    assert [p.metrics.n for p in points] == [40] * 3  # always the same test architectures
    assert points[-1].metrics.mae < points[0].metrics.mae
    held_out = leave_one_source_out(data, "nb201", single)
    assert [h.source for h in held_out] == ["re", "rs"]
    for h in held_out:
        others = np.sum(data.source != h.source)
        assert h.metrics.n == np.sum(data.source == h.source)
        assert h.training_architectures == round(0.9 * others)
        assert h.metrics.kendall_tau > 0.3
    with pytest.raises(ValueError, match="at least two sources"):
        leave_one_source_out(data.subset(np.flatnonzero(data.source == "rs"), "rs only"), "nb201", single)


def test_without_training_times_cost_is_one_second_per_epoch(nb201):
    frame = nb201_frame(nb201, 200).drop(columns="cost_seconds")
    data = training_data_from_frame(frame, NB201Space())
    bench = SurrogateBenchmark(fit_surrogate(data, "nb201", "nb201-xgb-v0.3", SMALL_XGB))
    cell = NB201Space().sample(np.random.default_rng(0))
    assert bench.query(cell).cost_seconds == 200.0
    assert "one simulated second per epoch" in bench.describe().modelled


def test_fast_predictions_are_bit_identical_to_the_ensembles(fitted):
    artifact = load(fitted[0])
    x = finite_index("nb201").encode_rows(np.arange(0, 15_625, 31), "one_hot")
    for fidelity in artifact.fidelities:
        ensemble = artifact.ensemble(fidelity)
        fast = FastEnsemble(ensemble)
        assert fast.trees is not None  # all members are XGBoost: single rows walk the flattened trees
        mean, std = ensemble.predict(x)
        single = np.array([np.concatenate(fast.predict(x[i:i + 1])) for i in range(len(x))])
        assert np.array_equal(single[:, 0], mean) and np.array_equal(single[:, 1], std)
        assert np.array_equal(fast.predict(x)[0], mean)
    lightgbm = Ensemble("lgb", members=2, seed=0, n_estimators=20, early_stopping_rounds=5).fit(x, x[:, 0] + x[:, 7])
    fast = FastEnsemble(lightgbm)
    assert fast.trees is None
    assert np.array_equal(fast.predict(x[:1])[0], lightgbm.predict(x[:1])[0])
    assert np.array_equal(fast.predict(x)[1], lightgbm.predict(x)[1])


def test_vectorised_nb101_encoding_equals_the_per_cell_encoding():
    rows = np.random.default_rng(0).integers(0, 423_624, 300)
    table = unique_cells()
    assert np.array_equal(nb101_adjacency_one_hot(rows), np.stack([adjacency_one_hot(table.cell(r)) for r in rows]))
    nb201 = finite_index("nb201")
    assert np.array_equal(nb201.encode_rows([0, 77], "one_hot")[1], NB201Space().encode(nb201.architecture(77)))


# --- the runner on a surrogate built from a user's file ---------------------------------------

def test_csv_to_artefact_to_runner_with_random_search_and_evolution(fitted):
    from nasarena.benchmarks.registry import Entry, register
    from nasarena.runner import Budget
    from nasarena.runner.experiment import RunSpec, execute, summarize

    file, _ = fitted
    bench = nasarena.benchmark("surrogate", path=str(file))
    register(Entry("test-surrogate-file", "the fixture's surrogate", lambda **o: load_surrogate(file, **o)))
    frames = [execute(RunSpec("test-surrogate-file", optimizer, seed, Budget(evaluations=60)))
              for optimizer in ("rs", "re") for seed in (0, 1)]
    again = execute(RunSpec("test-surrogate-file", "re", 1, Budget(evaluations=60)))
    measured = ["optimizer_cpu_time"]  # the only column that varies between identical runs
    assert again.drop(columns=measured).equals(frames[-1].drop(columns=measured))
    results = pd.concat(frames, ignore_index=True)
    assert (results.groupby(["optimizer", "seed"]).size() == 60).all()
    assert (results.incumbent_test_regret >= -1e-7).all()
    assert results.incumbent_test_regret.max() <= bench.optimum()
    for _, run in results.groupby(["optimizer", "seed"]):
        assert run.sim_time.is_monotonic_increasing and run.incumbent_valid_accuracy.is_monotonic_increasing
    assert {s.optimizer for s in summarize(results)} == {"rs", "re"}


# --- built-in surrogates --------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_surrogates_reproduce_their_recorded_test_metrics(name):
    recipe = BUILTINS[name]
    bench = nasarena.benchmark(name)
    data, _ = training_data(name)
    assert data.sha256 == bench.artifact.data.sha256
    test = bench.artifact.data.split.test
    for fidelity in bench.fidelities:
        rows = test[data.fidelity[test] == fidelity]
        mean, _ = bench.predict(data.archs.take(rows), fidelity)
        recorded = next(v for v in bench.validations()
                        if v.data == "test split" and v.fidelity == fidelity and v.target == "valid_accuracy")
        reproduced = fit_metrics(data.valid_accuracy[rows], mean)
        for field, value in reproduced.to_dict().items():
            assert value == pytest.approx(getattr(recorded.metrics, field), abs=1e-6), field
    assert bench.describe().num_architectures == {"nb101": 423_624, "nb201": 15_625}[recipe.space]


def test_builtin_nb101_surrogate_reproduces_its_metrics_on_the_rest_of_the_table():
    bench = nasarena.benchmark("nb101-xgb-v1.0")
    _, (held_out,) = training_data("nb101-xgb-v1.0")
    assert len(held_out.data) == 423_624 - 50_000
    mean, _ = bench.predict(held_out.data.archs.rows)
    recorded = next(v for v in bench.validations() if v.data == held_out.name and v.target == "valid_accuracy")
    reproduced = fit_metrics(held_out.data.valid_accuracy, mean)
    assert reproduced.n == recorded.metrics.n == 373_624
    for field, value in reproduced.to_dict().items():
        assert value == pytest.approx(getattr(recorded.metrics, field), abs=1e-6), field
