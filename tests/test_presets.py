"""The anytime paper's four setups as presets: each expands to the documented runs."""

import pytest

from nasarena.errors import UnknownNameError
from nasarena.runner.presets import PRESETS, preset


@pytest.mark.parametrize("name, setup, caching, smac_evaluations, optimizers", [
    ("anytime-O", "O", False, 3, {"re", "smac", "irace"}),
    ("anytime-C", "C", True, 1, {"re", "smac", "irace"}),
    ("anytime-VS", "VS", False, 3, {"re", "smac"}),
    ("anytime-CVS", "CVS", True, 1, {"re", "smac"}),
])
def test_presets_expand_to_the_documented_settings(name, setup, caching, smac_evaluations, optimizers):
    specs = preset(name).specs(["nb101-lite", "nb101-noisy"])
    assert {s.optimizer for s in specs} == optimizers
    assert len(specs) == 2 * len(optimizers) * 20
    assert {s.seed for s in specs} == set(range(20))
    assert {s.budget.seconds for s in specs} == {1e7} and {s.budget.evaluations for s in specs} == {None}
    assert {s.setup for s in specs} == {setup}
    assert {s.run_settings.caching for s in specs} == {caching}
    smac = {dict(s.optimizer_settings)["repeated_evaluations"] for s in specs if s.optimizer == "smac"}
    assert smac == {smac_evaluations}
    variable = {dict(s.optimizer_settings).get("encoding") for s in specs if s.optimizer != "irace"}
    assert variable == ({"variable_size"} if "VS" in setup else {None})
    assert len({s.file_name for s in specs}) == len(specs)  # no two runs share a results file
    if "VS" in setup:
        assert "irace" in preset(name).missing


def test_every_preset_is_listed_and_an_unknown_one_is_named():
    assert set(PRESETS) == {"anytime-O", "anytime-C", "anytime-VS", "anytime-CVS"}
    with pytest.raises(UnknownNameError, match="anytime-O"):
        preset("anytime-0")


def test_preset_settings_construct_their_optimizers(lite):
    from nasarena.optimizers.base import make

    for name in PRESETS:
        for run in preset(name).runs:
            if run.optimizer != "smac":  # SMAC3 is optional and slow to build; its settings are checked above
                make(run.optimizer, lite.space, seed=0, **run.settings)
