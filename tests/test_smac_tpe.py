"""SMAC (SMAC3) and TPE (Optuna) over the spaces' ConfigSpace encodings, and the ConfigSpace -> Optuna bridge."""

import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ConfigSpace")
pytest.importorskip("optuna")
pytest.importorskip("smac")

import ConfigSpace as CS  # noqa: E402
import optuna  # noqa: E402

from nasarena.errors import InvalidSettingError  # noqa: E402
from nasarena.optimizers import Observation, available, make  # noqa: E402
from nasarena.optimizers.config_bridge import OptunaBridge  # noqa: E402
from nasarena.runner import Budget, run  # noqa: E402
from nasarena.runner.protocol import RunSettings  # noqa: E402


def _trials_per_config(optimizer) -> Counter:
    """How often SMAC had each of its configurations evaluated (its own run history)."""
    return Counter(key.config_id for key in optimizer.facade.runhistory)


def test_smac_is_registered_with_the_nb101_papers_settings(lite):
    assert "smac3" in {entry.name for entry in available()}
    assert make("smac3", lite.space).settings() == {
        "encoding": "categorical", "repeated_evaluations": 1, "n_trees": 5, "random_fraction": 0.33,
        "retrain_after": 8,
    }


@pytest.mark.parametrize("settings, message", [
    ({"repeated_evaluations": 0}, "'smac3': setting repeated_evaluations=0 is too small; repeated_evaluations must "
                                  "be a whole number >= 1"),
    ({"n_trees": 0}, "n_trees=0 is too small; n_trees must be a whole number >= 1"),
    ({"random_fraction": 1.5}, "random_fraction=1.5 is too large; random_fraction must be a number in \\[0, 1\\]"),
    ({"retrain_after": 2.5}, "retrain_after=2.5 is not a whole number; retrain_after must be a whole number >= 1"),
    ({"encoding": "path"}, "unknown NB101 config encoding 'path'"),
])
def test_smac_rejects_bad_settings(lite, settings, message):
    with pytest.raises(ValueError, match=message):
        make("smac3", lite.space, **settings)


def test_smac_contract_determinism_and_one_evaluation_per_config(lite, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    leftovers = set(Path(tempfile.gettempdir()).glob("nasarena-smac-*"))
    optimizer = make("smac3", lite.space, seed=3)
    first = run(lite, optimizer, Budget(evaluations=20), seed=3)
    again = run(lite, make("smac3", lite.space, seed=3), Budget(evaluations=20), seed=3)
    assert len(first) == 20 and first.arch_id.str.len().eq(32).all()
    assert first.drop(columns="optimizer_cpu_time").equals(again.drop(columns="optimizer_cpu_time"))
    proposals = [make("smac3", lite.space, seed=seed).ask().arch.original_matrix for seed in (3, 3, 4, 5)]
    assert proposals[0] == proposals[1] and len(set(proposals[1:])) == 3  # the seed decides
    assert (np.diff(first.incumbent_valid_accuracy) >= 0).all()
    assert set(_trials_per_config(optimizer).values()) == {1}
    assert not any(tmp_path.iterdir())  # SMAC3 wrote nothing into the working directory
    assert set(Path(tempfile.gettempdir()).glob("nasarena-smac-*")) <= leftovers  # and removed its own


def test_smac3_runs_do_not_depend_on_the_string_hash_seed():
    """SMAC3 deduplicates its local searches' start points through a set; nasarena orders them,
    so the same seed gives the same run in processes with different PYTHONHASHSEED."""
    code = ("import nasarena; from nasarena.optimizers import make; from nasarena.runner import Budget, run; "
            "b = nasarena.benchmark('nb201-cifar10'); "
            "print(run(b, make('smac3', b.space, seed=3), Budget(evaluations=40), seed=3).arch_id.str.cat())")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(hash_seed)}).stdout for hash_seed in (1, 2)}
    assert len(runs) == 1 and len(runs.pop()) > 40 * 30


def test_smac_tells_one_minus_accuracy_and_invalid_cells_cost_one(lite):
    optimizer = make("smac3", lite.space, seed=0)
    history = optimizer.facade.runhistory
    told = {"valid": False, "invalid": False}
    for _ in range(200):
        trial = optimizer.ask()
        if trial.arch.is_valid:
            optimizer.tell(trial, Observation(valid_accuracy=0.93, cost_seconds=1000.0))
            expected, told["valid"] = 0.07, True
        else:
            optimizer.tell(trial, Observation(0.0, 0.0, valid=False))
            expected, told["invalid"] = 1.0, True
        assert history[list(history)[-1]].cost == pytest.approx(expected)
        if all(told.values()):
            break
    assert all(told.values())


def test_smac_repeated_evaluations_requery_the_same_architecture(lite):
    optimizer = make("smac3", lite.space, seed=1, repeated_evaluations=3)
    trajectory = run(lite, optimizer, Budget(evaluations=30), seed=1)
    counts = _trials_per_config(optimizer)
    assert max(counts.values()) == 3  # the incumbent raced on three seeds, never more
    assert trajectory.arch_id.value_counts().iloc[0] >= 3


def test_smac_runs_on_every_nb101_encoding_and_on_nb201(lite, nb201):
    for encoding in ("variable_size", "continuous"):
        trajectory = run(lite, make("smac3", lite.space, seed=2, encoding=encoding), Budget(evaluations=10), seed=2)
        assert len(trajectory) == 10 and trajectory.arch_id.str.len().eq(32).all()
    trajectory = run(nb201, make("smac3", nb201.space, seed=2), Budget(evaluations=16), seed=2,
                     settings=RunSettings(n_workers=2))
    assert len(trajectory) == 16 and trajectory.arch_id.str.startswith("|").all()
    assert trajectory.arch_id.nunique() == 16  # every NB201 configuration is its own cell


@pytest.mark.parametrize("name, encoding", [("tpe-optuna", "categorical"), ("tpe-optuna", "variable_size"),
                                            ("tpe-optuna", "continuous"), ("tpe", "categorical")])
def test_tpe_runs_deterministically_on_every_encoding(lite, name, encoding):
    first = run(lite, make(name, lite.space, seed=2, encoding=encoding), Budget(evaluations=20), seed=2)
    again = run(lite, make(name, lite.space, seed=2, encoding=encoding), Budget(evaluations=20), seed=2)
    other = run(lite, make(name, lite.space, seed=5, encoding=encoding), Budget(evaluations=20), seed=5)
    assert len(first) == 20 and first.arch_id.equals(again.arch_id) and not first.arch_id.equals(other.arch_id)
    assert make(name, lite.space, encoding=encoding).settings()["encoding"] == encoding


@pytest.mark.parametrize("encoding, why", [("variable_size", "UniformInteger"), ("continuous", "Uniform")])
def test_tpe_refuses_encodings_it_does_not_model_and_names_the_reference(lite, encoding, why):
    with pytest.raises(InvalidSettingError, match=f"{why}.*tpe-optuna"):
        make("tpe", lite.space, encoding=encoding)


def test_tpe_suggests_only_the_active_variable_size_parameters(lite):
    optimizer = make("tpe-optuna", lite.space, seed=0, encoding="variable_size", n_startup_trials=5)
    run(lite, optimizer, Budget(evaluations=25), seed=0)
    trials = optimizer.study.trials
    assert len({trial.params["num_vertices"] for trial in trials}) > 2
    for trial in trials:
        n = trial.params["num_vertices"]
        assert set(trial.params) == ({"num_vertices"} | {f"edge_{x}_{y}" for y in range(n) for x in range(y)}
                                     | {f"op_{i}" for i in range(1, n - 1)})


def test_tpe_multivariate_handles_conditional_parameters(lite):
    trajectory = run(lite, make("tpe-optuna", lite.space, seed=1, encoding="variable_size", multivariate=True),
                     Budget(evaluations=25), seed=1)
    assert len(trajectory) == 25


def _bridge_space() -> CS.ConfigurationSpace:
    space = CS.ConfigurationSpace(seed=0)
    kind = CS.Categorical("kind", ("a", "b", "c"))
    width = CS.Integer("width", (1, 64), log=True)
    rate = CS.Float("rate", (0.1, 0.9))
    level = CS.OrdinalHyperparameter("level", ("low", "mid", "high"))
    depth = CS.Integer("depth", (2, 5))
    space.add(kind, width, rate, level, depth, CS.Constant("fixed", 7))
    space.add(CS.EqualsCondition(rate, kind, "a"),
              CS.OrConjunction(CS.InCondition(level, kind, ["b"]), CS.GreaterThanCondition(level, width, 32)),
              CS.AndConjunction(CS.EqualsCondition(depth, kind, "a"), CS.LessThanCondition(depth, rate, 0.5)))
    return space


def test_bridge_suggests_exactly_configspaces_active_parameters():
    space = _bridge_space()
    bridge = OptunaBridge(space)
    assert bridge.conditional
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    seen = set()
    for _ in range(150):
        values = bridge.suggest(study.ask())
        configuration = CS.Configuration(space, values=values)  # raises if activity or bounds are wrong
        assert set(values) == space.get_active_hyperparameters(configuration)
        assert values["fixed"] == 7 and 1 <= values["width"] <= 64
        seen.add(frozenset(values))
    assert len(seen) >= 4  # the conditions were exercised both ways


def test_bridge_rejects_what_optuna_cannot_express():
    space = CS.ConfigurationSpace(space={"x": CS.Float("x", (0.0, 1.0), distribution=CS.Normal(0.5, 0.1))})
    with pytest.raises(ValueError, match="hyperparameter 'x': NormalFloatHyperparameter has no Optuna counterpart"):
        OptunaBridge(space)
    forbidden = CS.ConfigurationSpace(space={"a": ["p", "q"], "b": ["r", "s"]})
    forbidden.add(CS.ForbiddenAndConjunction(CS.ForbiddenEqualsClause(forbidden["a"], "q"),
                                             CS.ForbiddenEqualsClause(forbidden["b"], "s")))
    with pytest.raises(ValueError, match="forbidden clauses"):
        OptunaBridge(forbidden)


def test_heavy_libraries_stay_unimported_until_an_optimizer_needs_them():
    code = ("import sys, nasarena; from nasarena.optimizers import available; available(); "
            "import nasarena.spaces.nb101.space, nasarena.spaces.nb201.space; "
            "print(sorted(m for m in ('ConfigSpace', 'smac', 'optuna', 'sklearn') if m in sys.modules))")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "[]"
