"""Incumbent regret over simulated time or evaluations (NAS-Bench-101's Fig. 7, left).

Input is :func:`nasarena.analysis.curves.incumbent_curves`. Each configuration is drawn as
its median incumbent regret over runs with the 25-75% band (the mean, dashed, on request),
as steps because the incumbent only changes when an evaluation finishes; one panel per
benchmark, both axes logarithmic.
"""

from __future__ import annotations

import pandas as pd

from .axes import EVALUATIONS_LABEL, REGRET_LABEL, TIME_LABEL, log_limits, outside_legend, panels, set_log
from .style import Style, publication


def regret_over_time(curves: pd.DataFrame, style: Style | None = None, show_mean: bool = False):
    """Figure of test regret against simulated training time (``incumbent_curves(axis="time")``)."""
    return _regret_curves(curves, TIME_LABEL, style, show_mean)


def regret_over_evaluations(curves: pd.DataFrame, style: Style | None = None, show_mean: bool = False):
    """Figure of test regret against the number of evaluations (``incumbent_curves(axis="evaluations")``)."""
    return _regret_curves(curves, EVALUATIONS_LABEL, style, show_mean)


def _regret_curves(curves: pd.DataFrame, x_label: str, style: Style | None, show_mean: bool):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    style = style or Style.for_labels(curves["label"])
    benchmarks = sorted(curves["benchmark"].unique())
    drawn = curves.dropna(subset=["median"])
    with publication():
        figure, axes = panels(len(benchmarks))
        for axis, bench in zip(axes, benchmarks):
            for name, curve in drawn[drawn["benchmark"] == bench].groupby("label", sort=True):
                line = style.of(name)
                axis.fill_between(curve["x"], curve["q25"], curve["q75"], step="post", color=line.colour,
                                  alpha=0.13, linewidth=0)
                axis.step(curve["x"], curve["median"], where="post", **line.line())
                if show_mean:
                    axis.step(curve["x"], curve["mean"], where="post", color=line.colour, linestyle=(0, (3, 1.5)),
                              linewidth=0.9)
            panel = drawn[drawn["benchmark"] == bench]
            set_log(axis, "x", (panel["x"].min(), panel["x"].max()))
            axis.set_xlabel(x_label)
            axis.set_title(bench)
        set_log(axes[0], "y", log_limits(drawn["q25"], drawn["q75"], drawn["median"], margin=1.1))
        axes[0].set_ylabel(REGRET_LABEL)
        names = [n for n in style.labels if n in set(drawn["label"])]
        handles = [Line2D([], [], **style.of(n).line()) for n in names]
        legend_names = list(names)
        grey = "#777777"
        handles += [Line2D([], [], color=grey), Patch(color=grey, alpha=0.3, linewidth=0)]
        legend_names += ["median", "25–75% of runs"]
        if show_mean:
            handles.append(Line2D([], [], color=grey, linestyle=(0, (3, 1.5)), linewidth=0.9))
            legend_names.append("mean")
        outside_legend(figure, handles, legend_names)
    return figure
