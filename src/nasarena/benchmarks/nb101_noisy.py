"""``nb101-noisy``: all 423,624 NB101 cells with three trials each, real where the data has them.

``nb101-lite`` holds one accuracy draw per cell and uses it as validation *and* test accuracy,
so an optimizer's incumbent is scored on the very draw that selected it. Here, as in the
official benchmark, every cell has three training runs with a validation and a test accuracy
each; a query draws one run, and regret is measured on the mean test accuracy over the three.

Per cell (rows are sorted-hash positions):

* trial 0: the real test accuracy (every cell); its validation accuracy is modelled;
* trial 1 of the 30,001 slice cells: the slice's real validation accuracy, the best of the three
  runs' (see below); its test accuracy is modelled (the modelled validations of trials 0 and 2
  are not held below it);
* the 52 cells with all three real trials: everything real (time per trial too);
* everything else is drawn from :mod:`.noise_model` around the cell's mean level, whose
  posterior given the cell's real draws (``NoiseModel.posterior``, empirical Bayes) pulls a lucky
  draw back to the level its neighbours share (regression to the mean of selected maxima);
* the sum of a cell's modelled trials is drawn below what keeps its 3-trial mean under the
  paper's best mean, 0.9432 (``PAPER_BEST_MEAN``): the table is drawn given that published fact.

Version 2.0 (issue 29, point 3) reads the slice's validation accuracy as the best of the three
runs (it never fails alone: 0 of 30,001 pairs against 133 failed tests; its offset to the test
accuracy, 0.008, is the 52 triples' best-of-three offset, 0.0081, not their same-run 0.0056), so
the between-trial sd is twice version 1.1's and the shrinkage of selected maxima four times.
Before (1.1) and after (2.0), real beside them:

==========================================  ==========  ==========  ===========================
quantity                                    1.1         2.0         real
==========================================  ==========  ==========  ===========================
best 3-trial mean                           0.9479      0.9430      0.9432 (paper)
best mean without the 0.9432 bound          0.9479      0.9446      -
mean of the top-100 3-trial means           0.9420      0.9411      not in the embedded data
top-10 means                                0.9444      0.9425      -
cells with a mean above 0.94                255         137         -
trial sd of the top-100 cells, median       0.0011      0.0023      -
trial sd of the top-100 cells, rms          0.0013      0.0027      0.0034 (13 triples >= 0.92)
drop of the top 1 % draws' second draw      -0.0014     -0.0025     -0.0031 (held-out slice)
drop of the top 5 % draws' second draw      -0.0011     -0.0019     -0.0022 (held-out slice)
between-trial sd vs the 52 triples          1/2.7       1/1.4       1
modelled pairs vs held-out slice pairs      within 10%  within 14%  (per level bin)
==========================================  ==========  ==========  ===========================

The drop (``noise_model.regression_agreement``) is how far the median (second draw - trial 0's
test) of the cells whose trial-0 draw is in the top 1 % / 5 % lies below that of all cells: the
regression to the mean of selected maxima, measured on the slice cells with odd rows, which no
fit saw. The 2.0 pair check compares the table's best-of-three validation minus trial 0's test
with the real slice pairs, like with like (1.1 compared trial 1's validation). The real top-100
means are not in the embedded data; 0.9411 is the model's.

The draws are a fixed function of the cell's row and of ``NOISE_SEED``: each standard normal
is the inverse normal CDF of a uniform made by the SplitMix64 hash of (seed, row, stream), pure
64-bit integer arithmetic, so the table is identical on every machine and numpy version.
``Result.modelled`` names the modelled fields of the trial a query returned.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from ..io.packaged import load_arrays, read_manifest
from .nb101 import LITE_FILE, NB101Benchmark
from .noise_model import (
    FAILED_BELOW,
    NOISE_SEED,
    TRIPLES_FILE,
    NoiseModel,
    agreement,
    fitted,
    normals,
    real_draws,
    table_agreement,
    uniforms,
)
from .protocol import Description
from .result import Result
from .tabular import COST, END, METRICS, TEST, VALID, TabularData

TRIALS = 3
#: 2.0: the between-trial noise read from the best-of-three slice pairs, the 0.9432 bound (issue 29).
VERSION = "2.0"
#: The NB101 paper's best mean test accuracy over the three trials (Sec. 4: 94.32 %): no cell's
#: modelled mean exceeds it (the table is drawn given this published fact).
PAPER_BEST_MEAN = 0.9432
# hash streams: one per random quantity of a cell
_MEAN, _FAIL, _FAILED_VALID, _FAILED_TEST, _RECOVERED = range(5)
_TEST_Z, _VALID_W = 8, 16  # + trial


def _quantile_draw(sorted_values: np.ndarray, u: np.ndarray) -> np.ndarray:
    return sorted_values[np.minimum((u * len(sorted_values)).astype(np.int64), len(sorted_values) - 1)]


def _mean_levels(model: NoiseModel, draws, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The level of every cell's real non-failed draws (on the test-accuracy scale) and the
    posterior centre and sd of its mean level given them; a cell whose every real draw failed gets
    a level drawn from the levels of the cells that recovered from one failed draw, and no spread."""
    n = len(draws.test_trial0)
    slice_valid = np.full(n, np.nan)
    slice_valid[draws.slice_rows] = draws.slice_valid
    known = np.stack([np.where(draws.test_trial0 >= FAILED_BELOW, draws.test_trial0, np.nan),
                      np.where(slice_valid >= FAILED_BELOW, slice_valid - model.offset(slice_valid), np.nan)], axis=1)
    count = (~np.isnan(known)).sum(axis=1)
    with np.errstate(invalid="ignore"):
        level = np.nansum(known, axis=1) / np.maximum(count, 1)
    none_known = count == 0
    level[none_known] = _quantile_draw(model.recovered_levels, uniforms(np.flatnonzero(none_known), _RECOVERED, seed))
    centre, spread = model.posterior(level, count)
    return level, np.where(none_known, level, centre), np.where(none_known, 0.0, spread)


def _free_trials_sum(centre, spread, sigma_b, free_count, room, u) -> np.ndarray:
    """The sum of a cell's free (modelled, non-failed) trials' test accuracies: normal around
    ``free_count`` times the mean level, with the level's and the trials' variance, drawn by
    inverse CDF from ``u`` below ``room`` (what keeps the cell's mean under PAPER_BEST_MEAN)."""
    sd = np.sqrt(free_count ** 2 * spread ** 2 + free_count * sigma_b ** 2)
    below = ndtr((room - free_count * centre) / np.maximum(sd, 1e-12))
    return free_count * centre + sd * ndtri(np.maximum(u * below, 1e-300))


def build_table(seed: int = NOISE_SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(valid, test, real) arrays of shape (423624, 3): accuracies and a flag per value pair,
    bit 0 valid real, bit 1 test real."""
    model = fitted()
    draws = real_draws()
    n = len(draws.test_trial0)
    rows = np.arange(n)
    valid = np.full((n, TRIALS), np.nan)
    test = np.full((n, TRIALS), np.nan)
    real = np.zeros((n, TRIALS), dtype=np.uint8)
    test[:, 0] = draws.test_trial0
    real[:, 0] |= 2
    valid[draws.slice_rows, 1] = draws.slice_valid
    real[draws.slice_rows, 1] |= 1
    real_valid, real_test = (real & 1).astype(bool), (real & 2).astype(bool)
    # the noise spreads are taken at the level of the real draws, the level by which they were fitted
    level, centre, spread = _mean_levels(model, draws, seed)
    sigma_b = model.trial_spread(level)
    # a run whose one real accuracy failed (or not) fails (or not) on the other set too
    modelled_fail = np.stack([uniforms(rows, _FAIL + 32 * t, seed) for t in range(TRIALS)], axis=1) < model.failure_rate
    failed = np.where(real_test, test < FAILED_BELOW, np.where(real_valid, valid < FAILED_BELOW, modelled_fail))
    free = ~real_valid & ~real_test & ~failed
    failed_valid, failed_test = (np.stack([_quantile_draw(model.failed_values, uniforms(rows, stream + 32 * t, seed))
                                           for t in range(TRIALS)], axis=1) for stream in (_FAILED_VALID, _FAILED_TEST))
    shift = (model.within_offset(level)[:, None] + model.within_spread(level)[:, None]
             * np.stack([normals(rows, _VALID_W + t, seed) for t in range(TRIALS)], axis=1))
    test = np.where(real_test, test, np.where(~failed, valid - shift, np.where(real_valid, failed_valid, failed_test)))
    free_count = free.sum(axis=1)
    room = TRIALS * PAPER_BEST_MEAN - np.where(free, 0.0, test).sum(axis=1)
    total = _free_trials_sum(centre, spread, sigma_b, free_count, room, uniforms(rows, _MEAN, seed))
    z = np.stack([normals(rows, _TEST_Z + t, seed) for t in range(TRIALS)], axis=1)
    z_free_mean = np.where(free, z, 0.0).sum(axis=1) / np.maximum(free_count, 1)
    free_test = (total / np.maximum(free_count, 1) + sigma_b * (z.T - z_free_mean)).T
    test = np.where(free, free_test, test)
    valid = np.where(real_valid, valid, np.where(failed, failed_valid, test + shift))
    triples = draws.triple_rows
    valid[triples], test[triples], real[triples] = draws.triple_valid, draws.triple_test, 3
    return np.clip(valid, 0.0, 1.0), np.clip(test, 0.0, 1.0), real


class NoisyNB101Benchmark(NB101Benchmark):
    """An NB101 benchmark whose ``Result.modelled`` is set per trial (see the module docstring)."""

    def __init__(self, *args, modelled_codes: np.ndarray, **kwargs):
        super().__init__(*args, **kwargs)
        self._codes = modelled_codes  # (rows, trials): bit 0 valid, bit 1 test, bit 2 cost modelled
        self._code_sets = {code: frozenset(name for bit, name in enumerate(("valid_accuracy", "test_accuracy",
                                                                              "cost_seconds")) if code >> bit & 1)
                           for code in range(8)}

    def query(self, arch, fidelity: int | None = None, rng: np.random.Generator | None = None,
              trial: int | None = None, stop_halfway: bool = False) -> Result:
        """One training run: a trial drawn as the original API does, with its modelled fields."""
        row = self.row(arch)  # checked: a negative row is refused, never counted from the end
        if fidelity not in (None, 108):
            self._fidelity(fidelity)  # raises the explanatory error
        self._stage(stop_halfway)
        t = self._trial(trial, rng)
        train, valid, test, cost = self._values[row, 0, t, END].tolist()
        self.training_time_spent += cost
        self.total_epochs_spent += 108
        return Result.from_fields(valid, test, cost, self.data.trainable_parameters.item(row), 108, train, t, False,
                                  self._code_sets[self._codes.item(row, t)])


def load_noisy(seed: int = 0, compatible_random_stream: bool = False) -> NoisyNB101Benchmark:
    """``nb101-noisy`` (see the module docstring); ``seed`` seeds the trial draws of queries."""
    lite = load_arrays(LITE_FILE)
    valid, test, real = build_table()
    n = len(test)
    values = np.full((n, 1, TRIALS, 1, len(METRICS)), np.nan, dtype=np.float32)
    values[:, 0, :, 0, VALID] = valid
    values[:, 0, :, 0, TEST] = test
    values[:, 0, :, 0, COST] = lite["training_time_108"][:, None]
    cost_modelled = np.repeat(~lite["training_time_is_real"][:, None], TRIALS, axis=1)
    draws = real_draws()
    values[draws.triple_rows, 0, :, 0, COST] = draws.triple_time
    cost_modelled[draws.triple_rows] = False
    codes = ((~real & 1) | (~real & 2) | (cost_modelled.astype(np.uint8) << 2)).astype(np.uint8)
    data = TabularData(values, (108,), lite["trainable_parameters"].astype(np.int64))
    means = np.nanmean(test, axis=1)
    best = float(means.max())
    entry = read_manifest()
    fit = agreement()
    real_values = int((real & 1).sum() + (real >> 1 & 1).sum())
    description = Description(
        name="nb101-noisy",
        version=VERSION,
        num_architectures=n,
        fidelities=(108,),
        trials=TRIALS,
        metrics=("valid_accuracy", "test_accuracy", "cost_seconds", "trainable_parameters"),
        real=(f"{real_values:,} of the {2 * TRIALS * n:,} accuracies: test accuracy of trial 0 for every cell, "
              f"validation accuracy of one run (trial 1 here) for the 30,001 slice cells, all three trials of 52 "
              f"cells; training time of {int(lite['training_time_is_real'].sum()):,} cells; trainable parameters"),
        modelled=(f"all other accuracies, drawn from a noise model whose spread by accuracy level and "
                  f"validation-test offset are fitted on the 30,001 real slice pairs (even rows; the slice's validation "
                  f"is the best of three runs') and whose within-trial noise comes from the 52 real triples "
                  f"({fitted().summary()}); {fit.summary()}; {table_agreement(valid, test).summary()}; "
                  f"draws fixed by NOISE_SEED={NOISE_SEED} (SplitMix64), "
                  f"identical on every machine; training time of the other cells from nb101-lite's runtime model, "
                  f"the same for the three trials. Regret is on the mean test accuracy over the three trials; "
                  f"optimum {best:.4f} (the paper's best mean: {PAPER_BEST_MEAN}; the empirical-Bayes means pull "
                  f"the best real draws, up to 0.9466, back to their neighbours' level, and no modelled mean exceeds "
                  f"{PAPER_BEST_MEAN}); Result.modelled names the modelled fields of the returned trial"),
        provenance=f"{entry[LITE_FILE].provenance}; {entry[TRIPLES_FILE].provenance}",
    )
    return NoisyNB101Benchmark("nb101-noisy", VERSION, data, description, seed=seed,
                               compatible_random_stream=compatible_random_stream, modelled_codes=codes)
