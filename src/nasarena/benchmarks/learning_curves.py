"""Validation accuracy at 4, 12 and 36 epochs for every NB101 cell, from the slice's real curves.

The only multi-fidelity NB101 data nasarena embeds is the 30,001-cell slice: one run's validation
accuracy at 4/12/36/108 epochs per cell (NB101 trains a separate run per budget, each with its
learning rate annealed to 0 at its end, so the four values are four runs). ``nb101-noisy`` gives
the other cells these budgets by borrowing a whole real curve: a cell whose best 108-epoch
validation accuracy is ``v`` gets the 4/12/36-epoch values of a *donor*, a slice cell drawn at
random among the ``DONOR_WINDOW`` cells (of the fit half) whose 108-epoch validation is nearest to
``v``. A donor's curve keeps what a fitted formula would lose: the skew of low-budget accuracy,
the runs that have not yet left chance level at 4 epochs, and the correlation between budgets.

The slice's 108-epoch validation is the best of the three runs' (:mod:`.noise_model`), so a
modelled cell's level is the best validation of its three 108-epoch trials, like with like.

``curve_agreement()`` checks the model where it was not fitted: donors from the slice cells with
even rows, drawn for the cells with odd rows from their own real 108-epoch validation, set beside
their real curves, per budget: the rank correlation with the 108-epoch value (what decides whether
a multi-fidelity search is misled, NB101 Supplement Fig. 7), over all cells and the top 10 %,
and the median per level bin.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from ..io.packaged import load_arrays
from .noise_model import LEVEL_EDGES, LITE_FILE, NOISE_SEED, RealDraws, real_draws, uniforms

#: The budgets below 108 epochs, in the order of the slice's columns.
LOWER_BUDGETS = (4, 12, 36)
#: Donors are drawn among this many fit-half cells nearest in 108-epoch validation accuracy
#: (the level differences within a window stay below 0.001 over the 0.80-0.95 range).
DONOR_WINDOW = 64
#: Hash stream of the donor draw (the noise streams of nb101_noisy use 0-18, 33-35 and 65-67).
DONOR_STREAM = 64
#: Share of the best cells (by 108-epoch validation) whose rank correlation is reported too.
TOP_SHARE = 0.1


@dataclass(frozen=True)
class CurveModel:
    """Donor cells sorted by their 108-epoch validation, with their 4/12/36-epoch validations."""

    level: np.ndarray  # (donors,) sorted
    curves: np.ndarray  # (donors, 3)

    def draw(self, level: np.ndarray, u: np.ndarray) -> np.ndarray:
        """(cells, 3): the curve of a donor drawn by ``u`` among the window nearest to ``level``."""
        start = np.clip(np.searchsorted(self.level, level) - DONOR_WINDOW // 2, 0, len(self.level) - DONOR_WINDOW)
        return self.curves[start + np.minimum((u * DONOR_WINDOW).astype(np.int64), DONOR_WINDOW - 1)]


@lru_cache(maxsize=1)
def slice_curves() -> np.ndarray:
    """(30001, 4), read-only: the slice's real validation accuracy at 4/12/36/108 epochs (rows as
    ``real_draws().slice_rows``); decompressed once."""
    curves = load_arrays(LITE_FILE)["slice_validation_accuracy"].astype(np.float64)
    curves.flags.writeable = False
    return curves


def fit_curves(fit_mask: np.ndarray | None = None, draws: RealDraws | None = None) -> CurveModel:
    """The donors: the slice cells in ``fit_mask`` (default: even rows)."""
    draws = draws or real_draws()
    fit_mask = draws.slice_rows % 2 == 0 if fit_mask is None else fit_mask
    curves = slice_curves()[fit_mask]
    order = np.argsort(curves[:, -1], kind="stable")
    return CurveModel(curves[order, -1], curves[order, :-1])


@lru_cache(maxsize=1)
def fitted_curves() -> CurveModel:
    """The model nb101-noisy uses (donors: the slice cells with even rows)."""
    return fit_curves()


def draw_curves(level: np.ndarray, rows: np.ndarray, model: CurveModel | None = None,
                seed: int = NOISE_SEED) -> np.ndarray:
    """(cells, 3) modelled 4/12/36-epoch validation of the cells ``rows`` at 108-epoch ``level``."""
    return (model or fitted_curves()).draw(level, uniforms(rows, DONOR_STREAM, seed))


def _rank_correlation(low: np.ndarray, high: np.ndarray) -> float:
    """Spearman's rho (Pearson's r of average ranks; NaN where either holds a NaN), without
    scipy.stats: it takes seconds to import, and every load of nb101-noisy checks the model."""
    ranks = pd.DataFrame({"low": low, "high": high}).rank()
    return float(np.corrcoef(ranks["low"], ranks["high"])[0, 1])


@dataclass(frozen=True)
class CurveAgreement:
    """Per budget (rows), held-out real against modelled: the rank correlation with the 108-epoch
    value over all cells and over the top ``TOP_SHARE``, and the largest absolute difference of
    the median per level bin of the 108-epoch value (``median_error``)."""

    table: pd.DataFrame

    def summary(self) -> str:
        parts = [f"{int(r.budget)} epochs: rank correlation with 108 epochs {r.real_rank:.2f} real / "
                 f"{r.modelled_rank:.2f} modelled ({r.real_top_rank:.2f} / {r.modelled_top_rank:.2f} in the top "
                 f"{100 * TOP_SHARE:.0f} %), median per level bin within {r.median_error:.3f}"
                 for r in self.table.itertuples()]
        return ("learning curves at 4/12/36 epochs against the held-out real slice curves (odd rows): "
                + "; ".join(parts))


@lru_cache(maxsize=1)
def curve_agreement() -> CurveAgreement:
    """The curves modelled for the held-out slice cells (odd rows) from donors of the fit half
    (a function of the embedded data only, so computed once)."""
    draws = real_draws()
    held_out = draws.slice_rows % 2 == 1
    real = slice_curves()[held_out]
    level = real[:, -1]
    modelled = draw_curves(level, draws.slice_rows[held_out], fit_curves(~held_out, draws))
    top = level >= np.quantile(level, 1 - TOP_SHARE)
    bins = np.digitize(level, LEVEL_EDGES)
    records = []
    for b, budget in enumerate(LOWER_BUDGETS):
        median_error = max(abs(float(np.median(real[bins == k, b]) - np.median(modelled[bins == k, b])))
                           for k in range(1, len(LEVEL_EDGES)) if (bins == k).sum() >= 100)
        records.append({"budget": budget,
                        "real_rank": _rank_correlation(real[:, b], level),
                        "modelled_rank": _rank_correlation(modelled[:, b], level),
                        "real_top_rank": _rank_correlation(real[top, b], level[top]),
                        "modelled_top_rank": _rank_correlation(modelled[top, b], level[top]),
                        "median_error": median_error})
    return CurveAgreement(pd.DataFrame.from_records(records))
