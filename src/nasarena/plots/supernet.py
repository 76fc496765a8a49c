"""Figures of a supernet evaluation ("Evaluating supernets"): ID rate against the random
baseline, rank correlation against ID rate over training, and the cluster plot (its Fig. 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .axes import tick_label
from .backend import new_figure
from .style import DASHES, publication

EPOCH_LABEL = "supernet training epoch"
#: Okabe-Ito colours, one per threshold k.
K_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


def id_rate_curves(curves: pd.DataFrame, baseline: pd.DataFrame):
    """a1(k) against k (log axes) for selected checkpoints, shaded from early (light) to late
    (dark), with the random-selection baseline k/N dashed. ``curves``: checkpoint, k, a1."""
    from matplotlib import colormaps

    checkpoints = list(dict.fromkeys(curves["checkpoint"]))
    shades = colormaps["viridis"](np.linspace(0.15, 0.9, len(checkpoints)))
    with publication():
        figure = new_figure(5.0, 3.4)
        axis = figure.add_subplot()
        for checkpoint, colour in zip(checkpoints, shades):
            part = curves[curves["checkpoint"] == checkpoint]
            axis.plot(part["k"], part["a1"], color=colour, label=_checkpoint_label(checkpoint))
        axis.plot(baseline["k"], baseline["a1"], color="black", linestyle=(0, (4, 2)), label="random (k/N)")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_ylim(max(baseline["a1"].min() / 2, 1e-5), 1.05)
        log_ticks(axis.xaxis)
        log_ticks(axis.yaxis)
        axis.set_xlabel("k (true top-k architectures)")
        axis.set_ylabel("top-architecture ID rate $a_1(k)$")
        axis.legend(fontsize="small", frameon=False, loc="lower right")
    return figure


def correlation_vs_id_rate(metrics: pd.DataFrame, ks=(10, 50, 100, 500)):
    """Over training: Spearman and Kendall over the space (left) against a1 at each k (right,
    log axis: a1(10) is often 0 or 0.1 and would vanish on a linear 0..1 axis)."""
    with publication():
        figure = new_figure(7.2, 3.0)
        left, right = figure.subplots(1, 2)
        epochs, names = checkpoint_axis(metrics["checkpoint"])
        for name, style in (("spearman", "-"), ("kendall", "--")):
            values = _series(metrics, name, "all")
            left.plot(epochs, values, color="black", linestyle=style, marker="o", markersize=2.5, label=name.title())
        left.axhline(0, color="#999999", linewidth=0.6)
        left.set_ylabel("rank correlation (all architectures)")
        left.legend(frameon=False, fontsize="small")
        floor = min(float(_series(metrics, "a1_baseline", k)[0]) for k in ks) / 2
        for k, shade, marker, dashes in zip(ks, K_COLOURS, "osD^v<>", DASHES * 2):
            values = _series(metrics, "a1", k)
            right.plot(epochs, np.maximum(values, floor), color=shade, marker=marker, markersize=3, linestyle=dashes,
                       label=f"k = {k}")
            right.axhline(float(_series(metrics, "a1_baseline", k)[0]), color=shade, linestyle=":", linewidth=0.9)
        right.set_yscale("log")
        right.set_ylim(floor / 1.5, 1.2)
        log_ticks(right.yaxis)
        right.set_ylabel("top-architecture ID rate $a_1(k)$")
        right.legend(frameon=False, fontsize="small", title="dotted: random k/N\nbottom edge: $a_1$ = 0",
                     title_fontsize="small", alignment="left")
        for axis in (left, right):
            axis.set_xlabel(EPOCH_LABEL if names is None else "supernet checkpoint")
            if names is not None:
                axis.set_xticks(epochs, names, rotation=45, ha="right")
    return figure


def cluster_plot(summary: pd.DataFrame, checkpoint: str):
    """Per structural cluster: mean supernet score against mean true accuracy, area ~ size
    (a legend gives the number of architectures of three bubble sizes)."""
    with publication():
        figure = new_figure(4.6, 3.6)
        axis = figure.add_subplot()
        largest = int(summary["size"].max())
        axis.scatter(summary["mean_true"], summary["mean_supernet"], s=_bubble(summary["size"], largest),
                     color="#0072B2", alpha=0.55, edgecolors="white", linewidths=0.4)
        for size in sorted({1, max(1, largest // 4), largest}):
            axis.scatter([], [], s=_bubble(size, largest), color="#0072B2", alpha=0.55, edgecolors="white",
                         label=f"{size:,} architecture{'s' if size > 1 else ''}")
        axis.legend(title="cluster size", fontsize="small", title_fontsize="small", frameon=False, loc="best",
                    labelspacing=1.2, borderpad=0.8)
        axis.set_xlabel("mean benchmark test accuracy of the cluster")
        axis.set_ylabel("mean supernet accuracy of the cluster")
        axis.set_title(f"{len(summary)} clusters, checkpoint {checkpoint}", fontsize="medium")
    return figure


def log_ticks(axis) -> None:
    """The tick labels of every other figure (plain numbers such as 0.001) on a log axis."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _: tick_label(value)))
    axis.set_minor_formatter(NullFormatter())


def _bubble(size, largest: int):
    return 8 + 120 * np.asarray(size) / largest


def checkpoint_axis(checkpoints) -> tuple[np.ndarray, list[str] | None]:
    """x positions of checkpoints: their epochs when every name is a number, else 0, 1, 2, ...
    with the names (second value) as tick labels."""
    names = [str(c) for c in dict.fromkeys(checkpoints)]
    try:
        return np.array([float(c) for c in names]), None
    except ValueError:
        return np.arange(len(names), dtype=float), names


def _series(metrics: pd.DataFrame, metric: str, parameter) -> np.ndarray:
    part = metrics[(metrics["metric"] == metric) & (metrics["parameter"].astype(str) == str(parameter))]
    return part["value"].to_numpy()


def _checkpoint_label(checkpoint: str) -> str:
    try:
        float(checkpoint)
    except ValueError:
        return str(checkpoint)
    return f"epoch {checkpoint}"
