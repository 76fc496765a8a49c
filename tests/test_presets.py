"""The anytime paper's four setups as presets: each expands to the documented runs."""

import pytest

from nasarena.errors import InvalidSettingError, UnknownNameError
from nasarena.studies.anytime_presets import PRESETS, preset


@pytest.mark.parametrize("name, setup, caching, smac_evaluations, optimizers", [
    ("anytime-O", "O", False, 3, {"re", "smac", "irace"}),
    ("anytime-C", "C", True, 1, {"re", "smac", "irace"}),
    ("anytime-VS", "VS", False, 3, {"re", "smac", "irace"}),
    ("anytime-CVS", "CVS", True, 1, {"re", "smac", "irace"}),
])
def test_presets_expand_to_the_documented_settings(name, setup, caching, smac_evaluations, optimizers):
    specs = preset(name).specs(["nb101-lite", "nb101-noisy"])
    assert {s.optimizer for s in specs} == optimizers
    assert len(specs) == 2 * len(optimizers) * 20
    assert {s.seed for s in specs} == set(range(20))
    assert {s.budget.seconds for s in specs} == {1e7} and {s.budget.evaluations for s in specs} == {100_000}
    assert {s.setup for s in specs} == {setup}
    assert {s.run_settings.caching for s in specs} == {caching}
    smac = {dict(s.optimizer_settings)["repeated_evaluations"] for s in specs if s.optimizer == "smac"}
    assert smac == {smac_evaluations}
    variable = {dict(s.optimizer_settings).get("encoding") for s in specs}  # irace's too (issue 29)
    assert variable == ({"variable_size"} if "VS" in setup else {None})
    assert len({s.file_name for s in specs}) == len(specs)  # no two runs share a results file


def test_every_preset_is_listed_and_an_unknown_one_is_named():
    assert set(PRESETS) == {"anytime-O", "anytime-C", "anytime-VS", "anytime-CVS"}
    with pytest.raises(UnknownNameError, match="anytime-O"):
        preset("anytime-0")


def test_preset_settings_construct_their_optimizers(lite):
    from nasarena.optimizers.base import make

    for name in PRESETS:
        for run in preset(name).runs:
            make(run.optimizer, lite.space, seed=0, **run.settings)


def test_rank_table_and_boxplots_by_setup_on_a_small_preset_experiment(tmp_path):
    """RE under the four setups for 2 seeds (a short budget): Table I both ways and Fig. 3."""
    from dataclasses import replace

    from nasarena.analysis.anytime import Normalization, run_hypervolumes
    from nasarena.analysis.setups import setup_rank_table, table_text
    from nasarena.analysis.trajectories import RUN_KEYS, final_results
    from nasarena.runner import Budget
    from nasarena.runner.experiment import load_results, run_experiment

    specs = [s for name in PRESETS for s in replace(preset(name), budget=Budget(seconds=2e5)).specs(
        ["nb101-lite"], seeds=range(2)) if s.optimizer == "re"]
    run_experiment(specs, tmp_path, jobs=1)
    results = load_results(tmp_path)
    final = final_results(results)
    assert set(final["setup"]) == {"O", "C", "VS", "CVS"}
    by_optimizer = setup_rank_table(final, by="optimizer")
    assert list(by_optimizer["optimizer"].unique()) == ["re"] and set(by_optimizer["setup"]) == set(final["setup"])
    assert (by_optimizer["runs"] == 2).all()
    means = final.groupby("setup")["incumbent_test_regret"].mean() * 1e4
    for _, row in by_optimizer.iterrows():  # the ECDF area is the mean final regret
        assert row.area == pytest.approx(means[row.setup])
    assert by_optimizer["area"].is_monotonic_increasing
    assert len(table_text(by_optimizer)) == 1 and "(" in table_text(by_optimizer)[0]
    by_setup = setup_rank_table(final, by="setup")
    assert set(by_setup["setup"]) == {"O", "C", "VS", "CVS"} and by_setup["p_value"].isna().all()
    # rows in the paper's order (issue 17 proof runs: they came out alphabetically, C, CVS, O, VS)
    assert list(by_setup["setup"].unique()) == ["O", "VS", "C", "CVS"]
    assert [line.split()[0] for line in table_text(by_setup)] == ["O", "VS", "C", "CVS"]

    from nasarena.plots.setups import setup_boxplots

    volumes = run_hypervolumes(results, Normalization(time_bounds=(0.0, 2e5))).merge(
        final[[*RUN_KEYS, "setup"]], on=RUN_KEYS)
    figure = setup_boxplots(volumes)
    assert [axis.get_ylabel() for axis in figure.axes] == ["O", "VS", "C", "CVS"]


def test_cli_names_the_presets_when_one_is_unknown(tmp_path):
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    result = CliRunner().invoke(app, ["run", "--preset", "anytime-X", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "error:" in result.output and "anytime-CVS" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


def test_a_preset_runs_the_chosen_optimizers_and_seeds_and_refuses_the_others():
    specs = preset("anytime-O").specs(["nb101-lite"], seeds=[3], optimizers=["re", "irace"])
    assert sorted(s.optimizer for s in specs) == ["irace", "re"] and {s.seed for s in specs} == {3}
    with pytest.raises(InvalidSettingError, match=r"anytime-VS runs re, smac, irace \(smac3 in place of smac\); not rs"):
        preset("anytime-VS").specs(["nb101-lite"], optimizers=["rs"])


def test_cli_preset_chooses_optimizers_and_seeds_and_refuses_what_it_fixes(tmp_path):
    """--optimizers and --seeds used to be ignored silently with --preset (SMAC ran anyway)."""
    from typer.testing import CliRunner

    from nasarena.cli.main import app
    from nasarena.runner.experiment import load_results

    out = tmp_path / "out"
    run = CliRunner().invoke(app, ["run", "--preset", "anytime-O", "--benchmark", "nb101-lite", "--optimizers", "re",
                                   "--seeds", "0", "--jobs", "1", "--out", str(out)])
    assert run.exit_code == 0, run.output
    results = load_results(out)
    assert set(results["optimizer"]) == {"re"} and set(results["seed"]) == {0} and set(results["setup"]) == {"O"}
    for extra in (["--caching"], ["--set", "re.population_size=10"], ["--budget", "1e5"], ["--optimizers", "rs"]):
        refused = CliRunner().invoke(app, ["run", "--preset", "anytime-O", *extra, "--out", str(tmp_path / "no")])
        assert refused.exit_code == 2 and "error:" in refused.output, (extra, refused.output)
        assert not (tmp_path / "no").exists()
