"""The critical-difference diagram (Demšar 2006): mean ranks on an axis, and bars joining the
treatments whose mean ranks differ by less than Nemenyi's critical difference."""

from __future__ import annotations

from ..analysis.statistics import FriedmanNemenyi
from .backend import new_figure
from .style import publication


def cliques(ranks: list[float], critical: float) -> list[tuple[int, int]]:
    """Maximal runs ``(first, last)`` of the sorted mean ranks spanning at most ``critical``
    (each drawn as one bar; runs inside a longer one are left out)."""
    spans = []
    for first in range(len(ranks)):
        last = first
        while last + 1 < len(ranks) and ranks[last + 1] - ranks[first] <= critical:
            last += 1
        if last > first and not any(a <= first and last <= b for a, b in spans):
            spans.append((first, last))
    return spans


def critical_difference_figure(test: FriedmanNemenyi, title: str | None = None):
    """The diagram of ``test`` (mean ranks, rank 1 best, on the left)."""
    names = list(test.mean_ranks.index)
    ranks = [float(test.mean_ranks[name]) for name in names]
    count = len(names)
    half = (count + 1) // 2
    with publication():
        figure = new_figure(6.0, 1.2 + 0.28 * half)
        axis = figure.subplots()
        axis.set_xlim(-1.8, count + 2.8)  # rank 1 on the left; room for the labels on both sides
        axis.set_ylim(-(half + 1.5), 1.4)
        axis.axis("off")
        axis.hlines(0, 1, count, color="black", linewidth=0.8)
        for tick in range(1, count + 1):
            axis.vlines(tick, 0, 0.15, color="black", linewidth=0.8)
            axis.text(tick, 0.3, str(tick), ha="center", va="bottom", fontsize=8)
        for index, (name, rank) in enumerate(zip(names, ranks)):
            left = index < half
            row = -(index + 1) if left else -(count - index)
            end = 0.6 if left else count + 0.4
            axis.plot([rank, rank, end], [0, row, row], color="black", linewidth=0.7)
            axis.text(end, row, f" {name} ({rank:.2f}) " if left else f" ({rank:.2f}) {name} ",
                      ha="right" if left else "left", va="center", fontsize=8)
        if test.significant:
            for level, (first, last) in enumerate(cliques(ranks, test.critical_difference)):
                y = -0.35 - 0.25 * level
                axis.hlines(y, ranks[first] - 0.03, ranks[last] + 0.03, color="black", linewidth=2.2)
        axis.hlines(1.0, 1, 1 + test.critical_difference, color="black", linewidth=1.2)
        axis.text(1 + test.critical_difference / 2, 1.1, f"CD {test.critical_difference:.2f}", ha="center",
                  va="bottom", fontsize=8)
        if title:
            axis.set_title(title, fontsize=9)
    return figure
