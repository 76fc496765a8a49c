"""Figures of multi-objective runs: true and found Pareto fronts, and the cross-device Kendall matrix.

The found fronts of one optimizer over its seeds are summarised by their median attainment
surface (moocore's EAF at 50 %: the boundary of what half the runs attain), drawn as a staircase
beside the exact true front of the table, one panel per problem (benchmark and objectives). A
problem of three or more objectives has no staircase in a plane: its fronts are drawn as points
projected onto each pair of objectives.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from .axes import outside_legend
from .backend import new_figure
from .style import Style, publication

PANEL = 3.6  # inches per panel


def pareto_fronts_figure(truths: dict, fronts: pd.DataFrame, style: Style | None = None):
    """Per problem: the true front (black) and each configuration's median attainment surface of
    its final found fronts (``analysis.multiobjective.found_fronts``); ``truths`` maps a problem
    to its :class:`~nasarena.analysis.pareto.TrueFront`."""
    import moocore

    style = style or Style.for_labels(fronts["label"])
    problems = sorted(truths)
    with publication():
        figure = new_figure(PANEL * len(problems) + 1.6, PANEL)
        axes = figure.subplots(1, len(problems), squeeze=False)[0]
        for axis, problem in zip(axes, problems):
            truth = truths[problem]
            true_points = truth.points[np.argsort(truth.points[:, 0])]
            axis.step(true_points[:, 0], true_points[:, 1], where="post", color="black", linewidth=1.0)
            axis.plot(true_points[:, 0], true_points[:, 1], "k.", markersize=2.5)
            for name, runs in fronts[fronts["problem"] == problem].groupby("label", sort=True):
                _, sets = np.unique(runs["seed"].to_numpy(), return_inverse=True)
                surface = moocore.eaf(runs[["x", "y"]].to_numpy(dtype=float), sets + 1, percentiles=[50])
                surface = surface[np.argsort(surface[:, 0])]
                axis.step(surface[:, 0], surface[:, 1], where="post", **style.of(name).line())
            names = problem.split(" ", 1)[1].split(",")
            axis.set_xlabel(_axis_label(names[0]))
            axis.set_ylabel(_axis_label(names[1]))
            axis.set_yscale("log")
            axis.set_title(problem, fontsize="small")
        shown = [n for n in style.labels if n in set(fronts["label"])]
        outside_legend(figure, [_true_handle(), *[style.of(n).handle() for n in shown]], ["true front", *shown],
                       title="median attainment\nof the found fronts")
    return figure


def front_projections_figure(problem: str, names: list[str], truth, members: pd.DataFrame,
                             style: Style | None = None):
    """A problem of three or more objectives (``names``): its true front's points (grey) and each
    configuration's final found-front points over its runs (``members``: ``label`` and the full
    ``test_objectives`` vector) projected onto each pair of objectives, a panel per pair. Points,
    not staircases: a point non-dominated in all objectives may be dominated in two."""
    from matplotlib.lines import Line2D

    style = style or Style.for_labels(members["label"])
    pairs = list(itertools.combinations(range(len(names)), 2))
    columns = min(3, len(pairs))
    with publication():
        figure = new_figure(PANEL * columns + 1.6, PANEL * math.ceil(len(pairs) / columns))
        axes = figure.subplots(math.ceil(len(pairs) / columns), columns, squeeze=False).ravel()
        shown = [n for n in style.labels if n in set(members["label"])]
        for axis, (i, j) in zip(axes, pairs):
            axis.scatter(truth.points[:, i], truth.points[:, j], s=3, color="#999999", rasterized=True)
            for name in shown:
                points = np.stack(members.loc[members["label"] == name, "test_objectives"].to_numpy()).astype(float)
                axis.scatter(points[:, i], points[:, j], s=10, color=style.of(name).colour,
                             marker=style.of(name).marker or "o")
            axis.set_xlabel(_axis_label(names[i]))
            axis.set_ylabel(_axis_label(names[j]))
        for axis in axes[len(pairs):]:
            axis.set_visible(False)
        figure.suptitle(problem, fontsize="small")
        handles = [Line2D([], [], color=colour, marker=marker, linestyle="none") for colour, marker in
                   [("#999999", "o"), *[(style.of(n).colour, style.of(n).marker or "o") for n in shown]]]
        outside_legend(figure, handles, ["true front", *shown], title="final found fronts\n(every run)")
    return figure


def _axis_label(objective: str) -> str:
    """An objective's axis label: error is the test error the fronts are scored on, latency in ms."""
    return f"{objective} (test)" if objective == "error" else objective + (" (ms)" if objective.startswith("latency")
                                                                            else "")


def _true_handle():
    from matplotlib.lines import Line2D

    return Line2D([], [], color="black", linewidth=1.0)


def kendall_heatmap(devices: tuple[str, ...], matrix: np.ndarray, title: str):
    """Kendall's tau between the latencies of every pair of device settings (1: the same order)."""
    with publication():
        size = 2.0 + 0.22 * len(devices)
        figure = new_figure(size + 1.0, size)
        axis = figure.subplots()
        image = axis.imshow(matrix, vmin=min(0.0, float(matrix.min())), vmax=1.0, cmap="viridis")
        axis.set_xticks(range(len(devices)), devices, rotation=90, fontsize="x-small")
        axis.set_yticks(range(len(devices)), devices, fontsize="x-small")
        axis.set_title(title, fontsize="small")
        figure.colorbar(image, ax=axis, label="Kendall's tau of latency")
    return figure
