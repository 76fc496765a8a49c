"""Figures of multi-objective runs: true and found Pareto fronts, and the cross-device Kendall matrix.

The found fronts of one optimizer over its seeds are summarised by their median attainment
surface (moocore's EAF at 50 %: the boundary of what half the runs attain), drawn as a staircase
beside the exact true front of the table, one row per problem (benchmark and objectives): on the
left zoomed on the front's accurate region, on the right the whole front. The whole front of an
NB201 table ends in a degenerate cell (output disconnected: 90 % error, a few microseconds) far
from every architecture worth deploying, so a single panel spends most of its width on it.
A problem of three or more objectives has no staircase in a plane: its fronts are drawn as points
projected onto each pair of objectives.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..analysis.multiobjective import problem_objectives
from .axes import outside_legend
from .backend import new_figure
from .style import Style, publication

PANEL = 3.6  # inches per panel
#: The zoomed panel shows errors from the true front's best to this much (absolute: 0.1 = 10
#: percentage points) above it: twice the default region of interest of the scores (5 points, in
#: ``analysis.pareto``), so the zoom holds that region and the trade-offs just beyond it, in points
#: of accuracy on every dataset (best errors range from 6 % on CIFAR-10 to 53 % on ImageNet16-120).
ZOOM_ERROR = 0.1
#: Inches per cell of the Kendall matrix and the size (points) of its device labels: at the
#: report's width (the 27-device figure scaled to about 1,180 pixels) the labels are about 15 pixels high.
CELL = 0.27
LABEL_SIZE = 9


def pareto_fronts_figure(truths: dict, fronts: pd.DataFrame, style: Style | None = None):
    """Per problem (a row): the true front (black) and each configuration's median attainment
    surface of its final found fronts (``analysis.multiobjective.found_fronts``), zoomed on the
    accurate region (left: errors up to :data:`ZOOM_ERROR` above the best, where the problem has an
    error objective) and whole (right, the zoom outlined); ``truths`` maps a problem to its
    :class:`~nasarena.analysis.pareto.TrueFront`."""
    import moocore
    from matplotlib.patches import Rectangle

    style = style or Style.for_labels(fronts["label"])
    problems = sorted(truths)
    with publication():
        figure = new_figure(PANEL * 2.4 + 1.6, PANEL * len(problems))
        grid = figure.subplots(len(problems), 2, squeeze=False, gridspec_kw={"width_ratios": (3, 2)})
        for (zoom, whole), problem in zip(grid, problems):
            names = problem_objectives(problem)
            true_points = truths[problem].points[np.argsort(truths[problem].points[:, 0])]
            surfaces = {}
            for name, runs in fronts[fronts["problem"] == problem].groupby("label", sort=True):
                _, sets = np.unique(runs["seed"].to_numpy(), return_inverse=True)
                surface = moocore.eaf(runs[["x", "y"]].to_numpy(dtype=float), sets + 1, percentiles=[50])
                surfaces[name] = surface[np.argsort(surface[:, 0]), :2]  # moocore adds the percentile
            for axis in (zoom, whole):
                axis.step(true_points[:, 0], true_points[:, 1], where="post", color="black", linewidth=1.0)
                axis.plot(true_points[:, 0], true_points[:, 1], "k.", markersize=2.5)
                for name, surface in surfaces.items():
                    axis.step(surface[:, 0], surface[:, 1], where="post", **style.of(name).line())
                axis.set_xlabel(_axis_label(names[0]))
                axis.set_ylabel(_axis_label(names[1]))
                axis.set_yscale("log")
            (left, right), (bottom, top) = _zoom_limits(true_points, list(surfaces.values()),
                                                        names.index("error") if "error" in names else None)
            zoom.set_xlim(left, right)
            zoom.set_ylim(bottom, top)
            zoom.set_title(f"{problem}\naccurate region", fontsize="small")
            whole.add_patch(Rectangle((left, bottom), right - left, top - bottom, fill=False, edgecolor="#777777",
                                      linestyle=(0, (3, 2)), linewidth=0.8))
            whole.set_title("whole front (dashed: the zoom)", fontsize="small")
        shown = [n for n in style.labels if n in set(fronts["label"])]
        outside_legend(figure, [_true_handle(), *[style.of(n).handle() for n in shown]], ["true front", *shown],
                       title="median attainment\nof the found fronts")
    return figure


def _zoom_limits(true_points: np.ndarray, surfaces: list[np.ndarray], error: int | None) -> list[tuple[float, float]]:
    """The zoomed panel's (x, y) limits: the error objective (column ``error``; none: no bound)
    from the true front's best to :data:`ZOOM_ERROR` above it, the other one around the true and
    found points within that (x linear with a 4 % margin, y logarithmic with a 20 % one)."""
    points = [true_points, *surfaces]
    if error is not None:
        bound = float(true_points[:, error].min()) + ZOOM_ERROR
        points = [part[part[:, error] <= bound] for part in points]
    inside = np.concatenate(points)
    low, high = inside.min(axis=0), inside.max(axis=0)
    if error is not None:
        high[error] = bound
    margin = 0.04 * (high[0] - low[0]) or 0.01
    return [(float(low[0] - margin), float(high[0] + margin)), (float(low[1] / 1.2), float(high[1] * 1.2))]


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


def kendall_heatmap(devices: Sequence[str], matrix: np.ndarray, title: str, groups: Mapping[str, Sequence[str]]):
    """Kendall's tau between the latencies of every pair of device settings (1: the same order),
    ordered by ``groups`` (group name -> its devices, in the order drawn; every device in one):
    devices of a kind (GPUs at one batch size, CPUs, phones, ...) rank architectures alike, so a
    matrix grouped so shows blocks, outlined and named at the top, where one in another order
    shows noise."""
    order = [name for members in groups.values() for name in members]
    if sorted(order) != sorted(devices):
        raise ValueError(f"groups must hold every device once: {sorted(order)} against {sorted(devices)}")
    index = [list(devices).index(name) for name in order]
    ordered = np.asarray(matrix)[np.ix_(index, index)]
    with publication():
        size = CELL * len(order)
        figure = new_figure(size + 2.6, size + 2.2)
        axis = figure.subplots()
        image = axis.imshow(ordered, vmin=min(0.0, float(ordered.min())), vmax=1.0, cmap="viridis")
        axis.grid(False)
        axis.set_xticks(range(len(order)), order, rotation=90, fontsize=LABEL_SIZE)
        axis.set_yticks(range(len(order)), order, fontsize=LABEL_SIZE)
        ends = np.cumsum([len(members) for members in groups.values()])
        for end in ends[:-1]:
            axis.axhline(end - 0.5, color="white", linewidth=1.6)
            axis.axvline(end - 0.5, color="white", linewidth=1.6)
        top = axis.secondary_xaxis("top")
        top.set_xticks(ends - np.array([len(members) for members in groups.values()]) / 2 - 0.5, list(groups),
                       rotation=60, ha="left", rotation_mode="anchor", fontsize=LABEL_SIZE)
        top.tick_params(length=0)
        figure.suptitle(title)
        figure.colorbar(image, ax=axis, shrink=0.8, label="Kendall's tau of latency")
    return figure
