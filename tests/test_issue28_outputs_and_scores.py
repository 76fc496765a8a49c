"""Issue 28 ("tried as a careless user would"): `surrogate fit | validate`, `supernet evaluate`,
`analyze`, `report` and `benchmarks` keep what nasarena did not write, write strict JSON, name bad
architecture ids, explain a missing --path and validate artefact files in worker processes.

Command-line cases run the real command in a subprocess, as a user does: a refusal is exit
status 2, one ``error:`` line and no traceback (nor a raw numpy warning)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

N201 = 15_625


def nasarena(*arguments, timeout=300):
    return subprocess.run([sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "OMP_NUM_THREADS": "1"})


def assert_refused(result, *fragments: str) -> str:
    """Exit 2, an ``error:`` line holding every fragment, no traceback and no Python warning."""
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "error:" in output and "Traceback" not in output and "Warning" not in output, output
    for fragment in fragments:
        assert fragment in output, output
    return output


def strict_json(text: str):
    """``text`` parsed as JSON proper: a bare NaN or Infinity is an error, as in strict parsers."""
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def artefact(tmp_path_factory, nb201):
    """A small NB201 random-forest surrogate (200 real CIFAR-10 runs, 2 members of 10 trees)."""
    pytest.importorskip("sklearn")
    folder = tmp_path_factory.mktemp("surrogate")
    rows = np.random.default_rng(1).choice(N201, 200, replace=False)
    cells = nb201.space.enumerate()
    pd.DataFrame({"arch": [cells[r].to_string() for r in rows],
                  "valid_accuracy": nb201.mean_over_trials("valid_accuracy")[rows]}).to_csv(folder / "runs.csv",
                                                                                         index=False)
    path = folder / "nb201-rf-v1.0.nsa"
    result = nasarena(*fit_arguments(folder / "runs.csv", path))
    assert result.returncode == 0, result.stderr
    return path


def fit_arguments(data, out) -> list:
    return ["surrogate", "fit", data, "--space", "nb201", "--name", "nb201-rf-v1.0", "--out", out, "--model", "rf",
            "--members", "2", "--set", "n_estimators=10", "--no-runtime"]


# --- point 4: surrogate fit --out -----------------------------------------------------------------

def test_point04_surrogate_fit_keeps_a_file_it_did_not_write_and_replaces_its_own(artefact, tmp_path):
    data = artefact.parent / "runs.csv"
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("three years of work")
    assert_refused(nasarena(*fit_arguments(data, thesis)), "--out", "thesis.txt", "not a surrogate artefact")
    assert thesis.read_text() == "three years of work"
    assert_refused(nasarena(*fit_arguments(data, tmp_path)), "is a folder")
    earlier = tmp_path / "earlier.nsa"
    earlier.write_bytes(artefact.read_bytes())
    result = nasarena(*fit_arguments(data, earlier))  # an earlier artefact may be replaced
    assert result.returncode == 0, result.stderr
    assert not list(tmp_path.glob(".*nasarena-writer"))  # the writer lock is released


def test_point04_save_refuses_a_foreign_file_in_the_python_api(artefact, tmp_path):
    from nasarena.errors import OutputError
    from nasarena.surrogates.artifact import load, save

    data = tmp_path / "data.csv"
    data.write_text("arch,valid_accuracy\n")
    with pytest.raises(OutputError, match="not a surrogate artefact"):
        save(load(artefact), data)
    assert data.read_text() == "arch,valid_accuracy\n"


# --- point 5: folders of supernet evaluate, analyze and report -------------------------------------

def test_point05_supernet_evaluate_keeps_a_users_metrics_csv(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "metrics.csv").write_text("my,metrics\n")
    assert_refused(nasarena("supernet", "evaluate", "--out", mine), "--out", "metrics.csv", "nasarena did not write")
    assert [p.name for p in mine.iterdir()] == ["metrics.csv"] and (mine / "metrics.csv").read_text() == "my,metrics\n"


def test_point05_analyze_and_report_keep_folders_of_someone_else(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    assert_refused(nasarena("analyze", "nb201-cifar10", "--out", mine), "notes.txt", "nasarena did not write")
    results = tmp_path / "results"
    results.mkdir()
    assert_refused(nasarena("report", results, "--out", mine), "notes.txt", "nasarena did not write")
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_point05_folders_written_before_the_mark_are_still_accepted(tmp_path):
    """A report folder of before (report.html) passes the folder check: the command goes on to its
    own error (no finished runs), and the folder keeps its files."""
    from nasarena.plots.html import page

    old = tmp_path / "old-report"
    old.mkdir()
    (old / "report.html").write_text(page("nasarena report: results", []))  # issue 42: recognised by content
    results = tmp_path / "results"
    results.mkdir()
    output = assert_refused(nasarena("report", results, "--out", old), "no finished runs")
    assert "nasarena did not write" not in output and (old / "report.html").exists()
    analysis = tmp_path / "old-analysis"
    analysis.mkdir()
    (analysis / "space_analysis.json").write_text('{"benchmark": "nb201-cifar10", "seconds": {}}')
    output = assert_refused(nasarena("analyze", "nb201-nope", "--out", analysis), "unknown benchmark")
    assert "nasarena did not write" not in output and (analysis / "space_analysis.json").exists()


def test_point05_a_failed_command_leaves_no_folder_it_created(tmp_path):
    out = tmp_path / "new" / "report"
    assert_refused(nasarena("analyze", "nb201-nope", "--out", out), "unknown benchmark")
    assert not (tmp_path / "new").exists()


# --- point 9: surrogate validate against another space; strict JSON -------------------------------

def test_point09_validate_refuses_a_table_of_another_space(artefact, tmp_path):
    out = tmp_path / "validation"
    assert_refused(nasarena("surrogate", "validate", artefact, "--table", "nb101-lite", "--out", out, "--optimizers",
                            "rs", "--seeds", "0", "--budget", "2e4"), "nb101-lite", "nb101", "nb201-rf-v1.0", "nb201")
    assert not out.exists()


def test_point09_the_summary_is_strict_json_with_null_for_undefined_numbers(tmp_path):
    from nasarena.plots.surrogate_validation import ValidationSummary, optimizer_ranking_tau, write_summary

    tied = {"rs": {"surrogate": 0.1, "table": 0.2}, "re": {"surrogate": 0.1, "table": 0.3}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tau = optimizer_ranking_tau(tied)
    assert np.isnan(tau)
    summary = ValidationSummary("s", "t", 1.0, [0], ["rs", "re"], [], tied, tau,
                                learning_curve=[{"mae": np.float64("inf"), "n": np.int64(3)}])
    write_summary(summary, tmp_path / "summary.json")
    loaded = strict_json((tmp_path / "summary.json").read_text())
    assert loaded["kendall_tau_of_optimizer_ranking"] is None and loaded["learning_curve"] == [{"mae": None, "n": 3}]


# --- point 10: non-finite and missing supernet scores ---------------------------------------------

def scores_file(path, **columns):
    pd.DataFrame({"arch_id": np.arange(N201), **columns}).to_csv(path, index=False)
    return path


def test_point10_infinite_and_missing_scores_are_refused_by_architecture_id(tmp_path):
    rng = np.random.default_rng(0)
    infinite = scores_file(tmp_path / "inf.csv", **{"10": np.full(N201, np.inf), "20": rng.random(N201)})
    assert_refused(nasarena("supernet", "evaluate", "--scores", infinite, "--out", tmp_path / "a"),
                   "inf.csv", "checkpoint 10", "arch_id 0, 1, 2, 3, 4 and 15,620 more", "not a finite score")
    assert not (tmp_path / "a").exists()


def test_point10_missing_scores_are_named_by_architecture_id(tmp_path):
    from nasarena.analysis.supernet import read_scores

    pd.DataFrame({"arch_id": range(12), "10": np.arange(12.0), "20": [np.nan if i in (7, 9) else i for i in
                                                                      range(12)]}).to_csv(tmp_path / "nan.csv",
                                                                                         index=False)
    with pytest.raises(ValueError, match="checkpoint 20, arch_id 7, 9: no score"):
        read_scores(tmp_path / "nan.csv", 12)
    pd.DataFrame({"arch_id": [0, 1, 2], "10": [0.1, np.nan, 0.3], "20": [0.2, np.nan, np.nan]}).to_csv(
        tmp_path / "sample.csv", index=False)
    with pytest.raises(ValueError, match="arch_id 1: no score at any checkpoint"):
        read_scores(tmp_path / "sample.csv", 5, complete=False)


def test_point10_constant_scores_give_undefined_correlations_without_warnings():
    from nasarena.analysis.supernet import SupernetScores, correlations, evaluate_checkpoints
    from nasarena.plots.supernet_report import format_correlation

    true = np.random.default_rng(0).random(50)
    scores = SupernetScores(("10", "20"), np.vstack([np.full(50, 0.5), true]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metrics = evaluate_checkpoints(true, scores, ks=(5, 10))
    spearman = metrics[(metrics.metric == "spearman") & (metrics.parameter == "all")]["value"].tolist()
    assert np.isnan(spearman[0]) and spearman[1] == pytest.approx(1.0)
    assert format_correlation(spearman[0]) == "undefined (constant scores)" and format_correlation(0.5) == "+0.500"
    with pytest.raises(ValueError, match=r"not finite \(NaN or inf\) at architecture\(s\) 3"):
        correlations(true, np.where(np.arange(50) == 3, np.inf, true))


# --- point 12: analyze's --out checked before the work --------------------------------------------

def test_point12_analyze_refuses_a_file_or_a_folder_below_a_file_at_once(tmp_path):
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("keep")
    assert_refused(nasarena("analyze", "nb201-cifar10", "--out", thesis), "--out", "thesis.txt", "is a file")
    assert_refused(nasarena("analyze", "nb201-cifar10", "--out", thesis / "sub"), "--out", "thesis.txt/sub",
                   "cannot create it")
    assert thesis.read_text() == "keep"


# --- point 13: benchmarks read from files need --path ---------------------------------------------

@pytest.mark.parametrize(("command", "name", "meaning"), [
    ("analyze", "nb101", "nasarena nb101 import"), ("analyze", "surrogate", "nasarena surrogate fit"),
    ("benchmarks", "nb101", "nasarena nb101 import"), ("benchmarks", "surrogate", "nasarena surrogate fit"),
])
def test_point13_a_benchmark_read_from_files_says_that_it_needs_path(command, name, meaning, tmp_path):
    out = ["--out", tmp_path / "out"] if command == "analyze" else []
    assert_refused(nasarena(command, name, *out), f"benchmark {name} needs --path", meaning)
    assert not (tmp_path / "out").exists()


def test_point13_a_path_for_a_benchmark_that_reads_none_is_refused():
    assert_refused(nasarena("benchmarks", "nb201-cifar10", "--path", "x"), "reads no --path", "nb101", "surrogate")


# --- point 14: surrogate validate of a file with worker processes ---------------------------------

def test_point14_validate_an_artefact_file_with_two_worker_processes(artefact, tmp_path):
    out = tmp_path / "validation"
    result = nasarena("surrogate", "validate", artefact, "--table", "nb201-cifar10", "--out", out, "--optimizers",
                      "rs", "--seeds", "0-1", "--budget", "2e4", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert "unknown benchmark" not in result.stderr and "Traceback" not in result.stderr
    assert "Kendall tau of the optimizers' ranking, surrogate vs table: undefined" in result.stdout  # one optimizer
    summary = strict_json((out / "summary.json").read_text())  # point 9: null, not NaN
    assert summary["surrogate"] == "nb201-rf-v1.0" and summary["kendall_tau_of_optimizer_ranking"] is None
    assert 0 <= summary["final_mean_regret"]["rs"]["surrogate"] < 1
    runs = sorted(p.name.split("__")[0] for p in (out / "trajectories" / "runs").glob("*.parquet"))
    assert runs == ["nb201-cifar10"] * 2 + ["surrogate"] * 2  # the artefact's runs name its loader (and path)
    # another artefact must not take over these runs (they are named "surrogate" whatever the file)
    other = tmp_path / "other.nsa"
    assert nasarena(*fit_arguments(artefact.parent / "runs.csv", other), "--seed", "1").returncode == 0
    assert_refused(nasarena("surrogate", "validate", other, "--table", "nb201-cifar10", "--out", out,
                            "--optimizers", "rs", "--seeds", "0", "--budget", "2e4"), "other settings")


def test_point14_a_validation_that_fails_leaves_no_output_folder(artefact, tmp_path, monkeypatch):
    import nasarena.plots.surrogate_validation as validation
    import nasarena.runner.experiment as experiment

    def broken(*args, **kwargs):
        raise RuntimeError("drawing failed")

    plan = validation.ValidationPlan(optimizers=("rs",), seeds=(0,), budget_seconds=2e4)
    with monkeypatch.context() as patch:
        patch.setattr(experiment, "run_experiment", broken)  # before any run is written
        out = tmp_path / "new" / "validation"
        with pytest.raises(RuntimeError, match="drawing failed"):
            validation.validate(str(artefact), out, plan, table="nb201-cifar10")
        assert not (tmp_path / "new").exists()
    # a failure after runs are written keeps them (never delete finished work): the same call resumes
    with monkeypatch.context() as patch:
        patch.setattr(validation, "_figures", broken)
        with pytest.raises(RuntimeError, match="drawing failed"):
            validation.validate(str(artefact), out, plan, table="nb201-cifar10")
    runs = sorted((out / "trajectories" / "runs").glob("*.parquet"))
    assert len(runs) == 2
    before = [run.stat().st_mtime_ns for run in runs]
    validation.validate(str(artefact), out, plan, table="nb201-cifar10")
    assert [run.stat().st_mtime_ns for run in runs] == before


# --- point 15: out-of-range architecture ids ------------------------------------------------------

def test_point15_an_out_of_range_id_is_named_with_the_valid_range(tmp_path):
    scores = pd.DataFrame({"arch_id": [*range(N201 - 1), N201], "10": np.random.default_rng(0).random(N201)})
    scores.to_csv(tmp_path / "scores.csv", index=False)
    output = assert_refused(nasarena("supernet", "evaluate", "--scores", tmp_path / "scores.csv", "--out",
                                     tmp_path / "out"), "15625", "0..15624")
    assert "missing" not in output


def test_point15_several_bad_ids_are_counted_and_text_ids_named(tmp_path):
    from nasarena.analysis.supernet import read_scores

    pd.DataFrame({"arch_id": [0, 1, 2, -1, 7, 8, 9, 10, 11, 2.5], "e": np.arange(10.0)}).to_csv(
        tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match=r"7 arch_id value\(s\) outside the valid range 0..2 .*-1, 2.5, 7, 8, 9 "
                                         r"and 2 more"):
        read_scores(tmp_path / "bad.csv", 3)
    pd.DataFrame({"arch_id": ["0", "one"], "e": [0.1, 0.2]}).to_csv(tmp_path / "text.csv", index=False)
    with pytest.raises(ValueError, match=r"arch_id 'one': not an architecture id \(use whole numbers in the valid "
                                         r"range 0..1"):
        read_scores(tmp_path / "text.csv", 2)
