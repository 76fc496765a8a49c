"""The incumbent of a multi-objective run: the non-dominated set of its feasible evaluations.

Kept incrementally, one evaluation at a time (the run's fronts hold tens of points, so a scan
costs less than any sort); an evaluation equal to a member is not added, so the set holds each
point once, the first evaluation that reached it (as ``analysis.pareto.non_dominated``).
The runner records the front's size after every evaluation; the analysis replays the same
set over a run's rows to score the members' test vectors.
"""

from __future__ import annotations


class IncumbentFront:
    """Non-dominated validation vectors (minimised) and the keys (evaluation numbers) they came from."""

    def __init__(self) -> None:
        self.points: list[tuple[float, ...]] = []
        self.keys: list[int] = []

    def add(self, point: tuple[float, ...], key: int) -> bool:
        """Offer ``point``; True when it joins the front (members it dominates leave)."""
        for member in self.points:
            if all(m <= p for m, p in zip(member, point)):
                return False
        kept = [i for i, member in enumerate(self.points) if not all(p <= m for p, m in zip(point, member))]
        self.points = [self.points[i] for i in kept] + [point]
        self.keys = [self.keys[i] for i in kept] + [key]
        return True

    def __len__(self) -> int:
        return len(self.points)
