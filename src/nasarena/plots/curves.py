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


def regret_over_time(curves: pd.DataFrame, style: Style | None = None, show_mean: bool = False,
                     regret_label: str = REGRET_LABEL):
    """Figure of regret against simulated training time (``incumbent_curves(axis="time")``);
    ``regret_label`` says what regret is measured on (see ``analysis.regret_basis``)."""
    return _regret_curves(curves, TIME_LABEL, style, show_mean, regret_label)


def regret_over_evaluations(curves: pd.DataFrame, style: Style | None = None, show_mean: bool = False,
                            regret_label: str = REGRET_LABEL):
    """Figure of regret against the number of evaluations (``incumbent_curves(axis="evaluations")``)."""
    return _regret_curves(curves, EVALUATIONS_LABEL, style, show_mean, regret_label)


def _regret_curves(curves: pd.DataFrame, x_label: str, style: Style | None, show_mean: bool, regret_label: str):

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
        axes[0].set_ylabel(regret_label)
        names = [n for n in style.labels if n in set(drawn["label"])]
        # What lines and bands mean goes in the legend's title, not in grey entries that would
        # read as one more configuration.
        title = "line: median of runs\nband: 25–75% of runs" + ("\nthin dashes: mean" if show_mean else "")
        outside_legend(figure, [style.of(n).handle() for n in names], names, title=title)
    return figure
