"""Boxplots of each run's hypervolume gap, per configuration (the anytime paper's Fig. 3).

Input is :func:`nasarena.analysis.anytime.run_hypervolumes`. The gap to the ideal point's
hypervolume summarises a whole (time, regret) trajectory in one number, smaller being better
anytime performance. Boxes are horizontal as in the paper, the best median on top, with every
run drawn as a dot (a box alone hides how few runs there may be).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .backend import new_figure
from .style import Style, publication

GAP_LABEL = "hypervolume gap to the ideal point (lower is better)"
ROW_HEIGHT = 0.32


def hypervolume_gap_boxplots(volumes: pd.DataFrame, style: Style | None = None):
    """Horizontal boxplots of ``hypervolume_gap``, one row per configuration, one panel per benchmark."""
    style = style or Style.for_labels(volumes["label"])
    benchmarks = sorted(volumes["benchmark"].unique())
    rows = volumes.groupby("benchmark")["label"].nunique().max()
    jitter = np.random.default_rng(0)  # fixed, so the same data always gives the same picture
    with publication():
        figure = new_figure(4.6, 0.9 + ROW_HEIGHT * rows * len(benchmarks))
        axes = figure.subplots(len(benchmarks), 1, sharex=True, squeeze=False)[:, 0]
        for axis, bench in zip(axes, benchmarks):
            runs = volumes[volumes["benchmark"] == bench]
            order = runs.groupby("label")["hypervolume_gap"].median().sort_values(ascending=False).index
            samples = [runs.loc[runs["label"] == name, "hypervolume_gap"].to_numpy() for name in order]
            boxes = axis.boxplot(samples, orientation="horizontal", widths=0.6, patch_artist=True,
                                 showfliers=False, medianprops={"color": "black", "linewidth": 1.0},
                                 whiskerprops={"linewidth": 0.7}, capprops={"linewidth": 0.7})
            for position, (box, name, sample) in enumerate(zip(boxes["boxes"], order, samples), start=1):
                colour = style.of(name).colour
                box.set(facecolor=colour, alpha=0.35, edgecolor=colour, linewidth=0.8)
                axis.scatter(sample, position + jitter.uniform(-0.18, 0.18, len(sample)), s=5, color=colour,
                             linewidths=0, zorder=3)
            axis.set_yticks(range(1, len(order) + 1), [f"{name} ({len(s)})" for name, s in zip(order, samples)])
            axis.grid(axis="y", visible=False)
            axis.set_title(bench)
        axes[-1].set_xlabel(GAP_LABEL)
    return figure
