"""Fig. 4 of the NB101 paper: what replacing one op by another does to accuracy and training time.

For every cell and every interior vertex holding op ``a``, the cell with ``b`` at that vertex
has the same graph and a labelling code that differs in one base-3 digit, so its unique-cell
row is one look-up in the labelled table: the replacement is a join on hashes over all
423,624 cells at once, never a loop over cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...spaces.nb101.lookup import labelled_table
from ...spaces.nb101.table import unique_cells
from ...spaces.nb101.vocabulary import OPS
from .data import SpaceData, accuracy_metric

SHORT = {"conv3x3-bn-relu": "conv3x3", "conv1x1-bn-relu": "conv1x1", "maxpool3x3": "maxpool3x3"}
#: NB101 paper Sec. 3.2 (mean validation accuracy over 3 trials): accuracy change in percentage
#: points and relative training-time change in %, for (from, to).
PAPER = {("conv3x3", "conv1x1"): (-1.16, -14.11), ("conv3x3", "maxpool3x3"): (-1.99, -9.84),
         ("conv1x1", "maxpool3x3"): (-0.81, 5.04)}


def replacement_pairs(source: int, target: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, row with one ``source`` op replaced by ``target``) for every cell and every position."""
    cells = unique_cells()
    table = labelled_table()
    keys = (cells.num_vertices.astype(np.int64) << 32) | cells.bitmasks.astype(np.int64)
    graphs = np.searchsorted(table.graph_keys, keys)
    interior = cells.num_vertices.astype(np.int64) - 2
    labels = cells.labellings.astype(np.int64)
    code = np.zeros(len(cells), dtype=np.int64)
    for i in range(labels.shape[1]):
        code = np.where(i < interior, code * 3 + np.maximum(labels[:, i], 0), code)
    base = table.labelled_offsets[graphs]
    sources, targets = [], []
    for i in range(labels.shape[1]):
        at = np.flatnonzero(labels[:, i] == source)
        step = 3 ** (interior[at] - 1 - i)
        sources.append(at)
        targets.append(table.row_of_labelled[base[at] + code[at] + (target - source) * step].astype(np.int64))
    return np.concatenate(sources), np.concatenate(targets)


@dataclass(frozen=True)
class Replacement:
    source: str
    target: str
    pairs: int
    accuracy_change: np.ndarray  # percentage points, pairs where both have an accuracy
    time_change_real: np.ndarray  # relative change in %, pairs where both times are measured
    time_change_all: np.ndarray  # the same with modelled times included

    def summary(self) -> dict:
        def mean(x):
            return float(np.mean(x)) if len(x) else None

        paper = PAPER.get((self.source, self.target))
        return {"from": self.source, "to": self.target, "replacements": self.pairs,
                "accuracy_pairs": int(len(self.accuracy_change)),
                "mean_accuracy_change_pp": mean(self.accuracy_change),
                "mean_abs_accuracy_change_pp": mean(np.abs(self.accuracy_change)),
                "real_time_pairs": int(len(self.time_change_real)),
                "mean_time_change_pct_real": mean(self.time_change_real),
                "mean_time_change_pct_with_modelled": mean(self.time_change_all),
                "paper_accuracy_change_pp": None if paper is None else paper[0],
                "paper_time_change_pct": None if paper is None else paper[1]}


def replacements(data: SpaceData) -> tuple[str, list[Replacement]]:
    """Every ordered op pair, on the accuracy the paper used (validation; test if there is none)."""
    metric, accuracy = accuracy_metric(data)
    result = []
    for a, source in enumerate(OPS):
        for b, target in enumerate(OPS):
            if a == b:
                continue
            rows, replaced = replacement_pairs(a, b)
            both = np.isfinite(accuracy[rows]) & np.isfinite(accuracy[replaced])
            change = 100.0 * (accuracy[replaced] - accuracy[rows])[both]
            timed = np.isfinite(data.cost[rows]) & np.isfinite(data.cost[replaced])
            relative = 100.0 * (data.cost[replaced] / data.cost[rows] - 1.0)
            real = timed & data.cost_real[rows] & data.cost_real[replaced]
            result.append(Replacement(SHORT[source], SHORT[target], int(len(rows)), change, relative[real],
                                      relative[timed]))
    return metric, result
