"""BANANAS's warm retraining (issue 18): after the first fit, a retraining goes on training the
ensemble's networks for at least ``warm_steps`` Adam steps (whole epochs), as scikit-learn's
``partial_fit`` does, instead of training new networks; ``warm_steps=None`` keeps the original's
new networks at every retraining."""

import warnings

import numpy as np
import pytest

from nasarena.optimizers import make
from nasarena.optimizers.bananas import HIDDEN_LAYERS
from nasarena.optimizers.mlp_ensemble import MLPEnsemble
from nasarena.runner import Budget, run

SEEDS = [11, 22, 33, 44, 55]


@pytest.fixture(scope="module")
def growing(nb201_paths):
    """Of 500 cells with standardised accuracies: a first training set that leaves out the
    training cells using the rarest path, the whole training set of 300 (so the path's input is
    new to the continued networks), and 200 held-out cells."""
    x, y = nb201_paths
    x, y = x[:500], (y[:500] - y[:500].mean()) / y[:500].std()
    train, held_out = slice(0, 300), slice(300, 500)
    rare = int(np.argmin(np.where(x[train].any(axis=0), x[train].sum(axis=0), np.inf)))
    first = ~x[train, rare].astype(bool)
    return x[train][first], y[train][first], x[train], y[train], x[held_out]


def test_partial_fit_is_scikit_learns_partial_fit(growing):
    # fit for 3 epochs, then two partial_fit calls on a larger set with a new input: the same
    # Adam state and shuffles as MLPRegressor's. In float64, as scikit-learn computes, they agree
    # to rounding (in float32 a relu that flips on one member moves it by 1e-3)
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor

    x_first, y_first, x, y, held_out = (array.astype(np.float64) for array in growing)
    ensemble = MLPEnsemble(SEEDS, HIDDEN_LAYERS, learning_rate_init=0.01, max_iter=3, batch_size=64, dtype=np.float64)
    ensemble.fit(x_first, y_first)
    used_before = ensemble.n_used_
    ensemble.partial_fit(x, y, epochs=2)
    assert ensemble.n_used_ > used_before
    assert ensemble.n_iter_.tolist() == [5] * len(SEEDS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        models = []
        for seed in SEEDS:
            model = MLPRegressor(hidden_layer_sizes=HIDDEN_LAYERS, learning_rate_init=0.01, batch_size=64, max_iter=3,
                                 random_state=np.random.RandomState(seed)).fit(x_first, y_first)
            model.partial_fit(x, y)
            models.append(model.partial_fit(x, y))
    reference = np.stack([model.predict(held_out) for model in models])
    np.testing.assert_allclose(ensemble.predict(held_out), reference, rtol=0, atol=1e-11)
    np.testing.assert_allclose(ensemble.loss_, [model.loss_ for model in models], rtol=1e-12)


def test_each_member_continues_its_own_adam_state(growing):
    # members stop their first fit at different epochs, so their Adam step counts differ; the
    # stacked ensemble continues each exactly as an ensemble of that member alone does
    x_first, y_first, x, y, held_out = growing
    ensemble = MLPEnsemble(SEEDS, HIDDEN_LAYERS, learning_rate_init=0.01, tol=0.01).fit(x_first, y_first)
    stopped = ensemble.n_iter_.copy()
    assert len(set(stopped.tolist())) > 1
    ensemble.partial_fit(x, y, epochs=3)
    assert (ensemble.n_iter_ == stopped + 3).all()
    predictions = ensemble.predict(held_out)
    for member, seed in enumerate(SEEDS):
        alone = MLPEnsemble([seed], HIDDEN_LAYERS, learning_rate_init=0.01, tol=0.01).fit(x_first, y_first)
        np.testing.assert_allclose(alone.partial_fit(x, y, epochs=3).predict(held_out)[0], predictions[member],
                                   atol=1e-5)


def test_partial_fit_refuses_what_it_cannot_continue(growing):
    x_first, y_first, x, y, _ = growing
    with pytest.raises(ValueError, match="call fit first"):
        MLPEnsemble(SEEDS, HIDDEN_LAYERS).partial_fit(x, y)
    ensemble = MLPEnsemble(SEEDS, HIDDEN_LAYERS, max_iter=2).fit(x_first, y_first)
    with pytest.raises(ValueError, match="got 5 features; the ensemble was fitted on"):
        ensemble.partial_fit(x[:, :5], y)
    with pytest.raises(ValueError, match=r"got x of shape \(300, \d+\) and 299 targets"):
        ensemble.partial_fit(x, y[:-1])


@pytest.mark.parametrize("predictor", ["numpy", "sklearn"])
def test_bananas_continues_its_ensemble_between_retrainings(nb201, predictor):
    optimizer = make("bananas", nb201.space, seed=2, predictor=predictor, epochs=30, warm_steps=3, batch_size=10)
    run(nb201, optimizer, Budget(evaluations=41), seed=2)
    # new networks at 10 results (one batch per epoch), continued at 20, 30 and 40 results for
    # 2, 1 and 1 epochs (2, 3 and 4 batches each: at least 3 steps): 4 more epochs, 11 more steps
    assert optimizer.trained_on == 40
    if predictor == "numpy":
        model = optimizer.ensemble.models[0]
        assert (np.array(model.adam_steps_) - model.n_iter_).tolist() == [7] * 5
    else:
        for model in optimizer.ensemble.models:  # t: Adam steps; t_: samples seen (10 per first epoch)
            assert model._optimizer.t - 11 == (model.t_ - 2 * 20 - 30 - 40) // 10


def test_a_warm_retraining_runs_whole_epochs_of_at_least_warm_steps(nb201, monkeypatch):
    from nasarena.optimizers.mlp_ensemble import MLPEnsemble

    epochs = []
    original = MLPEnsemble.partial_fit
    monkeypatch.setattr(MLPEnsemble, "partial_fit",
                        lambda self, x, y, epochs_=1, **kw: (epochs.append((len(x), kw.get("epochs", epochs_))),
                                                             original(self, x, y, kw.get("epochs", epochs_)))[1])
    optimizer = make("bananas", nb201.space, seed=6, epochs=5, warm_steps=7, batch_size=8, retrain_every=5)
    run(nb201, optimizer, Budget(evaluations=31), seed=6)
    # results 15, 20, 25, 30 in batches of 8: 2, 3, 4, 4 batches per epoch -> 4, 3, 2, 2 epochs
    assert epochs == [(15, 4), (20, 3), (25, 2), (30, 2)]


def test_cold_retraining_trains_new_networks_each_time(nb201, monkeypatch):
    from nasarena.optimizers.bananas import PredictorEnsemble

    calls = []
    for method in ("fit", "partial_fit"):
        original = getattr(PredictorEnsemble, method)
        monkeypatch.setattr(PredictorEnsemble, method,
                            lambda self, *args, _original=original, _name=method, **kw: (
                                calls.append(_name), _original(self, *args, **kw))[1])
    # warm retraining begins once the results no longer fit in one minibatch: before, new
    # networks cost at most `epochs` steps, and the retraining is the original's
    for settings, expected in (({"warm_steps": None, "batch_size": 10}, ["fit"] * 3),
                               ({"batch_size": 10}, ["fit", "partial_fit", "partial_fit"]),
                               ({}, ["fit"] * 3)):
        calls.clear()
        optimizer = make("bananas", nb201.space, seed=4, epochs=20, **settings)
        run(nb201, optimizer, Budget(evaluations=31), seed=4)
        assert calls == expected
    assert make("bananas", nb201.space).warm_steps == 40


def test_warm_retraining_is_part_of_the_settings_hash():
    # results written before warm retraining became the default (no recorded settings: new
    # networks each time) must not be resumed as runs of the default
    from nasarena.runner import Budget
    from nasarena.runner.experiment import grid
    from nasarena.runner.protocol import settings_hash

    budget = Budget(seconds=1e6)
    default, warm, cold = (grid(["nb101-lite"], ["bananas"], [0], budget, settings)[0]
                           for settings in (None, {"bananas": {"warm_steps": 40}}, {"bananas": {"warm_steps": None}}))
    assert default.recorded_settings == {"warm_steps": 40} and cold.recorded_settings == {"warm_steps": None}
    assert default.settings_hash == warm.settings_hash != cold.settings_hash
    assert default.settings_hash != settings_hash("bananas", {}, default.run_settings, default.budget)
