"""nasarena's ``smac`` on NB101's variable-size encoding (issue 38 point 4), and the presets that run it.

The encoding's ``num_vertices`` is an integer (2..7) with greater-than conditions on the edges and
ops; ``smac`` holds it as ordered values (``CategoricalConfigs(max_integer_values=...)``) and must
propose what ConfigSpace accepts, search ConfigSpace's one-exchange neighbourhood, and run as
deterministically as on the categorical encoding. Distributions against ``smac3`` are
``bench/bench_smac_variable_size.py``'s (minutes per run of SMAC3, too slow for the suite).
"""

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ConfigSpace")
pytest.importorskip("sklearn")

import ConfigSpace as CS  # noqa: E402

from nasarena.errors import InvalidSettingError  # noqa: E402
from nasarena.optimizers import Observation, make  # noqa: E402
from nasarena.optimizers.categorical_configs import CategoricalConfigs  # noqa: E402
from nasarena.optimizers.smac import INTEGER_VALUES  # noqa: E402
from nasarena.runner import Budget, run  # noqa: E402
from nasarena.spaces.nb101.config_space import (  # noqa: E402
    NUM_VERTICES,
    VARIABLE_SIZE_NAMES,
    build_config_space,
    decode_config,
    variable_size_active,
)
from nasarena.studies.anytime_presets import PRESETS, preset  # noqa: E402


def _active_names(num_vertices: int) -> set[str]:
    return {name for name, on in zip(VARIABLE_SIZE_NAMES, variable_size_active(num_vertices)) if on}


def test_proposed_configurations_are_cells_of_their_size_with_inactive_parameters_absent(lite):
    config_space = build_config_space("variable_size")
    optimizer = make("smac", lite.space, seed=4, encoding="variable_size")
    rng = np.random.default_rng(4)
    sizes = set()
    for _ in range(40):
        trial = optimizer.ask()
        row = optimizer._rows.array[optimizer._trial_rows[trial.number]]
        config = optimizer._configs.config(row)
        n = config[NUM_VERTICES]
        sizes.add(n)
        assert set(config) == _active_names(n)  # every active parameter, no inactive one
        CS.Configuration(config_space, values=config).check_valid_configuration()
        cell = decode_config(config, "variable_size")
        assert len(cell.original_matrix) == len(cell.original_ops) == n
        assert trial.arch == lite.space.from_config(config, "variable_size")
        optimizer.tell(trial, Observation(float(rng.random()), 1.0))
    assert len(sizes) >= 4  # random and model-chosen proposals of several sizes


@pytest.mark.parametrize("num_vertices", [7, 4, 2])
def test_the_neighbourhood_is_configspaces_one_exchange_neighbourhood(lite, num_vertices):
    """Every value of num_vertices but its own (SMAC3 asks ConfigSpace for 8 neighbours of an integer:
    of 2..7 that is all five others), edges and ops switched on at their defaults when a larger size
    activates them, and the edges and ops of the configuration each changed once: as a set, ConfigSpace's
    neighbourhood (the order differs, see the module docstring of smac)."""
    from smac.utils.configspace import get_one_exchange_neighbourhood

    optimizer = make("smac", lite.space, seed=0, encoding="variable_size")
    configs = optimizer._configs
    rows = configs.random(np.random.default_rng(num_vertices), 200)
    point = rows[np.asarray([configs.config(r)[NUM_VERTICES] for r in rows]) == num_vertices][0]
    moves = optimizer._neighbour_moves
    neighbours, real = optimizer._neighbours(point[None, :], moves[None, :, 0], moves[None, :, 1])
    ours = [configs.config(row) for row in neighbours[0][real[0]]]
    configuration = CS.Configuration(build_config_space("variable_size"), values=configs.config(point))
    theirs = [dict(neighbour) for neighbour in get_one_exchange_neighbourhood(configuration, seed=1)]
    key = lambda config: json.dumps(config, sort_keys=True, default=int)  # noqa: E731
    assert sorted(map(key, ours)) == sorted(map(key, theirs))
    assert sorted(c[NUM_VERTICES] for c in ours if c[NUM_VERTICES] != num_vertices) == sorted(
        set(range(2, 8)) - {num_vertices})
    # the forest sees the index, an increasing affine map of the value SMAC3's forest sees
    vector = build_config_space("variable_size")[NUM_VERTICES].to_vector(np.arange(2, 8))
    assert np.allclose(vector, np.arange(6) / 5)


def test_a_short_seeded_run_is_deterministic_and_finishes(lite):
    def trajectory(seed: int) -> pd.DataFrame:
        optimizer = make("smac", lite.space, seed=seed, encoding="variable_size", repeated_evaluations=3)
        return run(lite, optimizer, Budget(evaluations=60), seed=seed).drop(columns="optimizer_cpu_time")

    first, again, other = trajectory(3), trajectory(3), trajectory(5)
    assert len(first) == 60 and first.equals(again) and not first.arch_id.equals(other.arch_id)
    assert first.arch_id.value_counts().max() >= 3  # the incumbent raced on three seeds (keys)


@pytest.mark.parametrize("name, settings, caching", [
    ("anytime-O", {"repeated_evaluations": 3}, False),
    ("anytime-C", {"repeated_evaluations": 1}, True),
    ("anytime-VS", {"repeated_evaluations": 3, "encoding": "variable_size"}, False),
    ("anytime-CVS", {"repeated_evaluations": 1, "encoding": "variable_size"}, True),
])
def test_the_presets_run_smac_and_smac3_in_its_place_with_the_same_settings(name, settings, caching):
    from nasarena.studies.paper_notes import TABLE_I, compare_with_papers

    (smac,) = [s for s in preset(name).specs(seeds=[0]) if s.optimizer.startswith("smac")]
    assert smac.optimizer == "smac" and dict(smac.optimizer_settings) == settings
    assert smac.run_settings.caching == caching
    (library,) = preset(name).specs(seeds=[0], optimizers=["smac3"])
    assert library.optimizer == "smac3" and library.optimizer_settings == smac.optimizer_settings
    assert library.run_settings == smac.run_settings and library.budget == smac.budget
    assert library.settings_hash != smac.settings_hash  # a smac3 run never stands in for a smac run
    assert "SMAC is nasarena's smac" in preset(name).summary
    # the report knows a preset's smac3 run as the preset's, and so sets the paper's Table I beside it
    runs = pd.DataFrame({"benchmark": [library.benchmark], "optimizer": ["smac3"],
                         "settings_hash": [library.settings_hash], "seed": [0]})
    assert TABLE_I in compare_with_papers(runs).notes


def test_every_preset_chooses_smac3_but_no_other_stand_in():
    for chosen in PRESETS.values():
        assert chosen.optimizers == ("re", "smac", "irace") and chosen.choices == ("re", "smac", "smac3", "irace")
        with pytest.raises(InvalidSettingError, match=r"\(smac3 in place of smac\); not tpe"):
            chosen.specs(optimizers=["tpe"])


def test_floats_and_integers_smac_does_not_model_are_refused_with_the_reference_named(lite):
    with pytest.raises(InvalidSettingError, match=r"'nb101-continuous' encoding has the UniformFloatHyperparameter "
                                                  r"parameter 'edge_score_0_1'; the smac optimizer models .* use smac3"):
        make("smac", lite.space, encoding="continuous")
    # tpe, which models no integer, refuses the variable-size encoding as before
    with pytest.raises(InvalidSettingError, match=r"has the UniformIntegerHyperparameter parameter 'num_vertices'; "
                                                  r"the tpe optimizer models categorical parameters with equality or "
                                                  r"membership conditions: use tpe-optuna"):
        make("tpe", lite.space, encoding="variable_size")
    wide = CS.ConfigurationSpace(name="wide")
    wide.add(CS.Integer("k", (0, INTEGER_VALUES)))  # one value too many: ConfigSpace samples its neighbours
    with pytest.raises(InvalidSettingError, match=r"'wide' encoding has the integer parameter 'k' \(10 values\)"):
        CategoricalConfigs(wide, "smac", "smac3", max_integer_values=INTEGER_VALUES)
    conditional = CS.ConfigurationSpace(name="conditional")
    switch, k = CS.Categorical("switch", ("a", "b")), CS.Integer("k", (0, 3))
    conditional.add(switch, k, CS.EqualsCondition(k, switch, "a"))
    with pytest.raises(InvalidSettingError, match=r"integer parameter 'k' \(4 values, conditional\)"):
        CategoricalConfigs(conditional, "smac", "smac3", max_integer_values=INTEGER_VALUES)


def test_less_than_conditions_on_an_integer_are_configspaces():
    space = CS.ConfigurationSpace(name="less", seed=0)
    k, child = CS.Integer("k", (1, 5)), CS.Categorical("child", ("x", "y"))
    space.add(k, child, CS.LessThanCondition(child, k, 3))
    configs = CategoricalConfigs(space, "smac", "smac3", max_integer_values=INTEGER_VALUES)
    rows = configs.random(np.random.default_rng(0), 100)
    for row in rows:
        config = configs.config(row)
        assert ("child" in config) == (config["k"] < 3)
        CS.Configuration(space, values=config).check_valid_configuration()
    assert sorted(set(rows[:, 0].tolist())) == [0, 1, 2, 3, 4]
