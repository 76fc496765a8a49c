"""Issue 40, point 5: the report of multi-objective runs leads with what they were run for.

Tried as a new user would, the report of 20 multi-objective runs opened with single-objective
tables, set the anytime paper's Table I (an NB101 study) beside NB201 fronts, spent most of the
Pareto-front figure on the degenerate cell at 0.9 error, let tables overflow a 1,280-pixel window,
and drew a 27 x 27 Kendall matrix whose labels could not be read. Now the report of such runs
opens with the true and found fronts (zoomed on the accurate region, the whole front beside), the
scores over time (the region-of-interest score first, the full-box one beside it, each caption
naming its score) and their statistics; the single-objective views come after, headed as such,
and nothing of another paper's study appears; every table fits the page; the matrix is grouped by
kind of device with labels a reader can read."""

from __future__ import annotations

import re
import struct

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from typer.testing import CliRunner  # noqa: E402

from nasarena.analysis.multiobjective import found_fronts, true_front  # noqa: E402
from nasarena.benchmarks import benchmark  # noqa: E402
from nasarena.benchmarks.latency import device_setting  # noqa: E402
from nasarena.cli.main import app  # noqa: E402
from nasarena.plots import html  # noqa: E402
from nasarena.plots import multiobjective_report as section  # noqa: E402
from nasarena.plots.backend import save_figure  # noqa: E402
from nasarena.plots.fronts import LABEL_SIZE, kendall_heatmap, pareto_fronts_figure  # noqa: E402
from nasarena.plots.report import _friedman_section, write_report  # noqa: E402
from nasarena.runner.experiment import load_results  # noqa: E402

PROBLEM = "nb201-cifar10 error,latency:pixel3"
#: The default region of interest of the scores: errors at most 5 points above the true front's best.
REGION = 0.05
#: The window the report must fit, less a scroll bar.
WINDOW = 1280 - 20


@pytest.fixture(scope="module")
def mo_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("issue40") / "results"
    ran = CliRunner().invoke(app, ["run", "--benchmarks", "nb201-cifar10", "--objectives", "error,latency:pixel3",
                                   "--optimizers", "mo-rs,nsga2", "--seeds", "0-2", "--budget", "3e4", "--jobs", "1",
                                   "--out", str(out)], env={"NASARENA_PROGRESS": "0"})
    assert ran.exit_code == 0, ran.output
    return out


@pytest.fixture(scope="module")
def page(mo_results, tmp_path_factory):
    return write_report(mo_results, tmp_path_factory.mktemp("issue40") / "report").read_text()


def figure_at(page: str, name: str) -> int:
    """Where the page embeds the figure saved as ``figures/NAME.png`` (its caption names the file)."""
    return page.index(f"Files: figures/{name}.png")


def test_a_multiobjective_report_opens_with_the_fronts_then_scores_then_single_objective_views(page):
    headings = re.findall(r"<h2>(.*?)</h2>", page)
    assert headings == ["Multi-objective runs", "What was run", "Single-objective views of the same runs",
                        "Final quality (single-objective view)", "Anytime performance (single-objective view)",
                        "Statistical tests (single-objective view)", "Versions"]
    order = [page.index("<h2>Multi-objective runs</h2>"), page.index("<h3>True and found fronts</h3>"),
             figure_at(page, "pareto_fronts"), page.index("<h3>Scores over time</h3>"),
             figure_at(page, "hv_regret_vs_time"), page.index("<h3>Final scores and their statistics</h3>"),
             page.index("final full-box hypervolume regret: median (25-75 %)"), figure_at(page, "hv_regret_ecdf"),
             page.index(f"Friedman test and Nemenyi ranks: final full-box hypervolume regret, {PROBLEM}"),
             page.index("<h3>Cross-device study</h3>"), page.index("<h2>What was run</h2>"),
             page.index("<h2>Single-objective views of the same runs</h2>"), figure_at(page, "final_regret_ecdf"),
             figure_at(page, "regret_vs_time")]
    assert order == sorted(order)
    first_figure = page.index("<figure>")
    assert first_figure > page.index("<h3>True and found fronts</h3>")
    assert page.index("<table") > first_figure  # no table before the fronts
    assert "most accurate feasible evaluation" in page  # the views say what they score


def test_nothing_of_another_papers_study_appears(page):
    text = page.replace("&#x27;", "'")
    for fragment in ("Table I", "SMAC (23)", "SMAC 23", "anytime paper", "NAS-Bench-101 Fig", "NAS-Bench-1Shot1",
                     "Setup codes", "How this Table I stands"):
        assert fragment not in text, fragment


def test_every_table_fits_a_1280_pixel_window(page):
    css = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    body = float(re.search(r"body \{[^}]*max-width: ([\d.]+)rem", css).group(1)) * 16
    padding = float(re.search(r"body \{[^}]*padding: 0 ([\d.]+)rem", css).group(1)) * 16
    assert body + 2 * padding <= WINDOW
    assert re.search(r"\ntable \{[^}]*max-width: 100%", css)  # never wider than the page
    assert re.search(r"th, td \{[^}]*overflow-wrap: anywhere", css)  # a long word (an NB201 cell) wraps
    tables = re.findall(r"<table[^>]*>.*?</table>", page, re.S)
    assert len(tables) > 10
    for table in tables:
        columns = len(re.findall(r"<th>", table.split("</tr>", 1)[0]))
        assert columns <= html.MAX_COLUMNS
        assert table.startswith('<table class="wide">') == (columns > html.WIDE_COLUMNS)
        assert natural_width(table) <= body, table[:300]


def natural_width(table: str) -> float:
    """An upper estimate of the pixels a table needs without breaking a word outside code cells
    (which wrap anywhere): per column its longest word at 0.6 em a character, plus padding."""
    wide = table.startswith('<table class="wide">')
    em, padding = 16 * (0.78 if wide else 0.88), 16 * 2 * (0.35 if wide else 0.6)
    longest: dict[int, int] = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S):
        for k, (kind, text) in enumerate(re.findall(r"<t[hd]([^>]*)>(.*?)</t[hd]>", row, re.S)):
            words = [1] if "code" in kind else [len(word) for word in text.split()] or [0]
            longest[k] = max(longest.get(k, 0), *words)
    return sum(0.6 * em * chars + padding for chars in longest.values())


def test_a_table_wider_than_the_page_is_split_repeating_its_key_columns():
    header = ["benchmark", "searched on", *(f"device{k}" for k in range(27))]
    rows = [("nb201-cifar10", f"device{r}", *(f"{r}.{k}" for k in range(27))) for r in range(3)]
    parts = re.findall(r"<table[^>]*>.*?</table>", html.table(header, rows, caption="wide", keys=2), re.S)
    assert len(parts) == 3
    seen = []
    for number, part in enumerate(parts, start=1):
        heads = re.findall(r"<th>(.*?)</th>", part)
        assert heads[:2] == ["benchmark", "searched on"] and len(heads) <= html.MAX_COLUMNS
        seen += heads[2:]
        assert re.findall(r"<td[^>]*>(.*?)</td>", part)[1] == "device0"  # each row keeps its key
        assert ("<caption>wide</caption>" in part) == (number == 1)
    assert seen == header[2:]


def test_scores_region_of_interest_first_full_box_beside_every_caption_naming_its_score(mo_results, monkeypatch):
    results = load_results(mo_results)
    scored = section.front_trajectories(results)

    def with_region(frame):  # as the analysis scores it (where it does, the same values)
        return frame.assign(hv_regret_roi=frame.get("hv_regret_roi", frame["hv_regret"] ** 0.5),
                            igd_plus_roi=frame.get("igd_plus_roi", frame["igd_plus"] * 2))

    monkeypatch.setattr(section, "front_trajectories", lambda table: with_region(scored))
    figures, page = draw_section(results)
    assert [name for name, _ in figures] == ["pareto_fronts", "hv_regret_roi_vs_time", "hv_regret_vs_time",
                                             "hv_regret_roi_ecdf", "hv_regret_ecdf", "kendall_nb201-cifar10"]
    for name, caption in figures:
        if name.startswith("hv_regret_roi"):
            assert caption.startswith("Score: accurate-region hypervolume regret (hv_regret_roi).")
        elif name.startswith("hv_regret"):
            assert caption.startswith("Score: full-box hypervolume regret (hv_regret).")
    header = re.findall(r"<th>(.*?)</th>", page[page.index("<caption>Scores:"):])
    assert header[3:7] == ["final accurate-region hypervolume regret: median (25-75 %)",
                           "final full-box hypervolume regret: median (25-75 %)", "median IGD+ (accurate region)",
                           "median IGD+ (full box)"]
    assert (page.index(f"ranks: final accurate-region hypervolume regret, {PROBLEM}")
            < page.index(f"ranks: final full-box hypervolume regret, {PROBLEM}"))
    assert "The accurate-region hypervolume regret (hv_regret_roi), the default score and shown first" in page


def test_without_a_region_of_interest_only_the_full_box_score_is_shown_and_labelled_so(mo_results, monkeypatch):
    results = load_results(mo_results)
    scored = section.front_trajectories(results)
    deployed = section.deployed_regret(results)
    monkeypatch.setattr(section, "front_trajectories",
                        lambda table: scored.drop(columns=["hv_regret_roi", "igd_plus_roi"], errors="ignore"))
    monkeypatch.setattr(section, "deployed_regret",
                        lambda table: deployed.drop(columns=["hv_regret_roi"], errors="ignore"))
    figures, page = draw_section(results)
    assert [name for name, _ in figures] == ["pareto_fronts", "hv_regret_vs_time", "hv_regret_ecdf",
                                             "kendall_nb201-cifar10"]
    assert all(caption.startswith("Score: full-box hypervolume regret (hv_regret).")
               for name, caption in figures if name.startswith("hv_regret"))
    assert "accurate-region" not in page and "hv_regret_roi" not in page
    assert "<caption>Score: full-box hypervolume regret (hv_regret). Fronts searched on one device" in page


def draw_section(results: pd.DataFrame) -> tuple[list[tuple[str, str]], str]:
    """The multi-objective section's (figure name, caption) pairs and HTML, no figure saved."""
    figures = []

    def add(figure, name, caption):
        figures.append((name, caption))
        return f"<figure>{name}</figure>"

    return figures, "\n".join(section.multiobjective_section(results, add, _friedman_section))


def test_the_fronts_figure_zooms_on_the_accurate_region_beside_the_whole_front(mo_results):
    results = load_results(mo_results)
    truth = true_front(*PROBLEM.split(" ", 1))
    figure = pareto_fronts_figure({PROBLEM: truth}, found_fronts(results))
    zoom, whole = figure.axes[:2]
    best = truth.points[:, 0].min()
    region = truth.points[truth.points[:, 0] <= best + REGION]
    (left, right), (bottom, top) = zoom.get_xlim(), zoom.get_ylim()
    assert left <= best and best + REGION <= right < 0.3  # the accurate region, not out to 0.9
    assert bottom <= region[:, 1].min() and region[:, 1].max() <= top
    assert truth.points[:, 0].max() == pytest.approx(0.9, abs=0.01)  # the degenerate cell ...
    assert whole.get_xlim()[1] >= truth.points[:, 0].max()  # ... is in the whole front's panel
    assert len(whole.patches) == 1  # the zoom, outlined


def test_the_kendall_heat_map_is_grouped_by_kind_of_device_with_readable_labels(tmp_path):
    devices = benchmark("nb201-cifar10").devices
    rng = np.random.default_rng(0)
    matrix = rng.uniform(0.2, 1.0, (len(devices), len(devices)))
    matrix = (matrix + matrix.T) / 2
    np.fill_diagonal(matrix, 1.0)
    groups = section._device_groups(devices)
    figure = kendall_heatmap(devices, matrix, "nb201-cifar10", groups)
    axis = figure.axes[0]
    drawn = [label.get_text() for label in axis.get_yticklabels()]
    assert sorted(drawn) == sorted(devices) and drawn == [name for members in groups.values() for name in members]
    assert list(groups)[:3] == ["GPU, batch 1", "GPU, batch 32", "GPU, batch 256"]
    for members in groups.values():  # a group is one kind of device (and one batch size)
        assert len({(device_setting(n).kind, device_setting(n).batch_size) for n in members}) == 1
    assert len(axis.lines) == 2 * (len(groups) - 1)  # the groups outlined
    assert all(label.get_fontsize() >= LABEL_SIZE for label in axis.get_yticklabels() + axis.get_xticklabels())
    # the labels' height on the page: the PNG (300 dpi) is scaled down to the page's width
    saved = save_figure(figure, tmp_path / "kendall")
    width = struct.unpack(">I", saved.png.read_bytes()[16:20])[0]
    page_width = float(re.search(r"body \{[^}]*max-width: ([\d.]+)rem", html.CSS).group(1)) * 16
    assert LABEL_SIZE / 72 * 300 * min(1.0, page_width / width) >= 14  # pixels; 12 before (6.7 pt in 8.9 in)
