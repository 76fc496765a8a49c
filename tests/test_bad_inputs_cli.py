"""Issue 11's probe of the command line, reproducible: every bad input is one line
``error: ...`` with exit status 2, no traceback and nothing written.

Most cases go through Typer's test runner (the same root group and error handling as the
installed command, in-process and fast); a few run the real ``nasarena`` executable in a
subprocess to prove the entry point behaves the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nasarena import __version__
from nasarena.cli.main import app

NASARENA = Path(sys.executable).with_name("nasarena")


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], env={"NASARENA_PROGRESS": "0"})


def assert_refused(result, *fragments: str) -> str:
    """Exit 2, one ``error:`` line naming what is wrong, no traceback."""
    output = result.output
    assert result.exit_code == 2, output
    assert "error:" in output and "Traceback" not in output, output
    for fragment in fragments:
        assert fragment in output, output
    return output


@pytest.mark.parametrize(("args", "fragments"), [
    (["--budget", "0"], ["--budget", "> 0"]),
    (["--budget", "-1"], ["--budget"]),
    (["--workers", "0"], ["--workers"]),
    (["--workers", "-3"], ["--workers"]),
    (["--max-evaluations", "-5"], ["--max-evaluations", "at least 1"]),
    (["--seeds", "0,0"], ["seed(s) 0 more than once"]),
])
def test_point4_run_refuses_empty_or_repeated_runs(tmp_path, args, fragments):
    out = tmp_path / "results"
    assert_refused(invoke("run", "--out", out, "--seeds", "0", *args), *fragments)
    assert not out.exists()


@pytest.mark.parametrize(("args", "fragments"), [
    (["--budget", "nan"], ["finite"]),
    (["--budget", "inf"], ["finite"]),
    (["--seeds", "0-99999999"], ["100,000,000 seeds"]),
])
def test_point8_run_refuses_endless_budgets_and_huge_grids_at_once(tmp_path, args, fragments):
    out = tmp_path / "results"
    assert_refused(invoke("run", "--out", out, *args), *fragments)
    assert not out.exists()


@pytest.mark.parametrize(("args", "fragments"), [
    (["--benchmark", "nope"], ["unknown benchmark 'nope'", "nb201-cifar10"]),
    (["--set", "re.nope=5"], ["unknown setting 'nope'", "population_size"]),
    (["--set", "re.population_size=abc"], ["population_size", "not a number"]),
    (["--set", "re.population_size=-5"], ["population_size=-5 is too small"]),  # it blamed tournament_size
    (["--jobs", "-1"], ["--jobs"]),
    (["--backend", "dask"], ["unknown backend 'dask'", "process"]),
    (["--seeds", "0-18446744073709551616"], ["outside 0..2^63-1"]),
    (["--benchmark", "nb101"], ["needs --path"]),
    (["--benchmark", "nb101", "--path", "/nonexistent/store"], ["does not exist"]),
])
def test_point11_run_bad_arguments_are_one_line_errors(tmp_path, args, fragments):
    out = tmp_path / "results"
    seeds = [] if "--seeds" in args else ["--seeds", "0"]
    assert_refused(invoke("run", "--out", out, *seeds, *args), *fragments)
    assert not out.exists()  # no settings.json left behind


def test_point11_the_installed_command_reports_errors_the_same_way(tmp_path):
    out = tmp_path / "results"
    env = {**os.environ, "NASARENA_PROGRESS": "0"}
    done = subprocess.run([NASARENA, "run", "--benchmarks", "nope", "--out", out], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("error: unknown benchmark 'nope'")
    assert len(done.stderr.strip().splitlines()) == 1 and not out.exists()


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A small finished experiment (NB201 CIFAR-10, random search and evolution, 2 seeds)."""
    out = tmp_path_factory.mktemp("bad-inputs") / "results"
    result = invoke("run", "--benchmark", "nb201-cifar10", "--optimizers", "rs,re", "--seeds", "0-1",
                    "--budget", "20000", "--jobs", "1", "--out", out)
    assert result.exit_code == 0, result.output
    return out


def copy_of(results: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(results, tmp_path / "copy"))


def first_run_file(results: Path) -> Path:
    return sorted((results / "runs").glob("*.parquet"))[0]


def test_point11_report_on_a_corrupt_settings_file_names_it(results, tmp_path):
    copy = copy_of(results, tmp_path)
    (copy / "settings.json").write_text('{"x": ')
    out = tmp_path / "report"
    assert_refused(invoke("report", copy, "--out", out), "settings.json")
    assert not out.exists()


def test_point11_report_on_a_byte_flipped_run_file_names_it(results, tmp_path):
    copy = copy_of(results, tmp_path)
    damaged = first_run_file(copy)
    content = bytearray(damaged.read_bytes())
    for position in range(len(content) - 40, len(content) - 12):  # the footer: Parquet's metadata
        content[position] ^= 0xFF
    damaged.write_bytes(bytes(content))
    out = tmp_path / "report"
    assert_refused(invoke("report", copy, "--out", out), damaged.name)
    assert not out.exists()


def test_point11_report_on_a_foreign_parquet_file_names_it(results, tmp_path):
    copy = copy_of(results, tmp_path)
    foreign = first_run_file(copy)
    pd.DataFrame({"a": [1, 2]}).to_parquet(foreign)
    out = tmp_path / "report"
    assert_refused(invoke("report", copy, "--out", out), foreign.name)
    assert not out.exists()


def test_point11_report_bad_arguments(results, tmp_path):
    out = tmp_path / "report"
    assert_refused(invoke("report", tmp_path / "missing", "--out", out), "does not exist")
    assert_refused(invoke("report", results, "--out", out, "--level", "150"), "--level")
    assert_refused(invoke("report", results, "--out", out, "--pair", "re"), "--pair")
    assert not out.exists()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert_refused(invoke("report", results, "--out", blocker / "report"), "--out", "cannot create it")
    assert blocker.read_text() == "not a folder"


def test_point11_report_only_reads_the_results_folder(results, tmp_path):
    """A finished results folder is only read, so a read-only one can be reported."""
    before = {p: p.stat().st_mtime_ns for p in results.rglob("*")}
    result = invoke("report", results, "--out", tmp_path / "report")
    assert result.exit_code == 0, result.output
    assert {p: p.stat().st_mtime_ns for p in results.rglob("*")} == before
    # point 18: the same final-regret table as `run`, with units and what evals means
    assert "configuration" in result.output and "fraction of accuracy" in result.output
    assert "mean evals" in result.output and "averaged over runs" in result.output


def test_point18_run_names_units_and_suggests_the_report(results):
    result = invoke("run", "--benchmark", "nb201-cifar10", "--optimizers", "rs,re", "--seeds", "0-1",
                    "--budget", "20000", "--jobs", "1", "--out", results)
    assert result.exit_code == 0, result.output
    assert "0 to run" in result.output and f"nasarena report {results}" in result.output
    assert "fraction of accuracy: 0.01 = 1 percentage point" in result.output
    assert "nb201-cifar10: regret on test accuracy" in result.output


def test_point13_and_14_query_takes_a_row_or_an_architecture_string():
    import nasarena

    bench = nasarena.benchmark("nb201-cifar10")
    text = str(list(bench.space.enumerate())[5])
    by_text = invoke("query", "nb201-cifar10", text, "--fidelity", "200", "--json")
    by_row = invoke("query", "nb201-cifar10", "5", "--fidelity", "200", "--json")
    assert by_text.exit_code == 0 and by_row.exit_code == 0, by_text.output + by_row.output
    values = json.loads(by_text.output)
    assert {k: v for k, v in values.items() if k != "architecture"} == \
        {k: v for k, v in json.loads(by_row.output).items() if k != "architecture"}
    expected = bench.query(5, 200).to_dict()
    assert values["test_accuracy"] == pytest.approx(expected["test_accuracy"])
    assert values["valid_accuracy"] == pytest.approx(expected["valid_accuracy"])
    assert values["final_accuracy"] == pytest.approx(float(bench.final_test_accuracy(5)))


def test_point14_query_refuses_bad_rows_and_fidelities():
    assert_refused(invoke("query", "nb201-cifar10", "15625"), "outside", "15,624")
    assert_refused(invoke("query", "nb201-cifar10", "0", "--fidelity", "7"), "--fidelity 7", "200")
    assert_refused(invoke("query", "nb201-cifar10", "|not_an_op~0|"), "nb201-cifar10")
    assert_refused(invoke("query", "nope", "0"), "unknown benchmark 'nope'")
    assert_refused(invoke("query", "nb101", "0"), "needs --path")
    assert_refused(invoke("query", "nb201-cifar10", "0", "--seed", "-1"), "--seed -1")
    assert_refused(invoke("query", "nb101-lite", '{"matrix": [[0, 1], [0, 0]]}'), "no 'ops' key")


def test_point14_version():
    result = invoke("--version")
    assert result.exit_code == 0 and result.output.strip() == f"nasarena {__version__}"


def test_point14_result_to_dict_is_plain_json():
    import nasarena

    values = nasarena.benchmark("nb201-cifar10").query(5, 200).to_dict()
    assert json.loads(json.dumps(values)) == values
    assert values["fidelity"] == 200 and isinstance(values["modelled"], list)


def test_point11_supernet_bad_scores_files_are_one_line_errors(tmp_path):
    out = tmp_path / "report"
    assert_refused(invoke("supernet", "evaluate", "--scores", tmp_path / "missing.csv", "--out", out), "missing.csv")
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"arch_id": ["|not_an_op~0|", "1"], "10": [0.1, 0.2]}).to_csv(bad, index=False)
    assert_refused(invoke("supernet", "evaluate", "--scores", bad, "--out", out), "bad.csv", "not_an_op")
    assert_refused(invoke("supernet", "evaluate", "--ks", "10,x", "--out", out), "--ks")
    # siblings: the embedded NB201 scores against another space (a shape traceback), an endless cut
    assert_refused(invoke("supernet", "evaluate", "--benchmark", "nb101-lite", "--out", out), "NAS-Bench-201")
    assert_refused(invoke("supernet", "evaluate", "--cluster-threshold", "nan", "--out", out), "--cluster-threshold")
    assert not out.exists()


def help_text(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_point17_supernet_help_shows_brackets():
    assert "[[logit per op] per edge]" in help_text("supernet", "evaluate")


def test_point17_surrogate_fit_help_has_one_runtime_flag():
    text = help_text("surrogate", "fit")
    assert "--no-runtime" in text and "--no-no-runtime" not in text


def test_point17_nb101_stats_prints_the_parameter_range_it_promises():
    """The range of exact trainable parameters over all 423,624 cells: the NB101 paper's extremes
    (227,274 for the smallest network, 49,979,274 for five 3x3 convolutions in a chain)."""
    result = CliRunner().invoke(app, ["nb101", "stats"])
    assert result.exit_code == 0, result.output
    assert "parameter range" in help_text("nb101", "stats")
    assert "parameters:   227,274 (cell 01da1025a8b3a7c0b848adccef93c5a5) to 49,979,274" in result.output


@pytest.mark.parametrize("command", [("run",), ("surrogate", "fit"), ("surrogate", "validate")])
def test_point17_flags_are_plain_switches(command):
    """Siblings of --no-no-runtime: an off-by-default switch has no --no- twin and no "[default: no-...]"."""
    text = help_text(*command)
    assert "--no-" not in text.replace("--no-runtime", "") and "[default: no-" not in text


def test_point15_progress_counts_running_runs_and_shows_an_eta(tmp_path):
    from types import SimpleNamespace

    from nasarena.cli.progress import RunProgress

    a, b = SimpleNamespace(file_name="a.parquet"), SimpleNamespace(file_name="b.parquet")
    progress = RunProgress(2)
    progress.advance_run(a, 0.25)
    progress.advance_run(a, 0.5)
    progress.advance_run(b, 0.25)
    assert progress.completed == pytest.approx(0.75)  # inside long runs, not only when one ends
    progress.finish_run(a)
    progress.advance_run(a, 0.9)  # a late message of a finished run changes nothing
    assert progress.completed == pytest.approx(1.25)

    out = tmp_path / "results"
    env = {**os.environ, "NASARENA_PROGRESS": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([NASARENA, "run", "--benchmark", "nb201-cifar10", "--optimizers", "rs", "--seeds", "0",
                           "--budget", "20000", "--jobs", "1", "--out", out], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "ETA" in done.stderr and "1/1 done" in done.stderr
    assert "\x1b" not in done.stdout and "\r" not in done.stdout  # results stay clean on stdout


@pytest.mark.parametrize("budget", [{"seconds": 0}, {"seconds": -1}, {"seconds": float("nan")},
                                    {"seconds": float("inf")}, {"seconds": 1e5, "evaluations": 0},
                                    {"evaluations": -5}, {"evaluations": 2.5}])
def test_point4_and_8_the_python_api_refuses_empty_and_endless_budgets(budget):
    from nasarena.errors import InvalidSettingError
    from nasarena.runner import Budget

    with pytest.raises(InvalidSettingError, match="budget"):
        Budget(**budget)


@pytest.mark.parametrize("workers", [0, -3])
def test_point4_the_python_api_refuses_no_workers(workers):
    from nasarena.errors import InvalidSettingError
    from nasarena.runner import RunSettings

    with pytest.raises(InvalidSettingError, match="n_workers"):
        RunSettings(n_workers=workers)


def test_point11_surrogate_evaluate_refuses_a_json_path_it_cannot_write(tmp_path):
    assert_refused(invoke("surrogate", "evaluate", "nb201-cifar10-xgb-v1.0", tmp_path / "runs.csv", "--json",
                          tmp_path / "missing" / "metrics.json"), "--json", "does not exist")


@pytest.mark.parametrize(("args", "fragment"), [
    (["--budget", "inf"], "--budget"), (["--sizes", "abc"], "--sizes"), (["--sizes", "0"], "--sizes"),
    (["--curve-members", "0"], "--curve-members"), (["--factor", "nan"], "--factor"), (["--jobs", "-1"], "--jobs"),
])
def test_point8_and_11_surrogate_validate_checks_its_numbers_first(tmp_path, args, fragment):
    """Siblings of run's checks: refused at once, not after the learning curves."""
    out = tmp_path / "validation"
    assert_refused(invoke("surrogate", "validate", "nb201-cifar10-xgb-v1.0", "--out", out, *args), fragment)
    assert not out.exists()
