"""The vectorised ``tpe`` and ``smac`` against the libraries they reproduce (``tpe-optuna``, ``smac3``).

Piece by piece, on real NB201 accuracies: TPE's proposal distribution after the same history,
and its weights; SMAC's cost scaling, acquisition function and forest. Whole runs are compared
by ``bench/bench_equivalence.py`` (final-regret distributions, Mann-Whitney), which is too slow
for the suite.
"""

import tempfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("optuna")
pytest.importorskip("smac")

import ConfigSpace as CS  # noqa: E402
import optuna  # noqa: E402
from scipy.stats import kendalltau  # noqa: E402

import nasarena  # noqa: E402
from nasarena.optimizers import Observation, make  # noqa: E402
from nasarena.optimizers.categorical_configs import CategoricalConfigs  # noqa: E402
from nasarena.optimizers.config_bridge import OptunaBridge  # noqa: E402
from nasarena.optimizers.random_forest import LogForest  # noqa: E402
from nasarena.optimizers.smac import log_expected_improvement, log_scaled  # noqa: E402
from nasarena.optimizers.tpe import ramp_weights  # noqa: E402
from nasarena.spaces.registry import space as space_named  # noqa: E402

HISTORY = 60
PROPOSALS = 400


@pytest.fixture(scope="module")
def nb201():
    return nasarena.benchmark("nb201-cifar10")


def _history(nb201, seed: int) -> list[tuple[dict, float]]:
    """``HISTORY`` random NB201 configurations with their real validation accuracies."""
    rng = np.random.default_rng(seed)
    archs = [nb201.space.sample(rng) for _ in range(HISTORY)]
    return [(dict(nb201.space.to_config(a, "categorical")), nb201.query(a).valid_accuracy) for a in archs]


def _frequencies(configs: list[dict], config_space) -> np.ndarray:
    """Share of each category, per parameter (parameters x categories)."""
    names = list(config_space.keys())
    width = max(len(config_space[name].choices) for name in names)
    table = np.zeros((len(names), width))
    for config in configs:
        for j, name in enumerate(names):
            table[j, config_space[name].choices.index(config[name])] += 1
    return table / len(configs)


@pytest.mark.parametrize("seed", [0, 1])
def test_tpe_proposes_what_optunas_tpe_proposes_after_the_same_history(nb201, seed):
    """Both told the same 60 real NB201 results (tpe's own random start-up trials), then asked 400
    times (the pending ones counting as bad, Optuna's constant liar): every parameter's category
    shares agree (measured over seeds 0-5: at most 0.003 apart, mostly identical), while the same
    cells told with their accuracies reversed move them far more (0.36-0.54)."""
    config_space = nb201.space.config_space("categorical")

    def told(accuracy_sign: float):
        optimizer = make("tpe", nb201.space, seed=seed, n_startup_trials=HISTORY)
        history = []
        for _ in range(HISTORY):
            trial = optimizer.ask()
            accuracy = nb201.query(trial.arch).valid_accuracy * accuracy_sign
            optimizer.tell(trial, Observation(accuracy, 1.0))
            history.append((dict(nb201.space.to_config(trial.arch, "categorical")), accuracy))
        return optimizer, history

    optimizer, history = told(1.0)
    ours = _frequencies([nb201.space.to_config(optimizer.ask().arch, "categorical") for _ in range(PROPOSALS)],
                        config_space)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed, multivariate=False, constant_liar=True))
    distributions = {name: optuna.distributions.CategoricalDistribution(config_space[name].choices)
                     for name in config_space.keys()}
    for config, accuracy in history:
        study.add_trial(optuna.trial.create_trial(params=config, distributions=distributions, value=accuracy))
    bridge = OptunaBridge(config_space)
    reference = _frequencies([bridge.suggest(study.ask()) for _ in range(PROPOSALS)], config_space)
    assert np.abs(ours - reference).max() < 0.05

    reversed_optimizer, _ = told(-1.0)  # the worst cells become the good ones
    reversed_shares = _frequencies([nb201.space.to_config(reversed_optimizer.ask().arch, "categorical")
                                    for _ in range(PROPOSALS)], config_space)
    assert np.abs(reversed_shares - reference).max() > 0.2


@pytest.mark.parametrize("benchmark_name, told", [("nb201-cifar10", 10), ("nb201-cifar10", 60), ("nb101-lite", 40),
                                                   ("nb101-lite", 300)])
def test_tpe_densities_are_optunas_to_the_last_digit(benchmark_name, told):
    """After the same real results (NB101's invalid cells told as 0), every parameter's good and bad
    densities over its categories equal those Optuna's sampler builds from its own split
    (``_split_trials`` and ``_build_parzen_estimator``, private: this pins the reference)."""
    from optuna.samplers._tpe.sampler import _split_trials, default_gamma
    from optuna.trial import TrialState

    bench = nasarena.benchmark(benchmark_name)
    config_space = bench.space.config_space("categorical")
    names = list(config_space.keys())
    distributions = {name: optuna.distributions.CategoricalDistribution(config_space[name].choices) for name in names}
    ours = make("tpe", bench.space, seed=0, n_startup_trials=told)
    sampler = optuna.samplers.TPESampler(seed=0, multivariate=False, constant_liar=True)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    for _ in range(told):
        trial = ours.ask()
        vector = ours._pending[trial.number]
        try:
            accuracy, valid = bench.query(trial.arch).valid_accuracy, True
        except nasarena.errors.InvalidArchitectureError:
            accuracy, valid = 0.0, False
        ours.tell(trial, Observation(accuracy, 1.0, valid=valid))
        study.add_trial(optuna.trial.create_trial(params=ours._configs.config(vector), distributions=distributions,
                                                  value=accuracy))
    trials = study._get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING))
    good, bad = _split_trials(study, trials, default_gamma(told))
    good_p, bad_p = ours._densities()
    for j, name in enumerate(names):
        categories = {name: np.arange(len(distributions[name].choices), dtype=float)}
        for trials_of_set, ours_p, below in ((good, good_p, True), (bad, bad_p, False)):
            estimator = sampler._build_parzen_estimator(study, {name: distributions[name]}, trials_of_set,
                                                        handle_below=below)
            assert np.allclose(np.log(ours_p[j, :len(distributions[name].choices)]), estimator.log_pdf(categories),
                               rtol=0, atol=1e-12), (name, below)


def test_tpe_weights_are_optunas_default_weights():
    from optuna.samplers._tpe.sampler import default_weights

    for count in (1, 10, 24, 25, 26, 27, 40, 300):
        assert np.allclose(ramp_weights(np.ones((count, 1), dtype=bool))[:, 0], default_weights(count))
    active = np.array([[True, False], [True, True], [False, True]] * 20)  # a parameter sees only its active trials
    weights = ramp_weights(active)
    assert np.allclose(weights[active[:, 0], 0], default_weights(40)) and (weights[~active[:, 0], 0] == 0).all()


def test_smac_scales_costs_and_scores_expected_improvement_as_smac3(nb201):
    from smac import Scenario
    from smac.acquisition.function import EI
    from smac.runhistory import RunHistory
    from smac.runhistory.encoder import RunHistoryLogScaledEncoder

    config_space = nb201.space.config_space("categorical")
    history = _history(nb201, 3)
    costs = np.array([1.0 - accuracy for _, accuracy in history])
    runhistory = RunHistory()
    for config, cost in zip(history, costs):
        runhistory.add(CS.Configuration(config_space, values=config[0]), cost=float(cost), seed=0)
    with tempfile.TemporaryDirectory() as directory:
        encoder = RunHistoryLogScaledEncoder(Scenario(config_space, output_directory=Path(directory),
                                                      deterministic=True))
    encoder.runhistory = runhistory
    assert np.allclose(encoder.transform()[1].ravel(), log_scaled(costs), rtol=0, atol=1e-12)

    scaled = log_scaled(costs)
    mean, variance = scaled[:40], np.linspace(1e-4, 0.5, 40)

    class Predictions:
        def predict_marginalized(self, x):
            return mean[x[:, 0].astype(int), None], variance[x[:, 0].astype(int), None]

    expected_improvement = EI(log=True)
    expected_improvement.update(model=Predictions(), eta=float(scaled.min()), num_data=len(scaled))
    reference = expected_improvement._compute(np.arange(40, dtype=float)[:, None]).ravel()
    assert np.allclose(log_expected_improvement(mean, variance, float(scaled.min())), reference, rtol=1e-12, atol=0)


def test_smac_forest_ranks_held_out_cells_as_smac3s_forest(nb201):
    """Ten forests of each (5 trees, the same options) trained on 150 random NB201 cells' log-scaled
    costs: the mean Kendall tau of their predictions with the real accuracies of 1,000 held-out
    cells agrees (measured on this split: 0.482 vs 0.474, single forests 0.41-0.54), and the
    predictive variance is positive."""
    from smac import Scenario

    from nasarena.optimizers.smac3 import _forest

    space = nb201.space
    rng = np.random.default_rng(0)
    archs = [space.sample(rng) for _ in range(1150)]
    configs = CategoricalConfigs(space.config_space("categorical"), "smac", "smac3")
    rows = np.array([[configs.choices[j].index(space.to_config(a, "categorical")[name])
                      for j, name in enumerate(configs.names)] for a in archs])
    accuracies = np.array([nb201.query(a).valid_accuracy for a in archs])
    train, test = slice(0, 150), slice(150, None)
    targets = log_scaled(1.0 - accuracies[train])

    our_taus, reference_taus = [], []
    for seed in range(10):
        ours = LogForest(5, np.random.default_rng(seed))
        ours.fit(rows[train], targets)
        mean, variance = ours.predict(rows[test])
        assert (variance > 0).all()
        our_taus.append(kendalltau(-mean, accuracies[test]).statistic)
        with tempfile.TemporaryDirectory() as directory:
            reference = _forest(Scenario(space.config_space("categorical"), output_directory=Path(directory),
                                         deterministic=True, seed=seed), 5)
        reference.train(rows[train].astype(float), targets[:, None])
        reference_mean = reference.predict_marginalized(rows[test].astype(float))[0].ravel()
        reference_taus.append(kendalltau(-reference_mean, accuracies[test]).statistic)
    assert np.mean(our_taus) > 0.4 and np.mean(reference_taus) > 0.4
    assert abs(np.mean(our_taus) - np.mean(reference_taus)) < 0.03


def test_conditional_configurations_are_valid_configspace_configurations():
    """DARTS' encoding has 24 conditions: random rows and every one-parameter change, settled,
    are configurations ConfigSpace accepts (inactive parameters absent, active ones present)."""
    config_space = space_named("darts").config_space("categorical")
    configs = CategoricalConfigs(config_space, "smac", "smac3")
    rng = np.random.default_rng(0)
    rows = configs.random(rng, 50)
    assert (rows < 0).any() and (rows >= 0).any()
    for row in rows:
        CS.Configuration(config_space, values=configs.config(row)).check_valid_configuration()
        for j in np.flatnonzero(row >= 0)[:6]:
            changed = row.copy()
            changed[j] = (changed[j] + 1) % configs.sizes[j]
            settled = configs.settle(changed[None, :])[0]
            CS.Configuration(config_space, values=configs.config(settled)).check_valid_configuration()


@pytest.mark.parametrize("name", ["tpe", "smac"])
def test_vectorised_optimizers_search_the_conditional_darts_encoding(name):
    space = space_named("darts")
    config_space = space.config_space("categorical")
    optimizer = make(name, space, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(40):
        trial = optimizer.ask()
        config = space.to_config(trial.arch, "categorical")
        CS.Configuration(config_space, values=dict(config)).check_valid_configuration()
        optimizer.tell(trial, Observation(float(rng.random()), 1.0))


@pytest.mark.parametrize("name, reference, encoding", [("tpe", "tpe-optuna", "continuous"),
                                                       ("smac", "smac3", "continuous")])
def test_numeric_encodings_are_refused_with_the_reference_named(name, reference, encoding):
    from nasarena.errors import InvalidSettingError

    with pytest.raises(InvalidSettingError, match=f"Uniform.*use {reference}"):
        make(name, space_named("nb101"), encoding=encoding)


def test_a_setting_only_the_reference_has_is_refused_with_the_reference_named():
    from nasarena.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="multivariate is a setting of 'tpe-optuna'"):
        make("tpe", space_named("nb201"), multivariate=True)
    with pytest.raises(UnknownNameError, match=r"unknown setting 'nope' of optimizer 'tpe'.*available[^;]*$"):
        make("tpe", space_named("nb201"), nope=1)
