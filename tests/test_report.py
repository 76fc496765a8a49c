"""The HTML report and its figures: self-contained, complete, honest about partial experiments,
and one colour per configuration in every figure."""

import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from typer.testing import CliRunner  # noqa: E402

from nasarena.analysis import attainment, curves, ecdf, trajectories  # noqa: E402
from nasarena.analysis.anytime import run_hypervolumes  # noqa: E402
from nasarena.cli.main import app  # noqa: E402
from nasarena.plots import attainment as attainment_plots  # noqa: E402
from nasarena.plots import curves as curve_plots  # noqa: E402
from nasarena.plots import ecdfs as ecdf_plots  # noqa: E402
from nasarena.plots import hypervolume as hypervolume_plots  # noqa: E402
from nasarena.plots.backend import require_matplotlib  # noqa: E402
from nasarena.plots.report import write_report  # noqa: E402
from nasarena.plots.style import KNOWN_COLOURS, Style  # noqa: E402
from nasarena.runner import Budget  # noqa: E402
from nasarena.runner.experiment import RUNS_DIR, grid, load_results, run_experiment  # noqa: E402

OPTIMIZERS = ("rs", "re")
SEEDS = 4


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """A small finished experiment: rs and re, 4 seeds each, on nb101-lite."""
    out = tmp_path_factory.mktemp("experiment")
    run_experiment(grid(["nb101-lite"], OPTIMIZERS, range(SEEDS), Budget(seconds=3e6)), out, jobs=2)
    return out


@pytest.fixture(scope="module")
def report(experiment, tmp_path_factory):
    return write_report(experiment, tmp_path_factory.mktemp("report"))


def copy_without(experiment, tmp_path, pattern):
    """A copy of the experiment with the run files matching ``pattern`` removed."""
    copy = tmp_path / "copy"
    shutil.copytree(experiment, copy)
    for path in (copy / RUNS_DIR).glob(pattern):
        path.unlink()
    return copy


def configuration_runs(html: str) -> dict[str, int]:
    """Runs per configuration, read from the report's configuration table."""
    table = html[html.index("<h2>What was run</h2>"):html.index("<h2>Final quality</h2>")]
    header = re.findall(r"<th>([^<]*)</th>", table)
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr><td.*?</tr>", table)]
    return {cells[header.index("configuration")]: int(cells[header.index("runs")]) for cells in rows}


def test_report_is_self_contained_and_names_every_configuration_with_its_runs(report):
    html = report.read_text()
    assert report.name == "report.html" and report.exists()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", html, re.IGNORECASE)
    assert "<link" not in html and "<script" not in html
    sources = re.findall(r'<img src="([^"]*)"', html)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)
    assert configuration_runs(html) == {name: SEEDS for name in OPTIMIZERS}
    for section in ("Final quality", "Anytime performance", "Statistical tests", "Versions", "Friedman",
                    "Wilcoxon", "matplotlib", "moocore", "Generated"):
        assert section in html


def test_every_figure_is_written_as_png_and_pdf_and_embedded(report):
    folder = report.parent / "figures"
    pngs = sorted(p.stem for p in folder.glob("*.png"))
    assert pngs == sorted(p.stem for p in folder.glob("*.pdf"))
    for name in ("final_regret_ecdf", "final_regret_ecdf_k2_vs_all", "regret_vs_time", "regret_vs_evaluations",
                 "hypervolume_gap_boxplots", "attainment_nb101-lite"):
        assert name in pngs
    assert len([p for p in pngs if p.startswith("eaf_nb101-lite_")]) == 1  # best vs the other
    for stem in pngs:
        assert (folder / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (folder / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"
    assert report.read_text().count("<img ") == len(pngs)


def test_a_partial_experiment_reports_the_runs_each_configuration_has(experiment, tmp_path):
    partial = copy_without(experiment, tmp_path, "*__re__*seed000001.parquet")
    html = write_report(partial, tmp_path / "report").read_text()
    assert configuration_runs(html) == {"rs": SEEDS, "re": SEEDS - 1}
    assert "Partial experiment" in html
    assert "over 3 seeds finished by every configuration" in html


def test_one_configuration_gets_a_report_without_comparisons(experiment, tmp_path):
    single = copy_without(experiment, tmp_path, "*__re__*")
    report = write_report(single, tmp_path / "report")
    html = report.read_text()
    assert configuration_runs(html) == {"rs": SEEDS}
    assert "Not computed: only one configuration" in html
    assert not list((report.parent / "figures").glob("eaf_*"))


def test_one_run_per_configuration_gets_a_report_without_statistics(experiment, tmp_path):
    single_runs = copy_without(experiment, tmp_path, "*seed00000[1-9].parquet")
    report = write_report(single_runs, tmp_path / "report")
    html = report.read_text()
    assert configuration_runs(html) == {name: 1 for name in OPTIMIZERS}
    assert "Not computed: needs at least 2" in html
    # RE starts from random samples, so one run of each can have the same front as RS: then no plot, a note
    assert list((report.parent / "figures").glob("eaf_*.png")) or "identical (time, regret) fronts" in html


def test_unknown_pairs_are_refused(experiment, tmp_path):
    with pytest.raises(ValueError, match="smac"):
        write_report(experiment, tmp_path, pairs=[("re", "smac")])


def test_style_gives_a_label_the_same_colour_whatever_else_is_drawn():
    small, large = Style.for_labels(["rs", "re"]), Style.for_labels(["zeta", "re", "alpha", "rs", "re[abc]"])
    assert small.of("re").colour == large.of("re").colour == KNOWN_COLOURS["re"]
    assert Style.for_labels(["zeta", "alpha", "rs"]) == Style.for_labels(["rs", "alpha", "zeta"])
    colours = [large.of(name).colour for name in large.labels]
    assert len(set(colours)) == len(colours)
    many = Style.for_labels([f"optimizer{i}" for i in range(40)])
    assert len({(many.of(name).colour, many.of(name).dashes) for name in many.labels}) == 40  # colours repeat
    # only with another dash pattern
    with pytest.raises(KeyError, match="no style"):
        small.of("ls")


def test_every_figure_draws_a_configuration_in_its_style_colour(experiment):
    from matplotlib.colors import to_hex

    results = load_results(experiment)
    style = Style.for_labels(["rs", "re", "ls"])  # ls is absent from the data: colours must not shift
    rng = np.random.default_rng(0)
    surfaces = pd.concat([attainment.attainment_surfaces(results, n).assign(label=n) for n in OPTIMIZERS])
    figures = [
        curve_plots.regret_over_time(curves.incumbent_curves(results), style),
        curve_plots.regret_over_evaluations(curves.incumbent_curves(results, axis="evaluations"), style),
        ecdf_plots.final_regret_ecdf(ecdf.final_regret_ecdfs(results), style),
        ecdf_plots.repetition_ecdfs(ecdf.repetition_subsamples(results, 2, rng), style),
        attainment_plots.attainment_surfaces_figure(surfaces, style),
    ]
    for figure in figures:
        legend = figure.legends[0]
        drawn = {text.get_text(): to_hex(handle.get_color()) for text, handle in
                 zip(legend.get_texts(), legend.legend_handles) if text.get_text() in OPTIMIZERS}
        assert drawn == {name: to_hex(style.of(name).colour) for name in OPTIMIZERS}
    difference = attainment_plots.eaf_difference_figure(
        attainment.eaf_difference(results, "re", "rs"), surfaces[surfaces["label"] == "re"],
        surfaces[surfaces["label"] == "rs"], "re", "rs", style)
    legend = difference.legends[0]
    assert [to_hex(h.get_color()) for h in legend.legend_handles] == [to_hex(style.of(n).colour) for n in ("re", "rs")]
    boxes = hypervolume_plots.hypervolume_gap_boxplots(run_hypervolumes(results), style)
    axis = boxes.axes[0]
    names = [t.get_text().split(" ")[0] for t in axis.get_yticklabels()]
    faces = [to_hex(p.get_facecolor(), keep_alpha=False) for p in axis.patches]
    assert faces == [to_hex(style.of(name).colour) for name in names]


def test_cli_writes_the_report_and_prints_the_headline(experiment, tmp_path):
    result = CliRunner().invoke(app, ["report", str(experiment), "--out", str(tmp_path), "--pair", "rs:re",
                                      "--level", "25", "--level", "75", "--subsample", "3"])
    assert result.exit_code == 0, result.output
    assert str(tmp_path / "report.html") in result.output
    final = trajectories.final_results(load_results(experiment))
    for name in OPTIMIZERS:
        mean = final.loc[final["label"] == name, "incumbent_test_regret"].mean()
        assert re.search(rf"nb101-lite\s+{name}\s+{SEEDS}\s+{mean:.5f}", result.output)
    figures = {p.name for p in (tmp_path / "figures").glob("*.png")}
    assert {"eaf_nb101-lite_rs_vs_re.png", "final_regret_ecdf_k3_vs_all.png"} <= figures
    assert "25%, 75% attainment surfaces" in (tmp_path / "report.html").read_text()


def test_cli_refuses_a_malformed_pair(experiment, tmp_path):
    result = CliRunner().invoke(app, ["report", str(experiment), "--out", str(tmp_path), "--pair", "rs"])
    assert result.exit_code != 0


def test_importing_nasarena_and_the_report_does_not_load_matplotlib():
    code = "import sys, nasarena, nasarena.plots.report, nasarena.cli.main; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_matplotlib_says_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"nasarena\[plots\]"):
        require_matplotlib()


def test_rank_tables_by_setup_and_by_optimizer(tmp_path):
    from nasarena.plots.report import write_report
    from nasarena.runner import Budget, RunSettings
    from nasarena.runner.experiment import grid, run_experiment

    out = tmp_path / "setups"
    for settings in (RunSettings(), RunSettings(caching=True)):
        run_experiment(grid(["nb101-lite"], ["rs", "re"], range(3), Budget(seconds=2e6), run_settings=settings), out,
                       jobs=1)
    page = write_report(out, tmp_path / "report")
    html = page.read_text()
    assert "Tables I and II" in html
    assert "anytime performance grouped by setup" in html and "anytime performance grouped by optimizer" in html
    assert "<td>C</td>" in html and "<td>O</td>" in html
    # Table I both ways and Fig. 3 (boxplots by setup); no paper values beside a grid on nb101-lite (issue 38,
    # tests/test_issue38_paper_values.py shows them beside the presets' runs), a line says why
    assert "final quality (Table I) grouped by setup" in html and "final quality (Table I) grouped by optimizer" in html
    assert "SMAC (23)" not in html and "these runs are on nb101-lite." in html
    final = trajectories.final_results(load_results(out))
    area = final[(final["optimizer"] == "re") & (final["setup"] == "C")]["incumbent_test_regret"].mean() * 1e4
    assert re.search(rf"<td>re</td><td>[^<]*C\*? \({area:.0f}\)", html)
    assert (page.parent / "figures" / "hypervolume_gap_by_setup_nb101-lite.png").exists()
    # setups in the paper's order, O before C, in Table I and Table II (they were alphabetical)
    for caption in ("final quality (Table I) grouped by setup", "anytime performance grouped by setup"):
        at = html.index(caption)
        table = html[html.rindex("<table", 0, at):html.index("</table>", at)]
        assert table.index("<td>O</td>") < table.index("<td>C</td>")
    assert "anytime paper, Fig. 3" in html


def test_a_report_on_nb101_lite_says_above_its_first_figure_that_validation_and_test_are_one_draw(report):
    from html import escape

    from nasarena.benchmarks.nb101 import LITE_SAME_DRAW

    html = report.read_text()
    assert escape(LITE_SAME_DRAW) in html
    assert html.index(escape(LITE_SAME_DRAW)) < html.index("<img")


def test_point18_report_says_units_settings_best_architectures_and_setup_codes(report, experiment):
    html = report.read_text()
    assert "fraction of accuracy: 0.01 = 1 percentage point" in html
    assert "nb101-lite: regret on test accuracy" in html
    what_was_run = html[html.index("<h2>What was run</h2>"):html.index("<h2>Final quality</h2>")]
    assert "{" not in what_was_run  # run settings as table columns, not raw JSON
    assert "<th>workers</th><th>caching</th><th>optimizer time counted</th>" in what_was_run
    assert "Setup codes" in html and "O: original" in html
    best = html[html.index("best architecture found"):]
    final = trajectories.final_results(load_results(experiment))
    for name in OPTIMIZERS:
        runs = final[final["label"] == name]
        assert str(runs.loc[runs["incumbent_test_regret"].idxmin(), "incumbent_id"]) in best


def test_point18_surrogate_report_never_says_test_regret(experiment, tmp_path):
    """On a surrogate benchmark regret is on modelled validation accuracy: no "test regret" anywhere."""
    copy = copy_without(experiment, tmp_path, "*seed00000[23]*")
    for path in (copy / RUNS_DIR).glob("*.parquet"):
        pd.read_parquet(path).assign(benchmark="nb201-cifar10-xgb-v1.0").to_parquet(path)
    html = write_report(copy, tmp_path / "report").read_text()
    assert "test regret" not in html.lower()
    assert "regret on modelled validation accuracy" in html


def test_point18_hypervolumes_print_with_enough_digits_to_differ():
    from nasarena.plots.report import _distinct

    assert _distinct(pd.Series([1.999312, 1.999347, 1.999312])) == ["1.99931", "1.99935", "1.99931"]
    assert _distinct(pd.Series([0.5, 0.25])) == ["0.5", "0.25"]


def test_point18_coinciding_curves_stay_visible_and_the_legend_holds_only_configurations(experiment):
    style = Style.for_labels(OPTIMIZERS)
    assert style.of("rs").dashes != style.of("re").dashes and style.of("rs").marker != style.of("re").marker
    figure = curve_plots.regret_over_time(curves.incumbent_curves(load_results(experiment)), style)
    legend = figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == sorted(OPTIMIZERS)
    assert "median" in legend.get_title().get_text()
    drawn = [line for line in figure.axes[0].get_lines() if line.get_marker() not in (None, "None", "")]
    assert {line.get_marker() for line in drawn} == {style.of(n).marker for n in OPTIMIZERS}


def test_point18_one_tick_format_on_every_log_axis():
    from nasarena.plots.axes import tick_label

    assert [tick_label(v) for v in (0.001, 0.005, 0.1, 1000, 10000, 100000)] == \
        ["0.001", "0.005", "0.1", "1000", "10000", "100000"]
    assert tick_label(1e7) == "$10^{7}$" and tick_label(1e-5) == "$10^{-5}$"


def test_point11_a_report_that_fails_part_way_writes_nothing(experiment, tmp_path, monkeypatch):
    import nasarena.plots.report as report_module

    def broken(*args, **kwargs):
        raise RuntimeError("drawing failed")

    monkeypatch.setattr(report_module, "hypervolume_gap_boxplots", broken)  # after several figures are drawn
    out = tmp_path / "report"
    with pytest.raises(RuntimeError, match="drawing failed"):
        write_report(experiment, out)
    assert list(tmp_path.iterdir()) == []  # no report folder, no staging folder left behind
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(RuntimeError):
        write_report(experiment, out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_the_report_says_which_mutation_rule_evolution_used(report):
    html = report.read_text()
    what_was_run = html[html.index("<h2>What was run</h2>"):html.index("<h2>Final quality</h2>")]
    assert "mutation" in what_was_run and "paper" in what_was_run  # re's default rule, recorded though not set


def test_runs_stopped_on_the_evaluation_cap_before_the_time_budget_are_said_with_the_time_they_spent(report, tmp_path):
    """Issue 17 proof runs: cached RE of the anytime presets used up its 100,000-query cap at 41 % of
    the 1e7 s budget on average (a converged population re-queries cached cells for free), and the
    report showed only "1e+07 s simulated or 100000 evaluations", as if the runs had spent the budget."""
    from nasarena.cli.summary import print_final_regret

    out = tmp_path / "capped"
    run_experiment(grid(["nb101-lite"], ["rs"], range(2), Budget(seconds=3e6, evaluations=30)), out, jobs=1)
    run_experiment(grid(["nb101-lite"], ["re"], range(2), Budget(seconds=1e5)), out, jobs=1)
    final = trajectories.final_results(load_results(out))
    rs_time = final[final["optimizer"] == "rs"]["sim_time"].mean()
    assert rs_time < 3e6 / 10  # 30 evaluations are far from 3e6 s: the cap stopped them
    html = write_report(out, tmp_path / "report").read_text()
    what_was_run = html[html.index("<h2>What was run</h2>"):html.index("<h2>Final quality</h2>")]
    note = re.search(r"Stopped on the evaluation cap before spending the time budget: ([^<]*)", what_was_run)
    assert note is not None
    assert f"nb101-lite rs: 2 of 2 runs (their mean time spent {rs_time:.3g} s" in note.group(1)
    assert "re:" not in note.group(1)  # re spent its budget (no cap)
    assert "mean time spent (s)" in what_was_run and f">{rs_time:.3g}</td></tr>" in what_was_run
    assert "Stopped on the evaluation cap" not in report.read_text()  # no cap, no note
    lines = []
    import typer
    original = typer.echo
    try:
        typer.echo = lambda text="", **kwargs: lines.append(str(text))
        print_final_regret(load_results(out))
    finally:
        typer.echo = original
    assert "mean time" in lines[1]
    assert any(line.split()[1] == "rs" and line.split()[-1] == f"{rs_time:.3g}" for line in lines[2:4])
    # columns stay aligned when a label carries a settings hash (re[...] is 14 characters, irace[...] 17)
    lines.clear()
    try:
        typer.echo = lambda text="", **kwargs: lines.append(str(text))
        print_final_regret(load_results(out).assign(optimizer="irace[8eaea6228a]"))
    finally:
        typer.echo = original
    assert len({len(line) for line in lines[1:-1]}) == 1, lines
    # one run of two at the cap: the capped time is that run's, not the mean of both
    from nasarena.plots.experiment_info import describe_experiment

    results = load_results(out)
    results = results[~((results["optimizer"] == "rs") & (results["seed"] == 1) & (results["evaluation"] >= 10))]
    (rs,) = [c for c in describe_experiment(out, results).configurations if c.optimizer == "rs"]
    seed0 = final[(final["optimizer"] == "rs") & (final["seed"] == 0)]["sim_time"].item()
    assert rs.capped_runs == 1 and rs.capped_seconds == pytest.approx(seed0) and rs.mean_seconds < seed0
