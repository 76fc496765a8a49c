"""Multi-objective and constrained runs end to end through ``nasarena run`` on the real NB201
table and its measured latencies: the run files' vectors are the benchmark's, the incumbent
front is the non-dominated set, resume skips finished runs, the hypervolume regret is scored
against the exact true front, a constrained incumbent is feasible and its regret is measured
from the exact constrained optimum, and bad input writes nothing."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from nasarena.analysis.multiobjective import final_scores, found_fronts, front_trajectories, true_front
from nasarena.analysis.pareto import non_dominated
from nasarena.analysis.trajectories import monotone_fronts
from nasarena.benchmarks import benchmark
from nasarena.benchmarks.objectives import best_under, objective_vector, parse_objectives
from nasarena.cli.main import app
from nasarena.runner.experiment import load_results
from nasarena.runner.protocol import Budget, RunSettings, settings_hash

OBJECTIVES = "error,latency:pixel3"
#: ~20 NB201 evaluations per run (about 1,400 simulated seconds each)
BUDGET = "3e4"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"NASARENA_PROGRESS": "0"})


@pytest.fixture(scope="module")
def mo_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("mo") / "results"
    first = invoke("run", "--benchmarks", "nb201-cifar10", "--objectives", OBJECTIVES, "--optimizers",
                   "mo-rs,nsga2", "--seeds", "0-1", "--budget", BUDGET, "--jobs", "1", "--out", out)
    assert first.exit_code == 0, first.output
    again = invoke("run", "--benchmarks", "nb201-cifar10", "--objectives", OBJECTIVES, "--optimizers",
                   "mo-rs,nsga2", "--seeds", "0-2", "--budget", BUDGET, "--jobs", "1", "--workers", "1",
                   "--out", out)
    assert again.exit_code == 0, again.output
    assert "6 runs, 4 already in" in again.output  # resumed: only seed 2 was run
    assert "HV regret" in again.output and "final regret of each run's incumbent" not in again.output
    return out, load_results(out)


def test_run_files_hold_the_benchmarks_vectors_and_front(mo_results):
    out, results = mo_results
    bench = benchmark("nb201-cifar10")
    objectives = parse_objectives(OBJECTIVES)
    assert set(results["objectives"]) == {OBJECTIVES} and results["feasible"].all()
    for _, row in results.sample(10, random_state=0).iterrows():
        arch = bench.space.from_text(row["arch_id"])
        result = bench.query(arch)
        assert np.allclose(row["valid_objectives"], objective_vector(bench, arch, result, objectives, "valid"))
        assert np.allclose(row["test_objectives"], objective_vector(bench, arch, result, objectives, "test"))
        assert row["valid_objectives"][0] == pytest.approx(1 - row["valid_accuracy"])
    for _, run in results.groupby(["optimizer", "seed"]):
        valid = np.stack(run.sort_values("evaluation")["valid_objectives"].to_numpy())
        sizes = [int(non_dominated(valid[:i + 1]).sum()) for i in range(len(valid))]
        assert run.sort_values("evaluation")["front_size"].tolist() == sizes
    recorded = json.loads((out / "settings.json").read_text())
    assert {entry["run_settings"].get("objectives", None) == OBJECTIVES.split(",") for entry in recorded.values()} \
        == {True}


def test_hypervolume_regret_against_the_true_front(mo_results):
    _, results = mo_results
    truth = true_front("nb201-cifar10", OBJECTIVES)
    assert len(truth.points) >= 2 and (np.diff(truth.points[np.argsort(truth.points[:, 0]), 1]) < 0).all()
    scored = front_trajectories(results)
    assert ((scored["hv_regret"] >= 0) & (scored["hv_regret"] <= 1)).all()
    final = final_scores(scored)
    fronts = found_fronts(results)
    assert len(final) == 6
    for row in final.itertuples():
        members = fronts[(fronts["optimizer"] == row.optimizer) & (fronts["seed"] == row.seed)]
        assert len(members) == row.front_size
        found = members[["x", "y"]].to_numpy()
        assert row.hv_regret == pytest.approx(truth.hypervolume_regret(found))
        assert row.igd_plus == pytest.approx(truth.igd_plus(found))
        assert 0 < row.hv_regret < 1  # twenty evaluations do not find the whole true front


def test_settings_hash_names_objectives_and_constraint_only_when_set():
    budget = Budget(seconds=1e7)
    plain = settings_hash("rs", {}, RunSettings(), budget)
    assert plain == "3a68933438"  # tests/test_fingerprint.py's digest: single-objective runs keep theirs
    assert settings_hash("mo-rs", {}, RunSettings(objectives=("error", "latency:pixel3")), budget) != \
        settings_hash("mo-rs", {}, RunSettings(objectives=("error", "latency:pixel2")), budget)
    assert settings_hash("rs", {}, RunSettings(constraint="latency:pixel3<=5"), budget) != plain
    assert RunSettings(constraint="latency: pixel3 <= 5.0") == RunSettings(constraint="latency:pixel3<=5")


def test_constrained_run_keeps_a_feasible_incumbent_and_the_constrained_regret(tmp_path):
    out = tmp_path / "constrained"
    done = invoke("run", "--benchmarks", "nb201-cifar10", "--constraint", "latency: pixel3 <= 3.50", "--optimizers",
                  "rs,re", "--seeds", "2", "--budget", BUDGET, "--caching", "--jobs", "1", "--out", out)
    assert done.exit_code == 0, done.output
    results = load_results(out)
    bench = benchmark("nb201-cifar10")
    best = best_under(bench, "pixel3", 3.5)
    assert 0 < results["feasible"].mean() < 1  # the bound matters for these runs
    assert results["incumbent_id"].isna().any()  # seed 2 starts with infeasible evaluations: no incumbent
    assert results.groupby("optimizer")["incumbent_id"].last().notna().all()
    assert monotone_fronts(results)["regret"].notna().all()  # the report's anytime fronts skip those rows
    assert set(results["constraint"]) == {"latency:pixel3<=3.5"}  # one spelling of the bound, one settings hash
    recorded = json.loads((out / "settings.json").read_text())
    assert {entry["run_settings"]["constraint"] for entry in recorded.values()} == {"latency:pixel3<=3.5"}
    if importlib.util.find_spec("matplotlib") is not None:  # the report's note on constrained runs
        from nasarena.plots.multiobjective_report import constrained_note

        assert "2 run(s) ran under a latency constraint (latency:pixel3&lt;=3.5)" in constrained_note(results)[0]
    feasible_ids = set(results.loc[results["feasible"], "arch_id"])
    for _, row in results.iterrows():
        if pd.isna(row["incumbent_id"]):  # no feasible evaluation yet
            continue
        assert row["incumbent_id"] in feasible_ids
        assert bench.latency(bench.space.from_text(row["incumbent_id"]), "pixel3") <= 4
        expected = best.accuracy - bench.final_test_accuracy(bench.space.from_text(row["incumbent_id"]))
        assert row["incumbent_test_regret"] == pytest.approx(expected)
        assert row["incumbent_test_regret"] >= -1e-12  # never better than the exact constrained optimum


def test_constrained_multiobjective_run_on_two_workers_with_caching(tmp_path, mo_results):
    """The front holds only feasible evaluations; workers and caching take the single-objective paths."""
    out = tmp_path / "both"
    done = invoke("run", "--benchmarks", "nb201-cifar10", "--objectives", "error,latency:raspi4", "--constraint",
                  "latency:pixel3<=5", "--optimizers", "nsga2", "--seeds", "0", "--budget", BUDGET, "--workers", "2",
                  "--caching", "--jobs", "1", "--out", out)
    assert done.exit_code == 0, done.output
    run = load_results(out).sort_values("evaluation")
    assert 0 < run["feasible"].mean() < 1 and run["sim_time"].is_monotonic_increasing
    assert run["arch_id"].is_unique  # caching: each architecture evaluated once
    valid = np.stack(run["valid_objectives"].to_numpy())
    feasible = run["feasible"].to_numpy()
    sizes = [int(non_dominated(valid[:i + 1][feasible[:i + 1]]).sum()) for i in range(len(run))]
    assert run["front_size"].tolist() == sizes
    members = found_fronts(run)
    assert set(members["arch_id"]) <= set(run.loc[run["feasible"], "arch_id"])
    # nsga2 with two settings hashes (two problems) is one configuration in each problem
    both = front_trajectories(pd.concat([mo_results[1], run], ignore_index=True))
    assert both.groupby("problem")["label"].unique().map(sorted).to_dict() == {
        "nb201-cifar10 error,latency:pixel3": ["mo-rs", "nsga2"],
        "nb201-cifar10 error,latency:raspi4 | latency:pixel3<=5": ["nsga2"]}  # its constraint: its own problem


@pytest.mark.parametrize("arguments, message", [
    (("--objectives", "error,latency:pixel9", "--optimizers", "mo-rs"), "unknown device 'pixel9'"),
    (("--benchmarks", "nb101-lite", "--objectives", OBJECTIVES, "--optimizers", "mo-rs"), "no latency data"),
    (("--constraint", "latency:pixel3<=0.001", "--optimizers", "rs"), "no architecture of nb201-cifar10 runs within"),
    (("--objectives", OBJECTIVES, "--optimizers", "re"), "'re' is single-objective"),
    (("--optimizers", "mo-rs"), "'mo-rs' is multi-objective"),
    (("--objectives", "error", "--optimizers", "mo-rs"), "names one objective"),
    (("--constraint", "latency<=3", "--optimizers", "rs"), "bad constraint"),
])
def test_bad_input_is_refused_and_writes_nothing(tmp_path, arguments, message):
    benchmarks = () if "--benchmarks" in arguments else ("--benchmarks", "nb201-cifar10")
    out = tmp_path / "out"
    refused = invoke("run", *benchmarks, *arguments, "--seeds", "0", "--budget", BUDGET, "--out", out)
    assert refused.exit_code == 2, refused.output
    assert "error:" in refused.output and message in refused.output
    assert not out.exists()



def test_report_section_draws_fronts_curves_ecdf_tests_and_the_cross_device_study(mo_results, tmp_path):
    """The report's multi-objective section alone (the whole report draws every single-objective
    figure too, which other tests cover)."""
    pytest.importorskip("matplotlib")
    from nasarena.plots.backend import save_figure
    from nasarena.plots.multiobjective_report import constrained_note, multiobjective_section
    from nasarena.plots.report import _friedman_section

    _, results = mo_results
    names = []

    def add(figure, name, caption):
        names.append(name)
        return str(save_figure(figure, tmp_path / name).png)

    page = "\n".join(multiobjective_section(results, add, _friedman_section))
    assert "constraint" not in results.columns and constrained_note(results) == []
    assert "Multi-objective runs" in page and "Cross-device study" in page
    assert "final full-box hypervolume regret, nb201-cifar10 error,latency:pixel3" in page  # the Friedman test on it
    # the region-of-interest score's figures (hv_regret_roi_*), where the analysis has it, lead each pair
    assert [n for n in names if "_roi_" not in n] == ["pareto_fronts", "hv_regret_vs_time", "hv_regret_ecdf",
                                                      "kendall_nb201-cifar10"]
    assert all((tmp_path / f"{name}.png").is_file() for name in names)
    assert multiobjective_section(results[results["objectives"].isna()], add, _friedman_section) == []
