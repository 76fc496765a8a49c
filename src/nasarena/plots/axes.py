"""Axis conventions shared by the figures: units, log scales that survive a regret of 0, panels.

Regret is drawn on a log axis (small differences near the optimum matter most), but a run
that found the optimum has regret exactly 0. Such values are clipped to the bottom of the
axis instead of vanishing, and the axis starts just below the smallest positive value.
"""

from __future__ import annotations

import numpy as np

from .backend import new_figure

TIME_LABEL = "simulated training time [s]"
EVALUATIONS_LABEL = "evaluations"
REGRET_LABEL = "test regret"
PANEL_WIDTH = 3.6
PANEL_HEIGHT = 2.8
LEGEND_WIDTH = 1.3


def log_limits(*values, margin: float = 1.25) -> tuple[float, float]:
    """Limits of a log axis showing every positive value, with a small margin each side."""
    finite = np.concatenate([np.asarray(v, dtype=float).ravel() for v in values])
    positive = finite[np.isfinite(finite) & (finite > 0)]
    if positive.size == 0:
        return 1e-4, 1.0
    low, high = float(positive.min()), float(positive.max())
    if high <= low:
        low, high = low / 2, high * 2
    return low / margin, high * margin


def set_log(axis, which: str, limits: tuple[float, float]) -> None:
    """Log scale on ``which`` ('x' or 'y'), zeros clipped to the axis edge, fixed limits.

    Over less than two decades, ticks at 1, 2 and 5 times powers of ten (and 3 within one decade);
    wider axes have powers of ten only. Every figure labels ticks the same way (:func:`tick_label`:
    plain numbers such as 0.002 or 10000), never a mix of 10^-3 on one figure and 0.001 on another.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if which == "x":
        axis.set_xscale("log", nonpositive="clip")
        axis.set_xlim(*limits)
        ticks = axis.xaxis
    else:
        axis.set_yscale("log", nonpositive="clip")
        axis.set_ylim(*limits)
        ticks = axis.yaxis
    if limits[1] / limits[0] < 1e2:
        subs = (1.0, 2.0, 3.0, 5.0) if limits[1] / limits[0] < 10 else (1.0, 2.0, 5.0)
        ticks.set_major_locator(LogLocator(subs=subs))
    ticks.set_major_formatter(FuncFormatter(lambda value, _: tick_label(value)))
    ticks.set_minor_formatter(NullFormatter())


def tick_label(value: float) -> str:
    """A plain number from 0.0001 to 999,999 (``0.005``, ``20000``); a power of ten beyond."""
    if value == 0 or 1e-4 <= abs(value) < 1e6:
        return f"{value:.6g}" if abs(value) < 1e5 else f"{value:.0f}"
    exponent = int(np.floor(np.log10(abs(value))))
    mantissa = value / 10**exponent
    return f"$10^{{{exponent}}}$" if np.isclose(mantissa, 1) else f"${mantissa:g}\\times10^{{{exponent}}}$"


def panels(count: int):
    """A figure with ``count`` panels side by side sharing the y axis, room on the right for a legend."""
    figure = new_figure(PANEL_WIDTH * count + LEGEND_WIDTH, PANEL_HEIGHT)
    axes = figure.subplots(1, count, sharey=True, squeeze=False)[0]
    return figure, list(axes)


def outside_legend(figure, handles, labels, title: str | None = None) -> None:
    """One legend for the whole figure, right of the panels, so it never covers data."""
    figure.legend(handles, labels, loc="outside right upper", title=title, alignment="left")
