"""Fig. 3 of the NB101 paper: cost and size against accuracy, the Pareto front and who lies near it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...spaces.nb101 import Cell
from .data import SpaceData, accuracy_metric
from .structure import NAMED_CELLS


def pareto_front(cost: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Indices of the cells no other cell beats in both lower cost and higher accuracy, by cost."""
    order = np.lexsort((-accuracy, cost))
    best_so_far = np.maximum.accumulate(accuracy[order])
    improves = np.concatenate([[True], accuracy[order][1:] > best_so_far[:-1]])
    return order[improves]


def front_gap(cost: np.ndarray, accuracy: np.ndarray, front: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Accuracy below the front at each row's cost (0 on the front)."""
    front_cost, front_accuracy = cost[front], accuracy[front]
    at = np.searchsorted(front_cost, cost[rows], side="right") - 1
    reachable = np.where(at >= 0, front_accuracy[np.maximum(at, 0)], -np.inf)
    return np.maximum(reachable - accuracy[rows], 0.0)


def inception_neighbours() -> np.ndarray:
    """Rows of the valid cells one edit (an op or an edge flip) away from the Inception-like cell."""
    cell = NAMED_CELLS["Inception-like"]
    matrix, ops = np.array(cell.matrix), list(cell.ops)
    rows = set()
    n = len(ops)
    for x in range(n):
        for y in range(x + 1, n):
            flipped = matrix.copy()
            flipped[x, y] ^= 1
            rows.add(Cell(flipped, ops).row)
    for v in range(1, n - 1):
        for op in {"conv3x3-bn-relu", "conv1x1-bn-relu", "maxpool3x3"} - {ops[v]}:
            rows.add(Cell(matrix, [*ops[:v], op, *ops[v + 1:]]).row)
    rows.discard(None)
    rows.discard(cell.row)
    return np.array(sorted(rows), dtype=np.int64)


@dataclass(frozen=True)
class CostSize:
    metric: str
    rows: np.ndarray  # cells drawn (value and real cost present; all with a value if none is real)
    cost_is_real: bool
    front: np.ndarray  # rows on the Pareto front
    named_gap: dict[str, float]  # named cell -> accuracy below the front at its cost
    neighbours: np.ndarray
    corr_params_time: float
    corr_time_accuracy: float

    def to_dict(self) -> dict:
        return {"accuracy": self.metric, "cells": int(len(self.rows)), "training_time_real": self.cost_is_real,
                "pareto_front_size": int(len(self.front)), "front_rows": self.front.tolist(),
                "named_cells_below_front": self.named_gap, "inception_neighbours": int(len(self.neighbours)),
                "spearman_parameters_time": self.corr_params_time,
                "spearman_time_accuracy": self.corr_time_accuracy}


def cost_and_size(data: SpaceData) -> CostSize:
    from scipy.stats import spearmanr

    metric, accuracy = accuracy_metric(data)
    have = np.isfinite(accuracy) & np.isfinite(data.cost)
    real = have & data.cost_real
    rows = np.flatnonzero(real if real.any() else have)
    front = rows[pareto_front(data.cost[rows], accuracy[rows])]
    named = {name: float(front_gap(data.cost, accuracy, front, np.array([cell.row]))[0])
             for name, cell in NAMED_CELLS.items() if cell.row in set(rows.tolist())}
    return CostSize(
        metric, rows, bool(real.any()), front, named, inception_neighbours(),
        float(spearmanr(data.parameters[rows], data.cost[rows]).statistic),
        float(spearmanr(data.cost[rows], accuracy[rows]).statistic),
    )
