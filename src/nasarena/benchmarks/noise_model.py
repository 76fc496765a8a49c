"""Training noise of NAS-Bench-101 at 108 epochs, fitted on the real repeated draws nasarena holds.

The embedded data has, per cell, one real test accuracy (trial 0); for the 30,001 slice cells
also a real validation accuracy of one training run (a second real draw); and for 52 cells all
three trials. The NB101 paper (Fig. 2, right) shows that the spread between trials depends on
the accuracy level and that a few runs diverge to chance accuracy (~10 %). The model:

* trial ``t`` of a cell with mean level ``mu``: ``test_t = mu + sigma_b(level) * z_t`` and
  ``valid_t = test_t + offset + sigma_w * w_t`` (``z``, ``w`` standard normal);
* ``sigma_b(level) = scale * pair_spread(level)``: ``pair_spread`` is the robust spread
  (1.4826 x MAD) of the slice pairs (validation minus test) by level, a quadratic in the level
  on a log scale fitted on the slice cells with even rows; ``scale`` puts it on the per-trial
  scale of the 52 real triples (their pooled between-trial standard deviation of test accuracy);
* ``offset`` and ``sigma_w``: mean and spread of validation minus test within one real trial
  (the 52 triples);
* the cell's mean given its ``k`` real non-failed draws averaging ``y`` (empirical Bayes, Tweedie's
  formula on the density ``p`` of the real trial-0 test accuracies of all cells):
  ``mean = y + s^2 (log p)'(y)`` and ``var = s^2 (1 + s^2 (log p)''(y))`` with ``s^2 = sigma_b^2 / k``;
  near the top of the space this pulls a lucky draw back towards the level its neighbours share,
  as the real means are (the best real draw is 0.9466, the best real mean 0.9432);
* a run fails (both accuracies drawn from the real failed values, all below 0.2) with the rate
  at which one slice draw failed while the other did not.

``agreement()`` checks the fit where it was not fitted: the slice cells with odd rows (pair
spread by level bin) and each half of the 52 triples predicted from the other half.
``table_agreement()`` compares the generated table's modelled cross-trial pairs with the real
slice pairs: they are about twice as spread, because the triples (which set the between-trial
scale) and the slice pairs disagree (see ``TableAgreement``); ``describe()`` says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.ndimage import gaussian_filter1d

from ..io.packaged import load_arrays

LITE_FILE = "nb101-lite.npz.xz"
TRIPLES_FILE = "nb101-pertrial-52.npz"
#: A draw below this accuracy is a failed (diverged) run; CIFAR-10 chance level is 0.10.
FAILED_BELOW = 0.2
#: Level bins of the pair-spread fit (the bins outside hold too few pairs for a stable spread).
LEVEL_EDGES = (0.80, 0.85, 0.88, 0.90, 0.91, 0.92, 0.93, 0.94, 0.96)
#: Bins with fewer held-out pairs than this are not scored in the agreement.
MIN_PAIRS = 100
#: Grid step and smoothing (standard deviation, in accuracy) of the density of real draws.
DENSITY_STEP, DENSITY_SMOOTHING = 0.0005, 0.002
#: The posterior variance factor is kept in [MIN_VARIANCE_FACTOR, 1] (the density's curvature is
#: noisy in the far tail).
MIN_VARIANCE_FACTOR = 0.25


def robust_spread(values: np.ndarray) -> float:
    """1.4826 x median absolute deviation: the standard deviation for normal data, unmoved by
    the heavy tails of a few badly trained runs."""
    values = np.asarray(values, dtype=np.float64)
    return float(1.4826 * np.median(np.abs(values - np.median(values))))


@dataclass(frozen=True)
class NoiseModel:
    """Fitted parameters (see the module docstring)."""

    spread_coefficients: tuple[float, float, float]  # log pair_spread = c0 + c1 * level + c2 * level^2
    level_range: tuple[float, float]  # levels are clamped into the fitted range
    scale: float  # sigma_b = scale * pair_spread
    offset: float  # mean validation minus test accuracy within a trial
    within_spread: float  # sigma_w
    failure_rate: float  # per modelled run
    failed_values: np.ndarray  # real failed accuracies, sorted (drawn by quantile)
    recovered_levels: np.ndarray  # real non-failed slice draws of cells whose other draw failed, sorted
    density_grid: np.ndarray  # levels at which the derivatives of log p are tabulated
    density_slope: np.ndarray  # (log p)'
    density_curvature: np.ndarray  # (log p)''

    def pair_spread(self, level) -> np.ndarray:
        """Robust spread of (validation - test) of two real runs of one cell, at ``level``."""
        c0, c1, c2 = self.spread_coefficients
        x = np.clip(np.asarray(level, dtype=np.float64), *self.level_range)
        return np.exp(c0 + c1 * x + c2 * x * x)

    def trial_spread(self, level) -> np.ndarray:
        """sigma_b: standard deviation of one trial's test accuracy around the cell's mean."""
        return self.scale * self.pair_spread(level)

    def posterior(self, level, draws) -> tuple[np.ndarray, np.ndarray]:
        """Mean and sd of a cell's mean level given ``draws`` real draws averaging ``level``."""
        level = np.asarray(level, dtype=np.float64)
        variance = self.trial_spread(level) ** 2 / np.maximum(np.asarray(draws), 1)
        slope = np.interp(level, self.density_grid, self.density_slope)
        curvature = np.interp(level, self.density_grid, self.density_curvature)
        factor = np.clip(1 + variance * curvature, MIN_VARIANCE_FACTOR, 1.0)
        return level + variance * slope, np.sqrt(variance * factor)

    def summary(self) -> str:
        at = self.trial_spread(np.array([0.85, 0.90, 0.93]))
        return (f"between-trial sd of test accuracy {at[0]:.4f} / {at[1]:.4f} / {at[2]:.4f} at accuracy "
                f"0.85 / 0.90 / 0.93; validation = test + {self.offset:.4f} (sd {self.within_spread:.4f}) within a "
                f"trial; failure rate {self.failure_rate:.4f} per run")


@dataclass(frozen=True)
class RealDraws:
    """The real repeated draws: slice pairs and the 52 triples (rows are sorted-hash positions)."""

    slice_rows: np.ndarray
    slice_valid: np.ndarray  # validation accuracy of one run, 108 epochs
    slice_test: np.ndarray  # test accuracy of trial 0
    triple_rows: np.ndarray
    triple_valid: np.ndarray  # (52, 3)
    triple_test: np.ndarray  # (52, 3)
    triple_time: np.ndarray  # (52, 3)
    test_trial0: np.ndarray  # (423624,) every cell


@lru_cache(maxsize=1)
def real_draws() -> RealDraws:
    lite = load_arrays(LITE_FILE)
    triples = load_arrays(TRIPLES_FILE)
    rows = np.flatnonzero(lite["training_time_is_real"])
    test = lite["test_accuracy_108"].astype(np.float64)
    return RealDraws(rows, lite["slice_validation_accuracy"][:, -1].astype(np.float64), test[rows],
                     triples["rows"], triples["valid_accuracy"].astype(np.float64),
                     triples["test_accuracy"].astype(np.float64), triples["training_time"].astype(np.float64), test)


def _pairs(draws: RealDraws, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(level, validation - test) of the non-failed slice pairs selected by ``mask``."""
    valid, test = draws.slice_valid[mask], draws.slice_test[mask]
    ok = (valid >= FAILED_BELOW) & (test >= FAILED_BELOW)
    return (valid[ok] + test[ok]) / 2, valid[ok] - test[ok]


def binned_spread(level: np.ndarray, difference: np.ndarray) -> pd.DataFrame:
    """Per level bin: pair count, mean level and robust spread of the differences."""
    bins = np.digitize(level, LEVEL_EDGES) - 1
    records = []
    for b in range(len(LEVEL_EDGES) - 1):
        inside = bins == b
        if inside.sum() >= 2:
            records.append({"low": LEVEL_EDGES[b], "high": LEVEL_EDGES[b + 1], "pairs": int(inside.sum()),
                            "level": float(level[inside].mean()), "spread": robust_spread(difference[inside])})
    return pd.DataFrame.from_records(records)


def _pooled_between_trial_sd(test: np.ndarray) -> float:
    deviations = test - test.mean(axis=1, keepdims=True)
    return float(np.sqrt((deviations ** 2).sum() / (test.shape[0] * (test.shape[1] - 1))))


def fit(draws: RealDraws | None = None, fit_mask: np.ndarray | None = None,
        triple_mask: np.ndarray | None = None) -> NoiseModel:
    """Fit the model on the slice cells in ``fit_mask`` (default: even rows) and the triples in
    ``triple_mask`` (default: all 52)."""
    draws = draws or real_draws()
    fit_mask = draws.slice_rows % 2 == 0 if fit_mask is None else fit_mask
    triple_mask = np.ones(len(draws.triple_rows), bool) if triple_mask is None else triple_mask
    level, difference = _pairs(draws, fit_mask)
    table = binned_spread(level, difference)
    coefficients = np.polynomial.polynomial.polyfit(table["level"], np.log(table["spread"]), 2,
                                                    w=np.sqrt(table["pairs"]))
    shape = NoiseModel(tuple(map(float, coefficients)), (LEVEL_EDGES[0], LEVEL_EDGES[-1]), 1.0, 0.0, 0.0, 0.0,
                       *(np.empty(0),) * 5)
    test, valid = draws.triple_test[triple_mask], draws.triple_valid[triple_mask]
    relative = test / shape.pair_spread(test.mean(axis=1))[:, None]  # between-trial sd in pair-spread units
    scale = _pooled_between_trial_sd(relative)
    within = valid - test
    valid_s, test_s = draws.slice_valid[fit_mask], draws.slice_test[fit_mask]
    failed_valid, failed_test = valid_s < FAILED_BELOW, test_s < FAILED_BELOW
    one_failed = failed_valid ^ failed_test
    failed = np.concatenate([valid_s[failed_valid], test_s[failed_test]])
    recovered = np.where(failed_test & ~failed_valid, valid_s - within.mean(), test_s)[one_failed]
    grid, slope, curvature = _log_density_derivatives(draws.test_trial0)
    return NoiseModel(
        spread_coefficients=shape.spread_coefficients,
        level_range=shape.level_range,
        scale=scale,
        offset=float(within.mean()),
        within_spread=float(within.std(ddof=1)),
        failure_rate=float(one_failed.sum() / (2 * len(valid_s))),
        failed_values=np.sort(failed),
        recovered_levels=np.sort(recovered),
        density_grid=grid,
        density_slope=slope,
        density_curvature=curvature,
    )


def _log_density_derivatives(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First and second derivative of the log of a smoothed histogram of the non-failed draws."""
    values = values[values >= FAILED_BELOW]
    edges = np.arange(FAILED_BELOW, 1.0 + DENSITY_STEP, DENSITY_STEP)
    counts, _ = np.histogram(values, edges)
    density = gaussian_filter1d(counts.astype(np.float64), DENSITY_SMOOTHING / DENSITY_STEP) + 1e-3
    grid = (edges[:-1] + edges[1:]) / 2
    slope = np.gradient(np.log(density), grid)
    return grid, slope, np.gradient(slope, grid)


@dataclass(frozen=True)
class Agreement:
    """How the model fitted on one part of the real draws predicts the other part.

    ``bins``: per level bin of the held-out slice pairs (odd rows), the observed robust spread,
    the model's ``pair_spread`` at the bin's mean level and their ratio. ``triples``: per half
    of the 52 triples, the pooled between-trial sd of test accuracy observed and predicted by
    the model whose scale was fitted on the other half.
    """

    bins: pd.DataFrame
    triples: pd.DataFrame

    @property
    def worst_bin_error(self) -> float:
        scored = self.bins[self.bins["pairs"] >= MIN_PAIRS]
        return float((scored["ratio"] - 1).abs().max())

    @property
    def worst_triple_error(self) -> float:
        return float((self.triples["ratio"] - 1).abs().max())

    def summary(self) -> str:
        scored = self.bins[self.bins["pairs"] >= MIN_PAIRS]
        return (f"on held-out real pairs (slice cells with odd rows, {int(scored['pairs'].sum()):,} pairs in "
                f"{len(scored)} level bins) the fitted pair-spread curve is within {100 * self.worst_bin_error:.0f} % of the "
                f"observed one in every bin; on each half of the 52 real triples, the between-trial sd predicted from "
                f"the other half is within {100 * self.worst_triple_error:.0f} %")


def agreement(draws: RealDraws | None = None) -> Agreement:
    draws = draws or real_draws()
    model = fit(draws)
    level, difference = _pairs(draws, draws.slice_rows % 2 == 1)
    bins = binned_spread(level, difference)
    bins["predicted"] = model.pair_spread(bins["level"].to_numpy())
    bins["ratio"] = bins["spread"] / bins["predicted"]
    halves = np.arange(len(draws.triple_rows)) % 2 == 0
    records = []
    for held_out in (halves, ~halves):
        half_model = fit(draws, triple_mask=~held_out)
        test = draws.triple_test[held_out]
        predicted = float(np.sqrt(np.mean(half_model.trial_spread(test.mean(axis=1)) ** 2)))
        observed = _pooled_between_trial_sd(test)
        records.append({"cells": int(held_out.sum()), "observed": observed, "predicted": predicted,
                        "ratio": observed / predicted})
    return Agreement(bins, pd.DataFrame.from_records(records))


@dataclass(frozen=True)
class TableAgreement:
    """The generated table against the real slice pairs, like with like.

    ``bins``: per level bin, the robust spread of (validation of trial 1 - test of trial 0) of
    the real slice pairs (``real``) and of the same pair of modelled draws in the other cells
    (``modelled``, with their ``ratio``). The between-trial scale comes from the 52 real
    triples, whose own cross-trial (validation - test) spread is wider than the slice pairs'
    at the same level: the two real sources agree only if many slice validation values come
    from the same training run as the cell's trial-0 test value (the data does not say which
    trial it is), so this ratio is reported rather than fitted away.
    """

    bins: pd.DataFrame

    def summary(self) -> str:
        scored = self.bins[(self.bins["pairs_real"] >= MIN_PAIRS) & (self.bins["pairs_modelled"] >= MIN_PAIRS)]
        return (f"the table's modelled validation-test pairs of different trials (validation of trial 1, test of "
                f"trial 0, cells outside the slice) are {scored['ratio'].min():.1f}-{scored['ratio'].max():.1f} "
                f"times as spread as the real slice pairs per level bin: the between-trial scale follows the 52 "
                f"real triples, whose cross-trial pairs are wider than the slice pairs (if the slice validation "
                f"values are partly from the test value's own run, the slice understates between-trial noise)")


def table_agreement(valid: np.ndarray, test: np.ndarray, draws: RealDraws | None = None) -> TableAgreement:
    """Compare the generated ``valid``/``test`` arrays (cells x trials) with the real slice pairs."""
    draws = draws or real_draws()
    in_slice = np.zeros(len(test), dtype=bool)
    in_slice[draws.slice_rows] = True
    tables = []
    for rows in (in_slice, ~in_slice):
        a, b = valid[rows, 1], test[rows, 0]
        ok = (a >= FAILED_BELOW) & (b >= FAILED_BELOW)
        tables.append(binned_spread((a[ok] + b[ok]) / 2, a[ok] - b[ok])[["low", "high", "pairs", "spread"]])
    bins = tables[0].merge(tables[1], on=["low", "high"], suffixes=("_real", "_modelled"))
    bins = bins.rename(columns={"spread_real": "real", "spread_modelled": "modelled"})
    bins["ratio"] = bins["modelled"] / bins["real"]
    return TableAgreement(bins)


@lru_cache(maxsize=1)
def fitted() -> NoiseModel:
    """The model nb101-noisy uses (fitted on even slice rows and all 52 triples)."""
    return fit()
