"""Figures of a supernet evaluation ("Evaluating supernets"): ID rate against the random
baseline, rank correlation against ID rate over training, and the cluster plot (its Fig. 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .backend import new_figure
from .style import publication

EPOCH_LABEL = "supernet training epoch"


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
            axis.plot(part["k"], part["a1"], color=colour, label=f"epoch {checkpoint}")
        axis.plot(baseline["k"], baseline["a1"], color="black", linestyle=(0, (4, 2)), label="random (k/N)")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_ylim(max(baseline["a1"].min() / 2, 1e-5), 1.05)
        axis.set_xlabel("k (true top-k architectures)")
        axis.set_ylabel("top-architecture ID rate $a_1(k)$")
        axis.legend(fontsize="small", frameon=False, loc="lower right")
    return figure


def correlation_vs_id_rate(metrics: pd.DataFrame, ks=(10, 100, 500)):
    """Over training: Spearman and Kendall over the space (left) against a1 at a few k (right)."""
    with publication():
        figure = new_figure(7.2, 3.0)
        left, right = figure.subplots(1, 2)
        epochs = _epochs(metrics)
        for name, style in (("spearman", "-"), ("kendall", "--")):
            values = _series(metrics, name, "all")
            left.plot(epochs, values, color="black", linestyle=style, marker="o", markersize=2.5, label=name.title())
        left.axhline(0, color="#999999", linewidth=0.6)
        left.set_xlabel(EPOCH_LABEL)
        left.set_ylabel("rank correlation (all architectures)")
        left.legend(frameon=False, fontsize="small")
        for k, shade in zip(ks, ("#0072B2", "#D55E00", "#009E73")):
            right.plot(epochs, _series(metrics, "a1", k), color=shade, marker="o", markersize=2.5, label=f"k = {k}")
            right.axhline(float(_series(metrics, "a1_baseline", k)[0]), color=shade, linestyle=":", linewidth=0.9)
        right.set_xlabel(EPOCH_LABEL)
        right.set_ylabel("$a_1(k)$ (dotted: random)")
        right.set_ylim(0, 1)
        right.legend(frameon=False, fontsize="small")
    return figure


def cluster_plot(summary: pd.DataFrame, checkpoint: str):
    """Per structural cluster: mean supernet score against mean true accuracy, area ~ size."""
    with publication():
        figure = new_figure(4.6, 3.6)
        axis = figure.add_subplot()
        sizes = 8 + 120 * summary["size"] / summary["size"].max()
        axis.scatter(summary["mean_true"], summary["mean_supernet"], s=sizes, color="#0072B2", alpha=0.55,
                     edgecolors="white", linewidths=0.4)
        axis.set_xlabel("mean benchmark test accuracy of the cluster")
        axis.set_ylabel("mean supernet accuracy of the cluster")
        axis.set_title(f"{len(summary)} clusters, checkpoint {checkpoint}", fontsize="medium")
    return figure


def _epochs(metrics: pd.DataFrame) -> np.ndarray:
    return np.array([float(c) for c in dict.fromkeys(metrics["checkpoint"])])


def _series(metrics: pd.DataFrame, metric: str, parameter) -> np.ndarray:
    part = metrics[(metrics["metric"] == metric) & (metrics["parameter"].astype(str) == str(parameter))]
    return part["value"].to_numpy()
