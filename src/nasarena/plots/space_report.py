"""``write_space_report``: the NB101 paper's dataset study (Sec. 3) of one benchmark as a
self-contained HTML page, its figures (PNG and PDF) and a JSON of every number.

Each figure's caption says which numbers are real and which are modelled, and which data
(trial, fidelity) it shows; where the paper states a value, ours stands beside it with the
reason they may differ.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import numpy as np

from ..analysis.space.nb101 import PAPER_LOCALITY, SpaceAnalysis
from ..io.files import atomic_write_bytes
from ..spaces.oneshot.enumeration import SPACE_2_COUNT_REASON
from . import html
from .backend import new_figure, require_matplotlib, save_figure
from .style import KNOWN_COLOURS, SPARE_COLOURS, publication

REPORT_FILE = "space_report.html"
JSON_FILE = "space_analysis.json"
TITLE = "nasarena space analysis"
FIGURES_DIR = "figures"
PLOT_POINTS = 30_000  # scatter plots draw at most this many cells (a seeded subsample)
RWA_FADED = 0.05  # an autocorrelation below this counts as faded into the walk's noise
COLOURS = (*KNOWN_COLOURS.values(), *SPARE_COLOURS)


class _Figures:
    """Saves each figure as PNG and PDF and embeds the PNG with its caption."""

    def __init__(self, folder: Path):
        self.folder = folder

    def add(self, figure, name: str, caption: str) -> str:
        saved = save_figure(figure, self.folder / name)
        return html.image(saved.png, f"{caption} Files: {FIGURES_DIR}/{saved.png.name}, {saved.pdf.name}.")


def _closing_note(seconds: dict[str, float]) -> str:
    """How long the report took: wall clock per section, and the process's CPU time and the machine's
    load, because on a shared machine the wall clock says more about the neighbours than about us."""
    timing = ", ".join(f"{name} {value} s" for name, value in seconds.items())
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return html.paragraph(f"Computed in: {timing} (wall clock); {time.process_time():.0f} s of CPU time in this "
                          f"process; load average {load:.1f} on {os.cpu_count()} cores.", "muted")


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _clean(value):
    """NaN and infinities become null: the JSON must load in any strict parser."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (float, np.floating)) and not math.isfinite(float(value)):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def write_json(analysis, path: Path) -> Path:
    """Any of the analyses (their ``to_dict``) as strict JSON."""
    text = json.dumps(_clean(analysis.to_dict()), indent=1, default=_json_default)
    atomic_write_bytes(path, text.encode("utf-8"))
    return path


def _is_analysis_json(path: Path) -> bool:
    """Whether ``path`` holds the JSON every analysis writes: an object naming its benchmark and the
    seconds each section took."""
    try:
        numbers = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(numbers, dict) and isinstance(numbers.get("benchmark"), str) \
        and isinstance(numbers.get("seconds"), dict)


#: The files by which `nasarena analyze` knows a folder it wrote before it marked its folders, each
#: with the check that it is the command's own (the names alone are anyone's).
EARLIER_OUTPUT = {REPORT_FILE: lambda path: html.is_page(path, TITLE), JSON_FILE: _is_analysis_json}


def _finish(analysis, body: list[str], out_dir: Path, title: str, started: float | None) -> Path:
    """The end every report shares: the timing note (total included when ``started`` is given), the
    JSON beside the page, then the page itself, each written atomically."""
    if started is not None:
        analysis.seconds["total_with_report"] = round(time.perf_counter() - started, 1)
    body.append(_closing_note(analysis.seconds))
    write_json(analysis, out_dir / JSON_FILE)
    report = out_dir / REPORT_FILE
    atomic_write_bytes(report, html.page(title, body).encode("utf-8"))
    return report


def _kind(analysis: SpaceAnalysis) -> str:
    """How real the accuracies are: nb101-noisy draws the trials the embedded data lacks from a model."""
    return "partly modelled, see above" if analysis.data.name == "nb101-noisy" else "real"


def _pct(value) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{100 * value:.2f} %"


def _num(value, digits=2) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"


def _data_note(analysis: SpaceAnalysis) -> list[str]:
    data = analysis.data
    notes = [html.paragraph(f"Benchmark {data.name}: {int(data.present.sum()):,} cells, {data.trials} trial(s) per "
                            f"cell, fidelities {', '.join(map(str, data.fidelities))} epochs; every figure uses the "
                            f"highest fidelity ({data.fidelities[-1]} epochs) unless it says otherwise."),
             html.paragraph(f"Real: {data.real}."), html.paragraph(f"Modelled: {data.modelled}.", "note")]
    if data.same_draw:
        notes.append(html.paragraph(
            "On nb101-lite validation and test accuracy are the same real draw (test accuracy of trial 0): the "
            "'validation' numbers below are that test draw, and the validation-test correlation cannot be measured.",
            "note"))
    return notes


def _distribution_section(analysis: SpaceAnalysis, figures: _Figures) -> list[str]:
    dist = analysis.distributions
    figure = new_figure(6.5, 2.6)
    left, right = figure.subplots(1, 2)
    for colour, (name, (x, y)) in zip(COLOURS, dist.ecdfs.items()):
        left.step(x, y, where="post", color=colour, label=name)
    left.set(xlabel="accuracy", ylabel="fraction of cells", xlim=(0.8, 1.0))
    left.legend(loc="upper left")
    if dist.noise:
        for colour, (fidelity, std) in zip(COLOURS, dist.noise.items()):
            x = np.sort(std)
            right.step(x, np.arange(1, len(x) + 1) / len(x), where="post", color=colour, label=f"{fidelity} epochs")
        right.set(xlabel="std of test accuracy over trials", ylabel="fraction of cells", xscale="log")
        right.legend()
        noise_text = "Right: ECDF of the standard deviation of test accuracy between trials at each budget."
    else:
        right.text(0.5, 0.5, "one trial per cell:\nno between-trial noise", ha="center", va="center",
                   transform=right.transAxes)
        right.set_axis_off()
        noise_text = "Right: empty, the benchmark has one trial per cell so the noise between trials is not in it."
    best = dist.best_test
    rows = [["best cell (by test accuracy)", dist.best_row, _pct(best), _pct(0.9432),
             "ours is a single draw (the max of many noisy draws is optimistic)" if analysis.data.trials == 1
             else "same definition"]]
    for cell in dist.named:
        rows.append([f"{cell.name} cell", cell.row,
                     "not in this table" if cell.rank is None else f"{_pct(cell.accuracy)} (rank {cell.rank:,}, "
                     f"top {cell.percentile:.1f} %)", _pct(cell.paper_accuracy),
                     "paper: mean of 3 trials" if analysis.data.trials == 1 else ""])
    rows.append(["validation-test correlation (Pearson r; Spearman)", "",
                 f"{_num(dist.valid_test_r, 4)}; {_num(dist.valid_test_spearman, 4)}", "0.999 (r of 3-trial means)",
                 "not measurable: validation is the test draw" if analysis.data.same_draw else
                 "validation and test come from different single trials here, and the few runs that diverged to "
                 "chance accuracy in one of them dominate r (ranks agree)" if analysis.data.name == "nb101-slice"
                 else ""])
    return [
        html.heading("Distributions (NB101 Fig. 2)"),
        figures.add(figure, "distributions",
                    f"Left: ECDFs of train/validation/test accuracy of all {dist.cells_with_test:,} cells with a value "
                    f"({_kind(analysis)} values, {analysis.data.fidelities[-1]} epochs, mean over the "
                    f"{analysis.data.trials} "
                    f"trial(s) of the data). {noise_text}"),
        html.table(["quantity", "row", "ours", "paper", "why they may differ"], rows,
                   caption="Best and hand-designed cells (test accuracy at 108 epochs)."),
    ]


def _subsample(rows: np.ndarray, seed: int = 0) -> np.ndarray:
    if len(rows) <= PLOT_POINTS:
        return rows
    return np.sort(np.random.default_rng(seed).choice(rows, PLOT_POINTS, replace=False))


def _cost_section(analysis: SpaceAnalysis, figures: _Figures) -> list[str]:
    data, cost = analysis.data, analysis.cost
    accuracy = data.valid if cost.metric == "validation" else data.test
    drawn = _subsample(cost.rows)
    figure = new_figure(6.5, 2.8)
    left, right = figure.subplots(1, 2)
    points = left.scatter(data.parameters[drawn], data.cost[drawn], c=accuracy[drawn], s=2, cmap="viridis",
                          vmin=np.nanquantile(accuracy[drawn], 0.05), rasterized=True)
    figure.colorbar(points, ax=left, label=f"{cost.metric} accuracy")
    left.set(xlabel="trainable parameters", ylabel="training time (s)", xscale="log")
    right.scatter(data.cost[drawn], accuracy[drawn], s=1, color="#bbbbbb", rasterized=True, label="cells")
    front = cost.front
    right.step(data.cost[front], accuracy[front], where="post", color="#000000", label="Pareto front")
    def marked(label, rows):  # a cell drawn at a modelled time says so in the legend
        return label if data.cost_real[rows].all() else f"{label} (modelled time)"

    neighbours = cost.neighbours[np.isfinite(accuracy[cost.neighbours]) & np.isfinite(data.cost[cost.neighbours])]
    if len(neighbours):
        right.scatter(data.cost[neighbours], accuracy[neighbours], s=12, color="#E69F00",
                      label=marked("Inception 1-edit", neighbours))
    for colour, cell in zip(("#D55E00", "#0072B2"), analysis.distributions.named):
        if np.isfinite(accuracy[cell.row]) and np.isfinite(data.cost[cell.row]):
            right.scatter([data.cost[cell.row]], [accuracy[cell.row]], s=40, marker="*", color=colour,
                          label=marked(cell.name, [cell.row]))
    best = analysis.distributions.best_row
    if np.isfinite(data.cost[best]):
        right.scatter([data.cost[best]], [accuracy[best]], s=40, marker="D", color="#CC79A7",
                      label=marked("best (test)", [best]))
    right.set(xlabel="training time (s)", ylabel=f"{cost.metric} accuracy", ylim=(0.8, None))
    right.legend(loc="lower right", markerscale=1.5)
    time_kind = ("grey cells and the front: measured training times only; highlighted cells whose time is modelled "
                 "say so in the legend" if cost.cost_is_real else "MODELLED training times")
    named = "; ".join(f"{name}: {100 * gap:.2f} pp below the front" for name, gap in cost.named_gap.items()) or \
        "the named cells have no measured training time here, so their distance to the front is not shown"
    plotted = f"{len(drawn):,} of {len(cost.rows):,} cells drawn (seeded subsample)" if len(drawn) < len(cost.rows) \
        else f"all {len(cost.rows):,} cells with a measured time"
    return [
        html.heading("Cost and size (NB101 Fig. 3)"),
        figures.add(figure, "cost_and_size",
                    f"Left: training time (108 epochs) against trainable parameters (exact), coloured by {cost.metric} "
                    f"accuracy ({_kind(analysis)}). Right: {cost.metric} accuracy against training time with the "
                    "Pareto front, the "
                    f"{len(cost.neighbours)} valid 1-edit neighbours of the Inception-like cell, and the named cells "
                    f"(where this table has them). {time_kind}; {plotted}."),
        html.paragraph(f"Pareto front: {len(cost.front)} cells. {named}. Spearman correlation of parameters and "
                       f"time {cost.corr_params_time:.3f}, of time and accuracy {cost.corr_time_accuracy:.3f} "
                       "(the paper: positive correlation between all three)."),
    ]


def _operations_section(analysis: SpaceAnalysis, figures: _Figures) -> list[str]:
    replacements = analysis.operations
    figure = new_figure(6.5, 3.6)
    axes = figure.subplots(2, 3, sharex=True).ravel()
    for axis, replacement in zip(axes, replacements):
        if len(replacement.accuracy_change):
            axis.hist(np.clip(replacement.accuracy_change, -10, 10), bins=80, color="#0072B2")
        axis.set_title(f"{replacement.source} -> {replacement.target}")
        axis.set_yscale("log")
    for axis in axes[3:]:
        axis.set_xlabel(f"{analysis.operations_metric} accuracy change (pp)")
    rows = []
    for replacement in replacements:
        s = replacement.summary()
        rows.append([f"{s['from']} -> {s['to']}", f"{s['accuracy_pairs']:,}", _num(s["mean_accuracy_change_pp"]),
                     _num(s["paper_accuracy_change_pp"]), f"{s['real_time_pairs']:,}",
                     _num(s["mean_time_change_pct_real"]), _num(s["mean_time_change_pct_with_modelled"]),
                     _num(s["paper_time_change_pct"])])
    why = ("Ours: single-trial accuracy (the paper: mean validation accuracy over 3 trials), so each change carries "
           "the noise of two draws; measured training times exist only where both cells are in the 30,001-cell "
           "slice, so the real-time mean is over a few thousand pairs, the paper's over all of them.")
    return [
        html.heading("Operations (NB101 Fig. 4)"),
        figures.add(figure, "operations",
                    f"Change of {analysis.operations_metric} accuracy ({_kind(analysis)}, 108 epochs, percentage "
                    "points, clipped to "
                    "+-10) when one op of a cell is replaced by another: every cell containing the first op, every "
                    "position (a join on hashes over the whole table)."),
        html.table(["replacement", "pairs (acc.)", "mean acc. change (pp)", "paper (pp)", "pairs (real time)",
                    "time change % (real)", "time change % (incl. modelled)", "paper %"], rows,
                   caption="Ours beside the paper's (Sec. 3.2)."),
        html.paragraph(why, "muted"),
    ]


def _depth_width_section(analysis: SpaceAnalysis, figures: _Figures) -> list[str]:
    dw = analysis.depth_width
    figure = new_figure(6.5, 3.2)
    axes = figure.subplots(2, 2, sharex="col")
    for column, (name, frame) in enumerate((("depth", dw.by_depth), ("width", dw.by_width))):
        axes[0, column].bar(frame.index, frame["mean_accuracy"], color="#0072B2")
        axes[0, column].set_ylim(frame["mean_accuracy"].min() - 0.01, frame["mean_accuracy"].max() + 0.005)
        axes[0, column].set_ylabel(f"mean {dw.metric} acc.")
        axes[1, column].bar(frame.index - 0.2, frame["mean_time_real"], width=0.4, color="#009E73", label="measured")
        axes[1, column].bar(frame.index + 0.2, frame["mean_time_all"], width=0.4, color="#999999",
                            label="incl. modelled")
        axes[1, column].set(xlabel=name, ylabel="mean training time (s)")
    axes[1, 0].legend()

    def rows(frame):
        return [[int(k), f"{int(r.cells):,}", _pct(r.mean_accuracy), f"{int(r.real_time_cells):,}",
                 _num(r.mean_time_real, 0), _num(r.mean_time_all, 0)] for k, r in frame.iterrows()]

    header = ["", "cells", f"mean {dw.metric} acc.", "cells with real time", "time (real)", "time (all)"]
    return [
        html.heading("Depth and width (NB101 Fig. 5)"),
        figures.add(figure, "depth_width",
                    f"Mean {dw.metric} accuracy ({_kind(analysis)}, 108 epochs) and training time per depth (edges "
                    "on the longest "
                    "input-output path) and width (maximum directed cut: edges leaving a predecessor-closed vertex "
                    "set that holds the input). Time bars: measured times only, and with modelled times included."),
        html.table(["depth", *header[1:]], rows(dw.by_depth)),
        html.table(["width", *header[1:]], rows(dw.by_width)),
        html.paragraph("The paper: depth 3 is best on average; accuracy rises with width up to 5, its maximum width; "
                       "width-1 cells (chains) are the most expensive. With this cut definition a few cells reach "
                       "width 6 (an edge input->output beside five others leaving the cut); the paper does not define "
                       "the cut precisely enough to tell whether it counts those edges.", "muted"),
    ]


def _rwa_sentence(local) -> str:
    """Where our autocorrelation fades, beside the paper's 'indistinguishable from noise beyond about 6'."""
    faded = np.flatnonzero(np.nan_to_num(local.autocorrelation, nan=0.0) < RWA_FADED)
    where = (f"first falls below {RWA_FADED} at sqrt(shift) = {np.sqrt(local.shifts[faded[0]]):.1f}" if len(faded)
             else f"stays above {RWA_FADED} up to sqrt(shift) = {np.sqrt(local.shifts[-1]):.1f}")
    return (f"Random-walk autocorrelation {where} (the paper: indistinguishable from noise beyond a distance of "
            "about 6).")


def _locality_section(analysis: SpaceAnalysis, figures: _Figures) -> list[str]:
    local = analysis.locality
    if local is None:
        return [html.heading("Locality (NB101 Fig. 6)"), html.paragraph("Locality was not computed (--no-locality).")]
    figure = new_figure(6.5, 2.6)
    left, right = figure.subplots(1, 2)
    left.plot(np.sqrt(local.shifts), local.autocorrelation, color="#0072B2", label="RWA (x = sqrt(shift))")
    left.plot(local.fdc_distance, local.fdc, color="#D55E00", label="FDC (x = distance)")
    left.axhline(0, color="#888888", linewidth=0.6)
    left.set(xlabel="distance (sqrt of shift for the RWA)", ylabel="correlation")
    left.legend()
    d = np.arange(len(local.points_at_distance))
    for counts, colour, label in ((local.points_at_distance, "#000000", f"all 510M points, {len(local.top_rows)} top"),
                                  (local.valid_points_at_distance, "#009E73", "valid points"),
                                  (local.paper_count_points_at_distance, "#D55E00",
                                   f"all points, our {len(local.paper_count_rows)} best")):
        right.plot(d, 100 * np.cumsum(counts) / counts.sum(), color=colour, marker=".", label=label)
    right.axvline(6, color="#888888", linewidth=0.6)
    right.set(xlabel="distance to the closest top graph", ylabel="% of the encoded space", xlim=(0, 14))
    right.legend()
    s = local.settings
    within = lambda counts, k: 100 * counts[: k + 1].sum() / counts.sum()  # noqa: E731
    cells = int(analysis.data.present.sum())
    partial = "" if cells == len(analysis.data.present) else f"; top graphs only among this table's {cells:,} cells"
    rows = [
        ["labelled isomorphs of the best cell", f"{local.best_labelled:,}", str(PAPER_LOCALITY["best_isomorphisms"]),
         "exact"],
        ["encoded points of the best cell", f"{local.best_points:,}", "", "exact (isomorphs x removable vertices)"],
        ["top graphs (within 2 SE of the best)", f"{len(local.top_rows):,}", str(PAPER_LOCALITY["top_graphs"]),
         f"SE {100 * local.standard_error:.3f} pp from {local.standard_error_source}"],
        ["encoded points of the top graphs", f"{local.top_points:,}", f"{PAPER_LOCALITY['top_points']:,}", "exact"],
        ["chance of a random point being top", f"1 in {509_607_936 / max(local.top_points, 1):,.0f}",
         f"1 in {PAPER_LOCALITY['one_in']:,}", "over all 509,607,936 encodings"],
        ["% of the space within distance 6", f"{within(local.points_at_distance, 6):.1f} % "
         f"(valid points: {within(local.valid_points_at_distance, 6):.1f} %)", f"{PAPER_LOCALITY['within_6_pct']} %",
         "exact; depends on how many top graphs the threshold admits" + partial],
        [f"% within distance 6 of our {len(local.paper_count_rows)} best cells (the paper's count)",
         f"{within(local.paper_count_points_at_distance, 6):.1f} %", f"{PAPER_LOCALITY['within_6_pct']} %",
         "exact; same number of top graphs as the paper, chosen by our single-draw accuracy"],
    ]
    return [
        html.heading("Locality (NB101 Fig. 6)"),
        figures.add(figure, "locality",
                    f"Left: random-walk autocorrelation of {local.accuracy} accuracy ({_kind(analysis)}, 108 epochs) "
                    "over "
                    f"{s.walk_chains} seeded walks of {s.walk_steps:,} steps through valid cells (seed {s.seed}), "
                    f"against sqrt(shift); fitness-distance correlation around the best cell over {s.fdc_samples:,} "
                    f"points reached by 1-{s.fdc_max_steps} random changes from its encodings (correlation of "
                    "accuracy and exact edit distance among points within distance d). Right: exact share of the "
                    "encoded space within each distance of the closest top graph (the graphs within 2 standard "
                    "errors of "
                    "the best, and our best cells as many as the paper's top graphs)."),
        html.table(["quantity", "ours", "paper", "how"], rows, caption="Rarity of the top (Sec. 3.4)."),
        html.paragraph(_rwa_sentence(local)),
        html.paragraph(f"Valid encoded points: {local.valid_points:,} of 509,607,936 (the rest prune to too many "
                       "edges or disconnect the output).", "muted"),
    ]


def _clusters_html(table, settings_text: str, metric: str) -> list[str]:
    shown = table.head(15)
    rows = [[int(cluster), int(r["size"]), _pct(r["mean_accuracy"]), _num(100 * r["std_accuracy"]),
             f"{r['mean_parameters']:,.0f}"] for cluster, r in shown.iterrows()]
    return [html.heading("Structural clusters (supernet paper, Sec. 3)"),
            html.table(["cluster", "cells", f"mean {metric} acc.", "std (pp)", "mean parameters"], rows,
                       caption=f"The 15 best of {len(table)} clusters. {settings_text}")]


def _nb101_clusters_section(analysis: SpaceAnalysis) -> list[str]:
    c = analysis.clusters
    metric = analysis.operations_metric
    return _clusters_html(c.table, f"Average-linkage clustering of a seeded subsample of {c.sample:,} cells (seed "
                          f"{c.seed}), cut at {c.threshold:g} differing positions of the canonical 7-vertex encoding "
                          f"(21 edge bits + 5 ops); accuracy {_kind(analysis)}, 108 epochs.", metric)


def _oneshot_section(analysis: SpaceAnalysis, figures: _Figures) -> list[str]:
    spaces = analysis.oneshot
    heading = html.heading("NAS-Bench-1Shot1 spaces (NB-1Shot1 Fig. 6)")
    if spaces is None:
        return [heading, html.paragraph("The one-shot spaces are not available in this installation.")]
    figure = new_figure(6.5, 2.4)
    axes = figure.subplots(1, 3, sharey=True)
    for axis, space in zip(axes, dict.fromkeys(name for name, _ in spaces.errors)):
        for loose, colour in ((True, "#0072B2"), (False, "#D55E00")):
            errors = np.sort(spaces.errors[space, loose])
            if len(errors):
                axis.step(errors, np.arange(1, len(errors) + 1) / len(errors), where="post", color=colour,
                          label="with loose ends" if loose else "without")
        axis.set(title=space, xlabel="test error", xscale="log")
    axes[0].set_ylabel("fraction of architectures")
    axes[0].legend()
    summary = spaces.to_dict()
    rows = [[name, f"{v['architectures']:,}", f"{v['paper_architectures']:,}", f"{v['with_value']:,}",
             _pct(v["median_test_error"]), _pct(v["min_test_error"])] for name, v in summary.items()]
    return [heading,
            figures.add(figure, "nb1shot1_spaces",
                        f"ECDF of test error (1 - test accuracy, {_kind(analysis)}, 108 epochs, mean over the trials "
                        "of "
                        f"{analysis.data.name}) of every architecture of the three NB-1Shot1 spaces, with and without "
                        "loose ends (architectures the table lacks are left out)."),
            html.table(["space", "architectures", "paper", "with a value", "median test error", "best test error"],
                       rows),
            *([html.paragraph(f"Where 'architectures' differs from the paper's Table 1: {SPACE_2_COUNT_REASON} "
                              "(nasarena.spaces.oneshot.enumeration).", "muted")]
              if any(v["architectures"] != v["paper_architectures"] for v in summary.values()) else [])]


def write_space_report(analysis: SpaceAnalysis, out_dir: Path, extra_sections: list[str] = (),
                       started: float | None = None) -> Path:
    """Write ``out_dir/space_report.html``, ``space_analysis.json`` and ``figures/``; return the HTML path."""
    require_matplotlib()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = _Figures(out_dir / FIGURES_DIR)
    with publication():
        body = [*_data_note(analysis), *_distribution_section(analysis, figures), *_cost_section(analysis, figures),
                *_operations_section(analysis, figures), *_depth_width_section(analysis, figures),
                *_locality_section(analysis, figures), *_nb101_clusters_section(analysis),
                *_oneshot_section(analysis, figures), *extra_sections]
    return _finish(analysis, body, out_dir, f"{TITLE}: {analysis.data.name}", started)


def write_nb201_report(analysis, out_dir: Path, started: float | None = None) -> Path:
    """The NB201 version of the study (``analysis.space.nb201.NB201Analysis``): HTML, figures, JSON."""
    require_matplotlib()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = _Figures(out_dir / FIGURES_DIR)
    a = analysis
    with publication():
        figure = new_figure(6.5, 2.6)
        left, right = figure.subplots(1, 2)
        for colour, (name, values) in zip(COLOURS, (("validation 200 ep.", a.valid), ("test 200 ep.", a.test),
                                                    ("validation 12 ep.", a.low_fidelity))):
            x = np.sort(values[np.isfinite(values)])
            if len(x):
                left.step(x, np.arange(1, len(x) + 1) / len(x), where="post", color=colour, label=name)
        left.set(xlabel="accuracy", ylabel="fraction of cells")
        left.legend()
        right.scatter(a.parameters, a.accuracy, s=1, color="#bbbbbb", rasterized=True)
        right.step(a.parameters[a.front], a.accuracy[a.front], where="post", color="#000000", label="Pareto front")
        right.set(xlabel="trainable parameters (exact)", ylabel=f"{a.metric} accuracy (200 ep.)", xscale="log")
        right.legend()
        first = figures.add(figure, "nb201_distributions",
                            f"Left: ECDFs of accuracy over all 15,625 cells (real: means over the benchmark's seeds). "
                            f"Right: {a.metric} accuracy against exact parameter count with the Pareto front (training "
                            "time is modelled for NB201, so cost is shown as parameters).")
        figure = new_figure(6.5, 2.4)
        left, right = figure.subplots(1, 2)
        left.plot(np.sqrt(a.shifts), a.autocorrelation, color="#0072B2", label="RWA (x = sqrt(shift))")
        fdc = a.fdc["fdc_within"].astype(float)
        left.plot(a.fdc.index, fdc, color="#D55E00", marker=".", label="FDC within distance")
        left.set(xlabel="distance", ylabel="correlation")
        left.legend()
        right.bar(a.fdc.index, a.fdc["mean_accuracy"], color="#009E73")
        right.set(xlabel="edges whose op differs from the best cell", ylabel=f"mean {a.metric} accuracy",
                  ylim=(float(np.nanmin(a.fdc["mean_accuracy"])) - 0.02, None))
        second = figures.add(figure, "nb201_locality",
                             f"Left: random-walk autocorrelation (seed {a.seed}, 100 walks of 2,000 op changes) and "
                             "the "
                             "exact fitness-distance correlation around the best cell. Right: mean accuracy of all "
                             "cells at each distance from the best (exact).")
    rows = [[f"{source} -> {target}", f"{int(r.pairs):,}", _num(r.mean_accuracy_change_pp),
             _num(r.mean_abs_accuracy_change_pp), _num(r.mean_parameter_change_pct)]
            for (source, target), r in a.replacements.iterrows()]

    def grouped(frame, name):
        return html.table([name, "cells", f"mean {a.metric} acc.", "mean parameters"],
                          [[int(k), f"{int(r.cells):,}", _pct(r.mean_accuracy), f"{r.mean_parameters:,.0f}"]
                           for k, r in frame.iterrows()])

    distances = [[int(d), f"{int(r.cells):,}", _pct(r.mean_accuracy), _num(r.fdc_within, 3)]
                 for d, r in a.fdc.iterrows()]
    body = [
        html.paragraph(f"Benchmark {a.name}: 15,625 cells (6 edges x 5 ops). Real: {a.real}."),
        html.paragraph(f"Modelled: {a.modelled}.", "note"),
        html.heading("Distributions and size"),
        first,
        html.paragraph(f"Best cell: index {a.best}, {a.metric} accuracy {_pct(a.accuracy[a.best])}; "
                       f"{a.class_size_of_best} encoding(s) compute the same function. Validation-test correlation "
                       f"{_num(a.to_dict()['valid_test_correlation'], 4)}; 12- vs 200-epoch validation "
                       f"{_num(a.to_dict()['low_high_fidelity_correlation'], 4)}."),
        html.heading("Operations"),
        html.table(["replacement (one edge)", "pairs", "mean acc. change (pp)", "mean |change| (pp)",
                    "parameter change %"], rows,
                   caption=f"Every cell, every edge holding the first op (exact join; {a.metric} accuracy, 200 "
                           "epochs, real; parameters exact)."),
        html.heading("Depth and width"),
        html.paragraph("Depth: edges on the longest input-output path of non-'none' edges (-1: the output is "
                       "unreachable); width: maximum directed cut of those edges.", "muted"),
        grouped(a.by_depth, "depth"), grouped(a.by_width, "width"),
        html.heading("Locality"),
        second,
        html.table(["distance to best", "cells", f"mean {a.metric} acc.", "FDC within"], distances),
        *_clusters_html(a.clusters, f"Average-linkage clustering of a seeded subsample of "
                        f"{a.cluster_settings['sample']:,} cells (seed {a.seed}), cut at "
                        f"{a.cluster_settings['threshold']:g} differing edges.", a.metric),
    ]
    return _finish(a, body, out_dir, f"{TITLE}: {a.name}", started)


def write_sampled_report(analysis, out_dir: Path, started: float | None = None) -> Path:
    """The sampled study of a surrogate benchmark (``analysis.space.sampled.SampledAnalysis``)."""
    require_matplotlib()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = _Figures(out_dir / FIGURES_DIR)
    a = analysis
    numbers = a.to_dict()
    with publication():
        figure = new_figure(6.5, 2.4)
        left, middle, right = figure.subplots(1, 3)
        x = np.sort(a.predicted)
        left.step(x, np.arange(1, len(x) + 1) / len(x), where="post", color="#0072B2")
        left.set(xlabel="predicted accuracy (mean)", ylabel="fraction of samples")
        middle.hist(a.ensemble_std, bins=50, color="#999999")
        middle.set(xlabel="ensemble std", ylabel="samples")
        right.plot(np.sqrt(a.shifts), a.autocorrelation, color="#0072B2")
        right.set(xlabel="sqrt(shift)", ylabel="random-walk autocorrelation")
        caption = (f"All MODELLED (surrogate predictions, noise-free ensemble means). Left: ECDF over {a.samples:,} "
                   f"architectures sampled uniformly from the {a.space} space with seed {a.seed}; middle: the "
                   f"ensembles' disagreement on them; right: autocorrelation of predictions along {a.walk_chains} "
                   f"random walks of {a.walk_steps} steps (a random neighbour per step, same seed).")
        body = [html.paragraph(f"Benchmark {a.name} on the {a.space} space. Modelled: {a.description}.", "note"),
                figures.add(figure, "sampled", caption)]
    q = numbers["predicted_accuracy"]
    body.append(html.table(["quantity", "value"], [
        ["samples (seed)", f"{a.samples:,} ({a.seed})"],
        ["mean predicted accuracy", f"{_pct(q['mean'])} +- {100 * q['standard_error']:.2f} pp (standard error)"],
        *[[f"{k[1:]} % quantile", _pct(v)] for k, v in q.items() if k.startswith("q")],
        ["best sampled", f"{_pct(a.predicted.max())}: {a.best_text}"],
    ]))
    return _finish(a, body, out_dir, f"{TITLE} (sampled): {a.name}", started)
