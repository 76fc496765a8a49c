"""Attainment surfaces and EAF difference plots of (time, regret) fronts (the anytime paper's Fig. 4).

Inputs come from :mod:`nasarena.analysis.attainment`. An attainment surface is a staircase:
the regret that p% of the runs reach by each moment. The EAF difference plot has two panels
sharing both axes: the left one shades where configuration A attains a region more often than
B, the right one where B does, darker for larger differences; both show the 50% attainment
surfaces of A and B dashed. Time is on a log axis, as is regret.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .axes import PANEL_HEIGHT, PANEL_WIDTH, REGRET_LABEL, TIME_LABEL, log_limits, outside_legend, panels, set_log
from .backend import new_figure
from .style import Style, publication

DIFFERENCE_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
SURFACE_DASHES = (0, (4, 1.5))


def attainment_surfaces_figure(surfaces: pd.DataFrame, style: Style | None = None, title: str | None = None,
                               regret_label: str = REGRET_LABEL):
    """One panel per attainment level, one staircase per configuration.

    ``surfaces`` has the columns of ``attainment_surfaces`` plus ``label``.
    """
    style = style or Style.for_labels(surfaces["label"])
    levels = sorted(surfaces["level"].unique())
    x_limits = log_limits(surfaces["time"], margin=1.3)
    y_limits = log_limits(surfaces["regret"], margin=1.15)
    with publication():
        figure, axes = panels(len(levels))
        for axis, level in zip(axes, levels):
            for name, surface in surfaces[surfaces["level"] == level].groupby("label", sort=True):
                staircase(axis, surface, x_limits, y_limits, **style.of(name).line())
            set_log(axis, "x", x_limits)
            axis.set_xlabel(TIME_LABEL)
            axis.set_title(f"{level:g}% attainment surface")
        set_log(axes[0], "y", y_limits)
        axes[0].set_ylabel(regret_label)
        names = [n for n in style.labels if n in set(surfaces["label"])]
        outside_legend(figure, [style.of(n).handle() for n in names], names)
        if title:
            figure.suptitle(title)
    return figure


def eaf_difference_figure(difference: pd.DataFrame, surface_a: pd.DataFrame, surface_b: pd.DataFrame,
                          label_a: str, label_b: str, style: Style | None = None, title: str | None = None,
                          regret_label: str = REGRET_LABEL):
    """The two-panel EAF difference plot of ``eaf_difference(results, label_a, label_b)``.

    ``surface_a`` and ``surface_b`` are the configurations' 50% attainment surfaces.
    """
    from matplotlib.cm import ScalarMappable
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.lines import Line2D

    style = style or Style.for_labels([label_a, label_b])
    x_limits = log_limits(difference["time_low"], difference["time_high"], surface_a["time"], surface_b["time"],
                          margin=1.3)
    y_limits = log_limits(difference["regret_low"], difference["regret_high"], surface_a["regret"],
                          surface_b["regret"], margin=1.15)
    greys = ListedColormap([str(1 - g) for g in np.linspace(0.2, 0.85, len(DIFFERENCE_BINS) - 1)])
    norm = BoundaryNorm(DIFFERENCE_BINS, greys.N)
    with publication():
        figure = new_figure(2 * PANEL_WIDTH + 0.9, PANEL_HEIGHT + 0.4)
        axes = figure.subplots(1, 2, sharey=True)
        for axis, sign, name in ((axes[0], 1, label_a), (axes[1], -1, label_b)):
            part = difference[sign * difference["difference"] > 0]
            axis.add_collection(PolyCollection(_rectangles(part, x_limits, y_limits), array=sign * part["difference"],
                                               cmap=greys, norm=norm, edgecolors="face", linewidths=0.2))
            staircase(axis, surface_a, x_limits, y_limits, color=style.of(label_a).colour, linestyle=SURFACE_DASHES)
            staircase(axis, surface_b, x_limits, y_limits, color=style.of(label_b).colour, linestyle=SURFACE_DASHES)
            set_log(axis, "x", x_limits)
            axis.set_xlabel(TIME_LABEL)
            axis.set_title(f"{name} attains more often")
            axis.grid(False)
        set_log(axes[0], "y", y_limits)
        axes[0].set_ylabel(regret_label)
        figure.colorbar(ScalarMappable(norm, greys), ax=list(axes), location="right", shrink=0.9,
                        label="EAF difference (share of runs)", ticks=DIFFERENCE_BINS)
        handles = [Line2D([], [], color=style.of(n).colour, linestyle=SURFACE_DASHES) for n in (label_a, label_b)]
        figure.legend(handles, [f"50% attainment: {label_a}", f"50% attainment: {label_b}"],
                      loc="outside lower center", ncols=2)
        if title:
            figure.suptitle(title)
    return figure


def staircase(axis, surface: pd.DataFrame, x_limits, y_limits, **line) -> None:
    """A (time, regret) attainment surface: down from the top edge at its first point, right to the edge."""
    points = surface.sort_values("time")
    x = np.concatenate([[points["time"].iloc[0]], points["time"], [x_limits[1]]])
    y = np.concatenate([[y_limits[1]], points["regret"], [points["regret"].iloc[-1]]])
    axis.step(x, y, where="post", **line)


def _rectangles(part: pd.DataFrame, x_limits, y_limits) -> list[np.ndarray]:
    """Corner lists of the difference rectangles, unbounded sides cut at the axis limits."""
    x0, y0 = part["time_low"].to_numpy(), part["regret_low"].to_numpy()
    x1 = np.minimum(part["time_high"].to_numpy(), x_limits[1])
    y1 = np.minimum(part["regret_high"].to_numpy(), y_limits[1])
    return [np.array([[a, b], [c, b], [c, d], [a, d]]) for a, b, c, d in zip(x0, y0, x1, y1)]
