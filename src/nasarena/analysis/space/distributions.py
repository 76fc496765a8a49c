"""Fig. 2 of the NB101 paper: accuracy distributions, trial noise, the best and the named cells."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ecdf import ecdf
from .data import SpaceData
from .structure import NAMED_CELLS

#: The paper's numbers (Sec. 3.1), mean test accuracy over 3 trials at 108 epochs.
PAPER = {"best_test": 0.9432, "ResNet-like": 0.9312, "Inception-like": 0.9295, "valid_test_r": 0.999}


@dataclass(frozen=True)
class NamedCell:
    name: str
    row: int
    accuracy: float  # test accuracy at the highest fidelity, NaN when the table lacks it
    rank: int | None  # 1 = best among the cells with a value
    percentile: float | None  # share of cells at least as good, %
    paper_accuracy: float | None


@dataclass(frozen=True)
class Distributions:
    ecdfs: dict[str, tuple[np.ndarray, np.ndarray]]  # metric -> (sorted values, cumulative share)
    noise: dict[int, np.ndarray]  # fidelity -> per-cell test-accuracy std over trials
    best_row: int
    best_test: float
    named: list[NamedCell]
    valid_test_r: float | None
    valid_test_spearman: float | None
    cells_with_test: int

    def to_dict(self) -> dict:
        def quantiles(values):
            return {f"q{q}": float(np.quantile(values, q / 100)) for q in (1, 10, 25, 50, 75, 90, 99)}

        return {
            "cells_with_test_accuracy": self.cells_with_test,
            "quantiles": {metric: quantiles(x) for metric, (x, _) in self.ecdfs.items()},
            "noise_std_median_by_fidelity": {str(f): float(np.median(s)) for f, s in self.noise.items()},
            "best": {"row": self.best_row, "test_accuracy": self.best_test, "paper": PAPER["best_test"]},
            "named_cells": [vars(cell) for cell in self.named],
            "valid_test_correlation": {"ours": self.valid_test_r, "ours_spearman": self.valid_test_spearman,
                                       "paper": PAPER["valid_test_r"]},
        }


def distributions(data: SpaceData) -> Distributions:
    metrics = {"train": data.train, "test": data.test}
    if not data.same_draw:  # on nb101-lite validation is the test draw: one curve, not two identical ones
        metrics["validation"] = data.valid
    ecdfs = {name: ecdf(values[np.isfinite(values)]) for name, values in metrics.items()
             if np.isfinite(values).any()}
    noise = {f: s[np.isfinite(s)] for f, s in zip(data.fidelities, data.test_std) if np.isfinite(s).any()}
    known = np.isfinite(data.test)
    test = np.where(known, data.test, -np.inf)
    best = int(np.argmax(test))
    order = np.sort(data.test[known])[::-1]
    named = []
    for name, cell in NAMED_CELLS.items():
        value = float(data.test[cell.row])
        rank = None if not np.isfinite(value) else int(np.searchsorted(-order, -value, side="left")) + 1
        named.append(NamedCell(name, cell.row, value, rank,
                               None if rank is None else 100.0 * rank / len(order), PAPER.get(name)))
    both = known & np.isfinite(data.valid)
    r = rho = None
    if both.sum() > 2 and not data.same_draw:
        from scipy.stats import spearmanr

        r = float(np.corrcoef(data.valid[both], data.test[both])[0, 1])
        rho = float(spearmanr(data.valid[both], data.test[both]).statistic)
    return Distributions(ecdfs, noise, best, float(data.test[best]), named, r, rho, int(known.sum()))
