"""Each optimizer's ask/tell contract on nb101-lite, determinism, and RE beating RS."""

import numpy as np
import pytest

import nasarena
from nasarena.optimizers import Observation, available, make
from nasarena.runner import Budget, run

OPTIMIZERS = ["rs", "re", "nre", "ls", "reinforce"]


def test_registry_knows_the_optimizers():
    assert set(OPTIMIZERS) <= {entry.name for entry in available()}
    with pytest.raises(KeyError, match="unknown optimizer 'sgd'"):
        make("sgd", None)
    with pytest.raises(KeyError, match="unknown setting 'popsize' of optimizer 're'; did you mean population_size"):
        make("re", None, popsize=3)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_ask_tell_contract_and_determinism(lite, name):
    first = run(lite, make(name, lite.space, seed=3), Budget(evaluations=150), seed=3)
    again = run(lite, make(name, lite.space, seed=3), Budget(evaluations=150), seed=3)
    other = run(lite, make(name, lite.space, seed=4), Budget(evaluations=150), seed=4)
    assert len(first) == 150
    assert first.drop(columns="optimizer_cpu_time").equals(again.drop(columns="optimizer_cpu_time"))
    assert not first.arch_id.equals(other.arch_id)
    assert first.arch_id.str.len().eq(32).all()  # valid cells only, identified by their hash
    assert (np.diff(first.incumbent_valid_accuracy) >= 0).all()


def test_observations_carry_no_test_accuracy():
    assert "test_accuracy" not in Observation.__dataclass_fields__


def test_evolution_settings_override_the_paper_defaults(lite):
    default = make("re", lite.space)
    assert (default.population_size, default.tournament_size) == (100, 10)
    tuned = make("re", lite.space, population_size=20, tournament_size=5)
    assert tuned.settings()["population_size"] == 20
    with pytest.raises(ValueError, match="tournament_size"):
        make("re", lite.space, population_size=5, tournament_size=10)


def test_regularized_evolution_beats_random_search_on_nb101_lite(lite):
    finals = {}
    for name in ("rs", "re"):
        finals[name] = [
            run(lite, make(name, lite.space, seed=s), Budget(seconds=1e7), seed=s).incumbent_test_regret.iloc[-1]
            for s in range(12)
        ]
    assert np.mean(finals["re"]) < np.mean(finals["rs"])


def test_local_search_walks_to_better_neighbours(lite):
    trajectory = run(lite, make("ls", lite.space, seed=0), Budget(evaluations=400), seed=0)
    assert trajectory.incumbent_valid_accuracy.iloc[-1] > trajectory.valid_accuracy.iloc[0]


def test_reinforce_learns_to_prefer_better_cells(lite):
    optimizer = make("reinforce", lite.space, seed=0)
    run(lite, optimizer, Budget(evaluations=600), seed=0)
    probabilities = optimizer.probabilities()
    assert not np.allclose(probabilities[optimizer.allowed], np.repeat([0.5] * 21 + [1 / 3] * 5, [2] * 21 + [3] * 5))


def test_tpe_runs_deterministically_on_both_spaces(lite):
    pytest.importorskip("optuna")
    nb201 = nasarena.benchmark("nb201-cifar10")
    for bench in (lite, nb201):
        first = run(bench, make("tpe", bench.space, seed=2), Budget(evaluations=40), seed=2)
        again = run(bench, make("tpe", bench.space, seed=2), Budget(evaluations=40), seed=2)
        assert len(first) == 40 and first.arch_id.equals(again.arch_id)


@pytest.mark.parametrize("name", ["rs", "re", "nre", "ls", "reinforce"])
def test_optimizers_work_on_nb201(name):
    bench = nasarena.benchmark("nb201-cifar10")
    trajectory = run(bench, make(name, bench.space, seed=1), Budget(evaluations=100), seed=1)
    assert len(trajectory) == 100 and trajectory.arch_id.str.startswith("|").all()
    assert trajectory.incumbent_test_regret.iloc[-1] <= trajectory.incumbent_test_regret.iloc[0]


def test_every_setting_says_what_it_accepts_in_words():
    """``nasarena optimizers NAME`` shows each setting's accepted values: a string setting without
    choices is a name (it said "a number", e.g. for ``encoding``)."""
    from nasarena.optimizers.base import Setting

    assert Setting(str, "an encoding").accepted() == "a name"
    assert Setting(str, "a rule", choices=("a", "b")).accepted() == "one of a, b"
    assert Setting(int, "trees", low=1).accepted() == "a whole number >= 1"
    for entry in available():
        for name, setting in entry.SETTINGS.items():
            if setting.kind is str and setting.choices is None:
                assert "number" not in setting.accepted(), (entry.name, name)
