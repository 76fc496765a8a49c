"""Surrogate benchmarks of the large spaces (DARTS, FBNet) end to end, and the LightGBM fast path.

There is no real DARTS or FBNet training data on this machine, so the end-to-end tests write
a small data file themselves: 300 architectures sampled with a seeded generator, each given an
accuracy by a fixed, deterministic function of its one-hot encoding (below). These tests
exercise the *plumbing* (data file -> ``nasarena surrogate fit`` -> artefact -> benchmark ->
every single-fidelity optimizer through the runner), not the quality of the surrogate model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import nasarena
from nasarena.cli.main import app
from nasarena.optimizers.base import make
from nasarena.runner.protocol import MODELLED_COLUMNS, TRAJECTORY_COLUMNS, Budget, run
from nasarena.spaces.darts.space import DartsSpace
from nasarena.spaces.fbnet.space import FBNetSpace
from nasarena.surrogates import chunks

pytest.importorskip("xgboost")
pytest.importorskip("lightgbm")

ARCHITECTURES = 300
EPOCHS = 100
#: Every registered optimizer that runs on a single-fidelity benchmark.
SINGLE_FIDELITY = ("rs", "re", "nre", "ls", "reinforce", "tpe", "smac", "irace", "de", "bananas")
#: Hyperband and BOHB need several fidelities; a surrogate fitted on one epoch count has one.
MULTI_FIDELITY = ("hb", "bohb")
EVALUATIONS = 20
#: SMAC's random-forest acquisition costs ~0.3 s per ask on FBNet's 22 categorical parameters.
SMAC_EVALUATIONS = 8
#: A small, fast model: 2 members of 30 shallow trees (regularisation off: accuracies span 0.1).
MODEL_OPTIONS = ("--members", "2", "--set", "n_estimators=30", "--set", "max_depth=4", "--set", "learning_rate=0.3",
                 "--set", "min_child_weight=1", "--set", "reg_alpha=0", "--set", "reg_lambda=1")


def synthetic_accuracy(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(accuracy, seconds) of one-hot rows: a fixed random linear score (weights from seed 1)
    squashed into [0.85, 0.95], and 1000 s plus up to 500 s from the same weights' magnitudes."""
    weights = np.random.default_rng(1).normal(size=x.shape[1])
    score = x @ weights / np.sqrt(x.shape[1])
    return 0.85 + 0.1 / (1.0 + np.exp(-score)), 1000.0 + 500.0 * (x @ np.abs(weights)) / x.shape[1]


@pytest.fixture(scope="module", params=[DartsSpace, FBNetSpace], ids=["darts", "fbnet"])
def fitted(request, tmp_path_factory):
    """(space, artefact path): the synthetic data file of the space, fitted through the CLI."""
    space = request.param()
    folder = tmp_path_factory.mktemp(space.name)
    rng = np.random.default_rng(0)
    archs = [space.sample(rng) for _ in range(ARCHITECTURES)]
    accuracy, seconds = synthetic_accuracy(np.stack([space.encode(a, "one_hot") for a in archs]))
    data = folder / "runs.csv"
    pd.DataFrame({"arch": [space.to_text(a) for a in archs], "valid_accuracy": accuracy,
                  "cost_seconds": seconds}).to_csv(data, index=False)
    artefact = folder / "surrogate.nsa"
    result = CliRunner().invoke(app, ["surrogate", "fit", str(data), "--space", space.name, "--name",
                                      f"{space.name}-xgb-v0.1", "--out", str(artefact), "--fidelity", str(EPOCHS),
                                      *MODEL_OPTIONS])
    assert result.exit_code == 0, result.output
    assert f"{ARCHITECTURES} runs, fidelities [{EPOCHS}]" in result.output
    return space, artefact


def test_fitted_surrogate_answers_queries_of_its_space(fitted):
    space, artefact = fitted
    bench = nasarena.benchmark("surrogate", path=str(artefact))
    assert bench.fidelities == (EPOCHS,) and bench.space.name == space.name
    rng = np.random.default_rng(5)
    archs = [space.sample(rng) for _ in range(50)]
    mean, std = bench.predict(archs)
    assert np.all((mean > 0.8) & (mean < 1.0)) and np.all(std >= 0)
    assert np.unique(mean.round(6)).size > 10  # the model learnt something: not one constant
    result = bench.query(archs[0], rng=np.random.default_rng(0))
    assert result.cost_seconds > 0 and np.isnan(result.test_accuracy)
    assert bench.final_test_accuracy(archs[0]) == pytest.approx(mean[0], abs=1e-12)
    text = space.to_text(archs[0])
    assert bench.final_test_accuracy(space.from_text(text)) == bench.final_test_accuracy(archs[0])


def test_model_path_batches_are_the_same_in_chunks_on_threads(fitted, monkeypatch):
    space, artefact = fitted
    bench = nasarena.benchmark("surrogate", path=str(artefact))
    rng = np.random.default_rng(7)
    archs = [space.sample(rng) for _ in range(700)]
    whole = bench.query_batch(archs, rng=np.random.default_rng(1))  # one chunk, this thread
    monkeypatch.setattr(chunks, "CHUNK_ROWS", 64)
    monkeypatch.setattr(chunks, "available_cores", lambda: 4)
    threaded = bench.query_batch(archs, rng=np.random.default_rng(1))  # 11 chunks on 4 threads
    assert np.array_equal(whole.valid_accuracy, threaded.valid_accuracy)
    assert np.array_equal(whole.cost_seconds, threaded.cost_seconds)
    assert np.array_equal(whole.rows, threaded.rows)
    mean, _ = bench.predict(np.stack([space.encode(a, bench.artifact.encoding) for a in archs[:100]]))
    assert np.array_equal(bench.predict(archs)[0][:100], mean)


@pytest.mark.parametrize("name", SINGLE_FIDELITY)
def test_every_single_fidelity_optimizer_runs_deterministically(fitted, name):
    space, artefact = fitted
    bench = nasarena.benchmark("surrogate", path=str(artefact))

    evaluations = SMAC_EVALUATIONS if name == "smac" else EVALUATIONS

    def trajectory(seed: int) -> pd.DataFrame:
        return run(bench, make(name, bench.space, seed=seed), Budget(evaluations=evaluations), seed=seed)

    first, again = trajectory(3), trajectory(3)
    assert list(first.columns) == [*TRAJECTORY_COLUMNS, *MODELLED_COLUMNS] and len(first) == evaluations
    pd.testing.assert_frame_equal(first.drop(columns="optimizer_cpu_time"),
                                  again.drop(columns="optimizer_cpu_time"))
    assert first.valid_accuracy.between(0, 1).all() and np.isfinite(first.sim_time).all()
    assert (np.diff(first.sim_time) > 0).all() and (first.fidelity == EPOCHS).all()
    assert (np.diff(first.incumbent_valid_accuracy) >= 0).all()
    # regret is against the best training architecture: an unseen one may be predicted higher
    assert np.isfinite(first.incumbent_test_regret).all() and first.incumbent_test_regret.max() < 0.15
    assert first.incumbent_id.isin(first.arch_id).all()
    other = trajectory(4)
    assert not other.arch_id.equals(first.arch_id)  # the seed matters


@pytest.mark.parametrize("name", MULTI_FIDELITY)
def test_multi_fidelity_optimizers_refuse_a_single_fidelity_surrogate_clearly(fitted, name):
    _, artefact = fitted
    bench = nasarena.benchmark("surrogate", path=str(artefact))
    with pytest.raises(ValueError, match=f"{name} needs a benchmark with several fidelities"):
        run(bench, make(name, bench.space, seed=0), Budget(evaluations=5), seed=0)


# --- LightGBM through the converted forest ---------------------------------------------------

def _lightgbm(x, y, categorical=(), **settings):
    import lightgbm

    model = lightgbm.LGBMRegressor(n_estimators=25, num_leaves=15, learning_rate=0.3, random_state=0, n_jobs=1,
                                   verbose=-1, **settings)
    return model.fit(x, y, categorical_feature=list(categorical) or "auto")


def test_builtin_lightgbm_surrogate_is_predicted_bit_identically_by_the_forest():
    from nasarena.surrogates.prediction import FOREST_MIN_ROWS

    bench = nasarena.benchmark("nb101-lgb-v1.0")
    rows = np.random.default_rng(0).integers(0, 423_624, 3000)
    x = bench._index.encode_rows(rows, bench.artifact.encoding)
    fast = bench._ensembles[bench.artifact.fidelity]
    assert fast.forest is not None and len(x) >= FOREST_MIN_ROWS
    models = bench.artifact.accuracy_model.models
    expected = np.stack([m.model.booster_.predict(x, num_iteration=m.model.best_iteration_) for m in models])
    np.testing.assert_array_equal(fast.forest.predict(x), expected)
    mean, std = bench.predict(x)
    np.testing.assert_array_equal(mean, expected.mean(axis=0))
    np.testing.assert_array_equal(std, expected.std(axis=0))
    # the runtime model (one LightGBM booster) goes through its own forest: same seconds
    runtime = bench.artifact.runtime_model
    np.testing.assert_array_equal(runtime.predict(x, 108), 108 * np.exp(runtime.model.model.predict(x)))


def test_forest_follows_lightgbm_on_continuous_features_and_missing_values():
    from nasarena.surrogates.forest import LightGBMForest

    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 6)).astype(np.float32)
    y = np.sin(x[:, 0]) + x[:, 1] * x[:, 2] + rng.normal(0, 0.1, 2000)
    x_missing = x.copy()
    x_missing[rng.random(x.shape) < 0.1] = np.nan  # NaN seen in training: missing type NaN
    for train in (x, x_missing):
        model = _lightgbm(train, y)
        forest = LightGBMForest([model.booster_])
        query = rng.normal(size=(500, 6)).astype(np.float32)
        query[rng.random(query.shape) < 0.2] = np.nan  # never seen (missing type None): LightGBM uses 0
        query[:50] = train[:50]  # values exactly on training values, next to thresholds
        np.testing.assert_array_equal(forest.predict(query)[0], model.booster_.predict(query))
    with pytest.raises(ValueError, match="2-D float32"):
        forest.predict(query.astype(np.float64))
    with pytest.raises(ValueError, match="6 features"):
        forest.predict(query[:, :5])


def test_forest_refuses_what_it_cannot_convert():
    from nasarena.surrogates.forest import LightGBMForest

    rng = np.random.default_rng(1)
    x = np.column_stack([rng.integers(0, 5, 500), rng.normal(size=500)]).astype(np.float32)
    y = x[:, 0] % 2 + x[:, 1]
    with pytest.raises(ValueError, match="split '==' cannot be converted"):
        LightGBMForest([_lightgbm(x, y, categorical=[0], min_child_samples=5).booster_])
    with pytest.raises(ValueError, match="identity link"):
        LightGBMForest([_lightgbm(x, np.abs(y) + 1, objective="poisson").booster_])
