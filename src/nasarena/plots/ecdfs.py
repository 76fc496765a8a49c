"""ECDFs of final regret: robustness to the seed (NAS-Bench-101's Fig. 7, right) and the effect
of fewer repetitions (the anytime paper's Fig. 1).

Inputs are :func:`nasarena.analysis.ecdf.final_regret_ecdfs` and
:func:`nasarena.analysis.ecdf.repetition_subsamples`. The regret axis is logarithmic; a
curve further left and higher is better.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .axes import log_limits, outside_legend, panels, set_log
from .style import Style, publication

FINAL_REGRET_LABEL = "final test regret"  # default; the report passes what regret is measured on
ECDF_LABEL = "fraction of runs"
SUBSET_DASHES = (0, (4, 1.5))


def final_regret_ecdf(ecdfs: pd.DataFrame, style: Style | None = None, regret_label: str = FINAL_REGRET_LABEL):
    """One ECDF of final regret per configuration, one panel per benchmark."""

    style = style or Style.for_labels(ecdfs["label"])
    benchmarks = sorted(ecdfs["benchmark"].unique())
    limits = log_limits(ecdfs["regret"])
    with publication():
        figure, axes = panels(len(benchmarks))
        for axis, bench in zip(axes, benchmarks):
            for name, curve in ecdfs[ecdfs["benchmark"] == bench].groupby("label", sort=True):
                _step(axis, curve, limits, **style.of(name).line())
            _decorate(axis, bench, limits, regret_label)
        axes[0].set_ylabel(ECDF_LABEL)
        names = [n for n in style.labels if n in set(ecdfs["label"])]
        outside_legend(figure, [style.of(n).handle() for n in names], names)
    return figure


def repetition_ecdfs(subsamples: pd.DataFrame, style: Style | None = None, regret_label: str = FINAL_REGRET_LABEL):
    """ECDFs from a random subset of k runs (solid) next to all runs (dashed), per configuration."""
    from matplotlib.lines import Line2D

    style = style or Style.for_labels(subsamples["label"])
    benchmarks = sorted(subsamples["benchmark"].unique())
    limits = log_limits(subsamples["regret"])
    subset = next(s for s in subsamples["subset"].unique() if s != "all")
    with publication():
        figure, axes = panels(len(benchmarks))
        for axis, bench in zip(axes, benchmarks):
            for (name, part), curve in subsamples[subsamples["benchmark"] == bench].groupby(["label", "subset"]):
                dashes = SUBSET_DASHES if part == "all" else "solid"
                _step(axis, curve, limits, color=style.of(name).colour, linestyle=dashes)
            _decorate(axis, bench, limits, regret_label)
        axes[0].set_ylabel(ECDF_LABEL)
        names = [n for n in style.labels if n in set(subsamples["label"])]
        count = subset.removeprefix("k=")
        outside_legend(figure, [Line2D([], [], color=style.of(n).colour) for n in names], names,
                       title=f"solid: {count} random runs\ndashed: all runs")
    return figure


def _step(axis, curve: pd.DataFrame, limits: tuple[float, float], **line) -> None:
    """The ECDF as a staircase from 0 (left edge) to 1 (right edge); regret 0 jumps at the left edge."""
    x = np.concatenate([[limits[0]], np.maximum(curve["regret"], limits[0]), [limits[1]]])
    y = np.concatenate([[0.0], curve["ecdf"], [1.0]])
    axis.step(x, y, where="post", **line)


def _decorate(axis, bench: str, limits: tuple[float, float], regret_label: str) -> None:
    set_log(axis, "x", limits)
    axis.set_ylim(0, 1.02)
    axis.set_xlabel(regret_label)
    axis.set_title(bench)
