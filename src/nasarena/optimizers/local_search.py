"""Local search (White et al. 2020): hill-climb over the whole neighbourhood, restart when stuck.

From the current architecture every neighbour is evaluated (in a random order); the search
moves to the best one if it improves on the current architecture, otherwise it restarts
from a fresh random sample.
"""

from __future__ import annotations

from .base import Observation, Optimizer, Trial


class LocalSearch(Optimizer):
    name = "ls"
    summary = "local search: evaluate all neighbours, move to the best improvement, restart at random when stuck"

    def __init__(self, space, seed=0):
        super().__init__(space, seed)
        self.current: tuple[object, float] | None = None
        self.pending: list = []
        self.best_neighbour: tuple[object, float] | None = None

    def _ask(self, number: int) -> Trial:
        if self.current is not None and not self.pending:
            self._advance()
        if self.current is None or not self.pending:  # stuck, or a cell without neighbours
            self.current = None
            return Trial.from_fields(self.space.sample(self.rng), None, number)
        return Trial.from_fields(self.pending.pop(), None, number)

    def _advance(self) -> None:
        """Move to the best neighbour or restart; then queue the new neighbourhood."""
        if self.best_neighbour is not None and self.best_neighbour[1] > self.current[1]:
            self.current = self.best_neighbour
            self.best_neighbour = None
            self._queue_neighbourhood()
        else:
            self.current = None
            self.best_neighbour = None

    def _queue_neighbourhood(self) -> None:
        neighbours = list(self.space.neighbours(self.current[0]))
        order = self.rng.permutation(len(neighbours))
        self.pending = [neighbours[i] for i in order]

    def _tell(self, trial: Trial, observation: Observation) -> None:
        if not observation.valid:
            return
        scored = (trial.arch, observation.valid_accuracy)
        if self.current is None:
            self.current = scored
            self._queue_neighbourhood()
        elif self.best_neighbour is None or scored[1] > self.best_neighbour[1]:
            self.best_neighbour = scored
