"""``nasarena surrogate fit | evaluate | info | validate`` and the surrogates in ``benchmarks`` and ``run``."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from nasarena.cli.main import app
from nasarena.spaces.nb201 import NB201Space

pytest.importorskip("xgboost")
pytest.importorskip("lightgbm")

runner = CliRunner()
SMALL = ["--members", "2", "--set", "n_estimators=30", "--set", "max_depth=4", "--set", "learning_rate=0.2"]


@pytest.fixture(scope="module")
def data_file(tmp_path_factory, nb201):
    """400 real NB201 CIFAR-10 runs as a user would write them (percent accuracies, two sources)."""
    table = nb201
    rows = np.random.default_rng(1).choice(15_625, 400, replace=False)
    cells = NB201Space().enumerate()
    path = tmp_path_factory.mktemp("data") / "runs.csv"
    pd.DataFrame({
        "arch": [cells[r].to_string() for r in rows],
        "valid_accuracy": 100 * table.mean_over_trials("valid_accuracy")[rows],
        "cost_seconds": table.mean_over_trials("cost_seconds")[rows],
        "source": np.where(np.arange(400) % 2 == 0, "rs", "re"),
    }).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def artefact(data_file):
    out = data_file.parent / "nb201-xgb-v0.1.nsa"
    result = runner.invoke(app, ["surrogate", "fit", str(data_file), "--space", "nb201", "--name", "nb201-xgb-v0.1",
                                 "--out", str(out), *SMALL])
    assert result.exit_code == 0, result.output
    assert "data: valid_accuracy is in percent" in result.output
    assert "test split, 200 epochs, valid_accuracy: n=40 " in result.output
    return out


def test_fit_writes_an_artefact_that_info_describes(artefact):
    result = runner.invoke(app, ["surrogate", "info", str(artefact)])
    assert result.exit_code == 0, result.output
    assert "nb201-xgb-v0.1 (version 0.1)" in result.output
    assert "runs.csv" in result.output and "400 rows" in result.output and "sources re, rs" in result.output
    assert "ensemble of 2 xgb learners" in result.output and "n_estimators=30" in result.output


def test_evaluate_measures_an_artefact_on_a_data_file(artefact, data_file, tmp_path):
    out = tmp_path / "metrics.json"
    result = runner.invoke(app, ["surrogate", "evaluate", str(artefact), str(data_file), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "file runs.csv, 200 epochs, valid_accuracy: n=400" in result.output
    records = json.loads(out.read_text())
    assert {r["target"] for r in records} == {"valid_accuracy", "cost_seconds"}
    accuracy = next(r for r in records if r["target"] == "valid_accuracy")
    assert 0.3 < accuracy["kendall_tau"] <= 1 and accuracy["n"] == 400


def test_bad_data_and_options_are_clear_errors(data_file, tmp_path):
    frame = pd.read_csv(data_file)
    frame.loc[6, "arch"] = "|nor_conv_3x3~0|+|nor_conv_3x3~0|"
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    result = runner.invoke(app, ["surrogate", "fit", str(bad), "--space", "nb201", "--name", "nb201-xgb-v0.1",
                                 "--out", str(tmp_path / "x.nsa"), *SMALL])
    assert result.exit_code == 2 and "data row 7, column 'arch'" in result.output
    result = runner.invoke(app, ["surrogate", "fit", str(data_file), "--space", "nb999", "--name", "nb999-xgb-v1.0",
                                 "--out", str(tmp_path / "x.nsa")])
    assert result.exit_code == 2 and "unknown search space 'nb999'" in result.output
    result = runner.invoke(app, ["surrogate", "fit", str(data_file), "--space", "nb201", "--name", "bad name",
                                 "--out", str(tmp_path / "x.nsa"), *SMALL])
    assert result.exit_code == 2 and "must look like <space>-<model>-v<major>.<minor>" in result.output
    result = runner.invoke(app, ["surrogate", "info", "no-such-surrogate"])
    assert result.exit_code == 2 and "neither an artefact file nor a built-in surrogate" in result.output
    assert not (tmp_path / "x.nsa").exists()


def test_builtin_surrogates_are_listed_described_and_run():
    listing = runner.invoke(app, ["benchmarks"])
    for name in ("nb101-xgb-v1.0", "nb101-lgb-v1.0", "nb101-slice-xgb-v1.0", "nb201-cifar10-xgb-v1.0", "surrogate"):
        assert name in listing.output
    info = runner.invoke(app, ["surrogate", "info", "nb201-cifar10-xgb-v1.0"])
    assert info.exit_code == 0 and "fidelities (epochs): 12, 200" in info.output
    assert "test split, 200 epochs, valid_accuracy" in info.output


def test_run_command_works_on_a_builtin_surrogate(tmp_path):
    result = runner.invoke(app, ["run", "--benchmark", "nb201-cifar10-xgb-v1.0", "--optimizers", "rs,re", "--seeds",
                                 "0-1", "--max-evaluations", "30", "--out", str(tmp_path), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    results = pd.concat(pd.read_parquet(p) for p in (tmp_path / "runs").glob("*.parquet"))
    assert len(results) == 4 * 30 and set(results.benchmark) == {"nb201-cifar10-xgb-v1.0"}
    assert results.incumbent_test_regret.between(-1e-7, 1).all()


def test_validate_compares_trajectories_and_draws_learning_curves(artefact, data_file, tmp_path):
    out = tmp_path / "validation"
    result = runner.invoke(app, ["surrogate", "validate", str(artefact), "--out", str(out), "--table", "nb201-cifar10",
                                 "--optimizers", "rs,re,ls,no-such-optimizer", "--seeds", "0-1", "--budget", "2e4",
                                 "--sizes", "200,320", "--data", str(data_file), "--case-study", "--factor", "3"])
    assert result.exit_code == 0, result.output
    assert "Kendall tau of the optimizers' ranking" in result.output
    assert "not registered in this installation, left out: no-such-optimizer" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["optimizers"] == ["rs", "re", "ls"] and summary["budget_seconds"] == 2e4
    assert set(summary["final_mean_regret"]) == {"rs", "re", "ls"}
    assert -1 <= summary["kendall_tau_of_optimizer_ranking"] <= 1
    assert [p["training_architectures"] for p in summary["learning_curve"]] == [200, 320]
    assert summary["learning_curve"][1]["mae"] < summary["learning_curve"][0]["mae"]
    study = summary["case_study"]
    assert study["long_budget_seconds"] == 6e4
    for role in ("surrogate", "table"):
        assert 0 <= study[role]["mean_regret_at_long_budget"] < 1 and 0 <= study[role]["mean_regret_at_budget"] < 1
    pytest.importorskip("matplotlib")
    for name in ("regret_over_time", "learning_curve", "case_study_ls"):
        assert (out / "figures" / f"{name}.png").exists()
