"""Hypervolume boxplots grouped by experimental setup (the anytime paper's Fig. 3).

Input: :func:`nasarena.analysis.anytime.run_hypervolumes` of one benchmark's runs with a
``setup`` column (merge it from the final results). One panel per setup, in the paper's order
(O, VS, C, CVS, then any other), one horizontal box per optimizer with every run as a dot;
the x-axis is the hypervolume gap to the ideal point (smaller is better).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .backend import new_figure
from .hypervolume import GAP_LABEL
from .style import Style, publication

SETUP_ORDER = ("O", "VS", "C", "CVS")
ROW_HEIGHT = 0.3


def setup_boxplots(volumes: pd.DataFrame, style: Style | None = None, title: str | None = None):
    """Boxplots of ``hypervolume_gap`` per optimizer, one panel per setup."""
    setups = sorted(volumes["setup"].unique(), key=lambda s: (SETUP_ORDER.index(s) if s in SETUP_ORDER else 99, s))
    optimizers = sorted(volumes["optimizer"].unique())
    style = style or Style.for_labels(optimizers)
    jitter = np.random.default_rng(0)  # fixed: the same data always gives the same picture
    with publication():
        figure = new_figure(4.6, 0.8 + ROW_HEIGHT * len(optimizers) * len(setups) + 0.3 * len(setups))
        axes = figure.subplots(len(setups), 1, sharex=True, squeeze=False)[:, 0]
        for axis, setup in zip(axes, setups):
            runs = volumes[volumes["setup"] == setup]
            names = [o for o in optimizers if (runs["optimizer"] == o).any()]
            samples = [runs.loc[runs["optimizer"] == o, "hypervolume_gap"].to_numpy() for o in names]
            boxes = axis.boxplot(samples, orientation="horizontal", widths=0.6, patch_artist=True, showfliers=False,
                                 medianprops={"color": "black", "linewidth": 1.0})
            for position, (box, name, sample) in enumerate(zip(boxes["boxes"], names, samples), start=1):
                colour = style.of(name).colour
                box.set(facecolor=colour, alpha=0.35, edgecolor=colour, linewidth=0.8)
                axis.scatter(sample, position + jitter.uniform(-0.18, 0.18, len(sample)), s=5, color=colour,
                             linewidths=0, zorder=3)
            axis.set_yticks(range(1, len(names) + 1), [f"{n} ({len(s)})" for n, s in zip(names, samples)])
            axis.set_ylabel(setup)
            axis.grid(axis="y", visible=False)
        if title:
            axes[0].set_title(title)
        axes[-1].set_xlabel(GAP_LABEL)
    return figure
