"""Figures of multi-objective runs: true and found Pareto fronts, and the cross-device Kendall matrix.

The found fronts of one optimizer over its seeds are summarised by their median attainment
surface (moocore's EAF at 50 %: the boundary of what half the runs attain), drawn as a staircase
beside the exact true front of the table, one panel per problem (benchmark and objectives).
"""

from __future__ import annotations

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
            axis.set_xlabel(f"{names[0]} (test)" if names[0] == "error" else names[0])
            axis.set_ylabel(names[1] + (" (ms)" if names[1].startswith("latency") else ""))
            axis.set_yscale("log")
            axis.set_title(problem, fontsize="small")
        shown = [n for n in style.labels if n in set(fronts["label"])]
        outside_legend(figure, [_true_handle(), *[style.of(n).handle() for n in shown]], ["true front", *shown],
                       title="median attainment\nof the found fronts")
    return figure


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
