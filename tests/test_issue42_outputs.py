"""Issue 42 ("tried as a careless user would, round three"), points 1, 2 and 8: `report` and
`analyze` take an unmarked folder as their own only by content they can verify, a report owns its
folder (one results folder per report folder, redrawn without the figures it no longer draws), and
reports of constrained runs no evaluation met or of three objectives are drawn, not a traceback.

Command-line cases run the real command in a subprocess, as a user does: a refusal is exit
status 2 and one ``error:`` line, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from nasarena.errors import OutputError
from nasarena.io.outputs import MARK_FILE, own_folder, writer_lock

ENV = {**os.environ, "OMP_NUM_THREADS": "1", "NASARENA_PROGRESS": "0"}


def command(*arguments) -> list[str]:
    return [sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)]


def nasarena(*arguments, timeout=300):
    return subprocess.run(command(*arguments), capture_output=True, text=True, timeout=timeout, env=ENV)


def assert_ran(result) -> str:
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "Traceback" not in output, output
    return output


def assert_refused(result, *fragments: str) -> str:
    """Exit 2, an ``error:`` line holding every fragment, no traceback."""
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "error:" in output and "Traceback" not in output, output
    for fragment in fragments:
        assert fragment in output, output
    return output


def listing(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Two small results folders of two experiments: NB201 rs (4 seeds, so a subsampled ECDF of 2
    or 3 runs is drawn) and nb101-lite re."""
    base = tmp_path_factory.mktemp("results")
    nb201, lite = base / "nb201-rs", base / "lite-re"
    assert_ran(nasarena("run", "--benchmarks", "nb201-cifar10", "--optimizers", "rs", "--seeds", "0-3",
                        "--max-evaluations", "10", "--jobs", "1", "--out", nb201))
    assert_ran(nasarena("run", "--benchmarks", "nb101-lite", "--optimizers", "re", "--seeds", "0-1",
                        "--max-evaluations", "10", "--jobs", "1", "--out", lite))
    return nb201, lite


def test_point1_report_keeps_a_users_report_html(results, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.html").write_text("<html><body>my own report</body></html>")
    (mine / "notes.txt").write_text("mine")
    before = listing(mine)
    assert_refused(nasarena("report", results[0], "--out", mine), f"--out {mine}", "report.html",
                   "not a file `nasarena report` wrote")
    assert listing(mine) == before and not (mine / MARK_FILE).exists()


@pytest.mark.parametrize("files", [
    {"space_report.html": "<!DOCTYPE html><title>my space notes</title>", "space_analysis.json": '{"accuracy": 0.9}'},
    {"space_analysis.json": '{"benchmark": "mine", "rows": [1, 2]}'},
    {"space_analysis.json": "[1, 2, 3]", "notes.txt": "mine"},
])
def test_point1_analyze_keeps_a_users_space_report_and_analysis_json(tmp_path, files):
    mine = tmp_path / "mine"
    mine.mkdir()
    for name, text in files.items():
        (mine / name).write_text(text)
    named = "space_report.html" if "space_report.html" in files else "space_analysis.json"
    assert_refused(nasarena("analyze", "nb201-cifar10", "--out", mine), f"--out {mine}", named,
                   "not a file `nasarena analyze` wrote")
    assert listing(mine) == {name: text.encode() for name, text in sorted(files.items())}


def test_point1_unmarked_folders_nasarena_wrote_are_recognised_by_their_content(tmp_path):
    """What a nasarena of before the mark wrote (its page, its JSON) still passes; the mark is added."""
    from nasarena.plots import html, report, space_report

    old_report = tmp_path / "old-report"
    old_report.mkdir()
    (old_report / "report.html").write_text(html.page("nasarena report: results", [html.paragraph("x")]))
    own_folder(old_report, "report", {"results": "/r"}, recognised=report.EARLIER_OUTPUT)
    assert json.loads((old_report / MARK_FILE).read_text())["settings"] == {"results": "/r"}
    old_analysis = tmp_path / "old-analysis"
    old_analysis.mkdir()
    (old_analysis / "space_report.html").write_text(html.page("nasarena space analysis: nb201-cifar10", []))
    (old_analysis / "space_analysis.json").write_text(json.dumps({"benchmark": "nb201-cifar10", "seconds": {}}))
    own_folder(old_analysis, "analyze", recognised=space_report.EARLIER_OUTPUT)
    assert (old_analysis / MARK_FILE).exists()
    other_page = tmp_path / "other-page"  # a nasarena page, but of another command
    other_page.mkdir()
    (other_page / "report.html").write_text(html.page("nasarena space analysis: nb201-cifar10", []))
    with pytest.raises(OutputError, match="report.html, which is not a file `nasarena report` wrote"):
        own_folder(other_page, "report", {"results": "/r"}, recognised=report.EARLIER_OUTPUT)


def test_point2_two_reports_started_at_once_into_one_folder_one_is_refused(results, tmp_path):
    out = tmp_path / "report"
    processes = [subprocess.Popen(command("report", folder, "--out", out), stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, env=ENV) for folder in results]
    outputs = [process.communicate(timeout=300)[0] for process in processes]
    codes = [process.returncode for process in processes]
    assert sorted(codes) == [0, 2] and not any("Traceback" in text for text in outputs), outputs
    refused = outputs[codes.index(2)]
    assert f"--out {out} was written by `nasarena report` with other settings (results differ)" in refused
    winner = results[codes.index(0)]
    assert json.loads((out / MARK_FILE).read_text())["settings"] == {"results": str(winner.resolve())}
    figures = {p.name for p in (out / "figures").iterdir()}
    drawn, other = (("nb201-cifar10", "nb101-lite") if winner == results[0] else ("nb101-lite", "nb201-cifar10"))
    assert f"attainment_{drawn}.png" in figures and not any(other in name for name in figures), figures


def test_point2_a_report_owns_its_folder_and_a_redraw_removes_only_its_own_stale_figures(results, tmp_path):
    nb201, lite = results
    out = tmp_path / "report"
    assert_ran(nasarena("report", nb201, "--out", out, "--subsample", "2"))
    figures = out / "figures"
    assert (figures / "final_regret_ecdf_k2_vs_all.png").is_file()
    before = listing(out)
    assert_refused(nasarena("report", lite, "--out", out), "other settings (results differ)")
    assert listing(out) == before  # nothing of the other experiment beside this one's figures
    (figures / "my_plot.png").write_bytes(b"a user's figure")
    (figures / "final_regret_ecdf_k2_vs_all.png").write_bytes(b"a user's own figure saved over ours")
    assert_ran(nasarena("report", nb201, "--out", out, "--subsample", "3"))  # the same results: redrawn
    assert (figures / "final_regret_ecdf_k3_vs_all.png").is_file()
    assert not (figures / "final_regret_ecdf_k2_vs_all.pdf").exists()  # ours, no longer drawn: removed
    assert (figures / "final_regret_ecdf_k2_vs_all.png").read_bytes() == b"a user's own figure saved over ours"
    assert (figures / "my_plot.png").read_bytes() == b"a user's figure"


def test_point2_a_second_report_with_other_options_while_one_is_drawn_is_refused(results, tmp_path):
    nb201 = results[0]
    out = own_folder(tmp_path / "report", "report", {"results": str(nb201.resolve())})
    drawing = {"results": str(nb201.resolve()), "pairs": None, "levels": [50.0], "subsample": 3}
    with writer_lock(out / "report.html", drawing):  # as a `report --subsample 3` drawing now holds it
        assert_refused(nasarena("report", nb201, "--out", out, "--subsample", "2"), "being written right now")
    assert [p.name for p in out.iterdir()] == [MARK_FILE]


def test_point8_report_of_multiobjective_runs_no_evaluation_of_which_met_the_constraint(tmp_path):
    runs, out = tmp_path / "constrained", tmp_path / "report"
    assert_ran(nasarena("run", "--benchmarks", "nb201-cifar10", "--objectives", "error,latency:pixel3",
                        "--constraint", "latency:pixel3<=0.0033", "--optimizers", "mo-rs", "--seeds", "0-1",
                        "--max-evaluations", "10", "--jobs", "1", "--out", runs))
    output = assert_ran(nasarena("report", runs, "--out", out))
    assert "2 run(s) without an incumbent (no evaluation met the constraint)" in output
    page = (out / "report.html").read_text()
    assert "No evaluation met the constraint in these runs" in page and "2 of 2 runs" in page
    assert "scores their fronts as empty (hypervolume regret 1)" in page and "Multi-objective runs" in page
    assert (out / "figures" / "pareto_fronts.png").is_file()


def test_point8_report_of_three_objectives(tmp_path):
    runs, out = tmp_path / "three", tmp_path / "report"
    assert_ran(nasarena("run", "--benchmarks", "nb201-cifar10", "--objectives", "error,latency:pixel3,params",
                        "--optimizers", "mo-rs", "--seeds", "0-1", "--max-evaluations", "10", "--jobs", "1",
                        "--out", runs))
    assert_ran(nasarena("report", runs, "--out", out))
    page = (out / "report.html").read_text()
    assert "projected onto each pair of objectives" in page and "params (" in page  # the lowest-params point
    figures = {p.name for p in (out / "figures").iterdir()}
    assert "pareto_projections_nb201-cifar10-error-latency-pixel3-params.png" in figures
    assert "pareto_fronts.png" not in figures  # no staircase of a three-objective front
