"""``nb101-noisy``: all 423,624 NB101 cells with three trials each, real where the data has them.

``nb101-lite`` holds one accuracy draw per cell and uses it as validation *and* test accuracy,
so an optimizer's incumbent is scored on the very draw that selected it. Here, as in the
official benchmark, every cell has three training runs with a validation and a test accuracy
each; a query draws one run, and regret is measured on the mean test accuracy over the three.
Every cell also has validation accuracy at 4, 12 and 36 epochs (version 2.1), so Hyperband and
BOHB run on the whole space and on NB-1Shot1's subspaces: real for the 30,001 slice cells, a real
slice curve of nearly the same 108-epoch level elsewhere (:mod:`.learning_curves`, checked on
held-out slice cells); training time there is the 108-epoch time scaled by epochs / 108.

Per cell at 108 epochs (rows are sorted-hash positions):

* trial 0: the real test accuracy (every cell); its validation accuracy is modelled;
* trial 1 of the 30,001 slice cells: the slice's real validation accuracy, the best of the three
  runs' (see below); its test accuracy is modelled (the modelled validations of trials 0 and 2
  are not held below it);
* the 52 cells with all three real trials: everything real (time per trial too);
* everything else is drawn from :mod:`.noise_model` around the cell's mean level, whose
  posterior given the cell's real draws (``NoiseModel.posterior``, empirical Bayes) pulls a lucky
  draw back to the level its neighbours share (regression to the mean of selected maxima);
* the sum of a cell's modelled trials is drawn below what keeps its 3-trial mean under the
  paper's best mean, 0.9432 (``PAPER_BEST_MEAN``): the table is drawn given that published fact,
  so its best mean (the optimum regret is measured from) lies at or below 0.9432 by construction.
  That bound is imposed, not a validation: the best mean's nearness to the paper's value checks
  nothing about the model (the table's "best mean without the 0.9432 bound" is what the model
  alone draws).

Version 2.0 (issue 29, point 3) reads the slice's validation accuracy as the best of the three
runs (it never fails alone: 0 of 30,001 pairs against 133 failed tests; its offset to the test
accuracy, 0.008, is the 52 triples' best-of-three offset, 0.0081, not their same-run 0.0056), so
the between-trial sd is twice version 1.1's and the shrinkage of selected maxima four times.
Before (1.1) and after (2.0), real beside them:

==========================================  ==========  ==========  ===========================
quantity                                    1.1         2.0         real
==========================================  ==========  ==========  ===========================
best 3-trial mean (2.0: bounded by 0.9432)  0.9479      0.9430      0.9432 (paper)
best mean without the 0.9432 bound          0.9479      0.9446      -
mean of the top-100 3-trial means           0.9420      0.9411      not in the embedded data
top-10 means                                0.9444      0.9425      -
cells with a mean above 0.94                255         136         -
trial sd of the top-100 cells, median       0.0011      0.0023      -
trial sd of the top-100 cells, rms          0.0013      0.0027      0.0034 (13 triples >= 0.92)
drop of the top 1 % draws' second draw      -0.0014     -0.0025     -0.0031 (held-out slice)
drop of the top 5 % draws' second draw      -0.0011     -0.0019     -0.0022 (held-out slice)
between-trial sd vs the 52 triples          1/2.7       1/1.4       1
modelled pairs vs held-out slice pairs      within 10%  within 13%  (per level bin)
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

from functools import lru_cache

import numpy as np
from scipy.special import ndtr, ndtri

from ..io.packaged import load_arrays, read_manifest
from .learning_curves import curve_agreement, draw_curves, slice_curves
from .nb101 import FIDELITIES, LITE_FILE, NB101Benchmark
from .noise_model import (
    FAILED_BELOW,
    NOISE_SEED,
    TRIPLES_FILE,
    NoiseModel,
    agreement,
    fitted,
    normals,
    real_draws,
    regression_agreement,
    table_agreement,
    uniforms,
)
from .protocol import Description
from .result import Result
from .tabular import COST, END, METRICS, TEST, TRAIN, VALID, TabularData

TRIALS = 3
#: 2.0: the between-trial noise read from the best-of-three slice pairs, the 0.9432 bound (issue 29,
#: point 3); 2.1: validation accuracy at 4/12/36 epochs (point 5), the 108-epoch table as in 2.0.
VERSION = "2.1"
#: The NB101 paper's best mean test accuracy over the three trials (Sec. 4: 94.32 %): no cell's
#: modelled mean exceeds it (the table is drawn given this published fact), so the benchmark's
#: optimum agrees with it by construction, which validates nothing.
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
    """An NB101 benchmark whose ``Result.modelled`` is set per budget and trial (see the module docstring)."""

    def __init__(self, *args, modelled_codes: np.ndarray, **kwargs):
        super().__init__(*args, **kwargs)
        self._codes = modelled_codes  # (rows, budgets, trials): bit 0 valid, bit 1 test, bit 2 cost modelled
        self._code_sets = {code: frozenset(name for bit, name in enumerate(("valid_accuracy", "test_accuracy",
                                                                              "cost_seconds")) if code >> bit & 1)
                           for code in range(8)}

    def query(self, arch, fidelity: int | None = None, rng: np.random.Generator | None = None,
              trial: int | None = None, stop_halfway: bool = False) -> Result:
        """One training run: a trial drawn as the original API does, with its modelled fields."""
        row = self.row(arch)  # checked: a negative row is refused, never counted from the end
        epochs = self._highest if fidelity is None else fidelity
        f = self._fidelity(epochs)  # checked: an unknown budget raises the explanatory error
        self._stage(stop_halfway)
        t = self._trial(trial, rng)
        train, valid, test, cost = self._values[row, f, t, END].tolist()
        self.training_time_spent += cost
        self.total_epochs_spent += int(epochs)
        return Result.from_fields(valid, test, cost, self.data.trainable_parameters.item(row), int(epochs), train, t,
                                  False, self._code_sets[self._codes.item(row, f, t)])

    def optimum(self, metric: str = "test_accuracy") -> float:
        """Best mean over trials at the highest fidelity, as for every tabular benchmark. For test
        accuracy it is at most the NB101 paper's best mean, 0.9432 (``PAPER_BEST_MEAN``), because
        that bound is imposed: the modelled trials are drawn conditioned on no mean exceeding the
        published value. Its nearness to 0.9432 is therefore no validation of the noise model."""
        return super().optimum(metric)


def _lower_budget_curves(valid: np.ndarray, draws) -> tuple[np.ndarray, np.ndarray]:
    """(cells, 3) validation at 4/12/36 epochs and whether it is real: the slice's real curves, a
    donor's elsewhere (:mod:`.learning_curves`), at the cell's best 108-epoch validation."""
    n = len(valid)
    curves = draw_curves(np.nanmax(valid, axis=1), np.arange(n))
    curves[draws.slice_rows] = slice_curves()[:, :-1]
    is_real = np.zeros(n, dtype=bool)
    is_real[draws.slice_rows] = True
    return curves, is_real


def _values_and_codes(lite, valid, test, real) -> tuple[np.ndarray, np.ndarray]:
    """The value array (cells, budgets, trials, 1, metrics) and the modelled codes (cells, budgets, trials).

    Below 108 epochs the three trials share the cell's one curve (the data holds no between-trial
    noise there; a slice curve is real in trial 1, the run its 108-epoch validation is kept in),
    test accuracy is absent (NaN, as in nb101-slice) and training time is the trial's 108-epoch
    time scaled by epochs / 108, as nb101-slice scales it."""
    draws = real_draws()
    n = len(test)
    cost = np.repeat(lite["training_time_108"][:, None], TRIALS, axis=1)
    cost[draws.triple_rows] = draws.triple_time
    cost_modelled = np.repeat(~lite["training_time_is_real"][:, None], TRIALS, axis=1)
    cost_modelled[draws.triple_rows] = False
    curves, is_real = _lower_budget_curves(valid, draws)
    lower = np.repeat(curves[:, :, None], TRIALS, axis=2)  # (cells, 3 budgets, trials)
    absent = np.full((n, len(FIDELITIES), TRIALS), np.nan, dtype=np.float32)
    metrics = [None] * len(METRICS)
    metrics[TRAIN] = absent
    metrics[VALID] = np.concatenate([lower, valid[:, None]], axis=1).astype(np.float32)
    metrics[TEST] = absent.copy()
    metrics[TEST][:, -1] = test
    metrics[COST] = (cost[:, None, :] * (np.array(FIDELITIES) / 108.0)[None, :, None]).astype(np.float32)
    values = np.stack(metrics, axis=-1)[:, :, :, None, :]
    codes = np.full((n, len(FIDELITIES), TRIALS), 0b101, dtype=np.uint8)
    codes[is_real, :-1, 1] = 0b100
    codes[:, -1] = (~real & 1) | (~real & 2) | (cost_modelled.astype(np.uint8) << 2)
    return values, codes


@lru_cache(maxsize=1)
def _table() -> tuple[TabularData, np.ndarray, Description]:
    """The table, its modelled codes and its description, built once per process and read-only.

    Every benchmark object of the process shares them (its own state is the trial stream and the
    spent counters): building takes seconds, and a process that loads the benchmark again (a
    worker running several runs, a one-shot lookup, a test session) then gets it at once."""
    lite = load_arrays(LITE_FILE)
    valid, test, real = build_table()
    values, codes = _values_and_codes(lite, valid, test, real)
    parameters = lite["trainable_parameters"].astype(np.int64)
    for array in (values, codes, parameters):
        array.setflags(write=False)
    return TabularData(values, FIDELITIES, parameters), codes, _description(lite, valid, test, real)


def load_noisy(seed: int = 0, compatible_random_stream: bool = False) -> NoisyNB101Benchmark:
    """``nb101-noisy`` (see the module docstring); ``seed`` seeds the trial draws of queries."""
    data, codes, description = _table()
    return NoisyNB101Benchmark("nb101-noisy", VERSION, data, description, seed=seed,
                               compatible_random_stream=compatible_random_stream, modelled_codes=codes)


def _regression_text(valid, test) -> str:
    frame = regression_agreement(valid, test)
    parts = ", ".join(f"top {100 * r.share:.0f} %: {r.modelled:+.4f} modelled / {r.real:+.4f} real"
                      for r in frame.itertuples())
    return (f"regression to the mean of selected maxima, the median (second draw - trial 0's test) of the top trial-0 "
            f"draws against all cells' ({parts}; real: held-out slice cells, odd rows)")


def _description(lite, valid, test, real) -> Description:
    n = len(test)
    best = float(np.nanmean(test, axis=1).max())
    entry = read_manifest()
    real_values = int((real & 1).sum() + (real >> 1 & 1).sum())
    return Description(
        name="nb101-noisy",
        version=VERSION,
        num_architectures=n,
        fidelities=FIDELITIES,
        trials=TRIALS,
        metrics=("valid_accuracy", "test_accuracy", "cost_seconds", "trainable_parameters"),
        real=(f"{real_values:,} of the {2 * TRIALS * n:,} accuracies at 108 epochs: test accuracy of trial 0 for "
              f"every cell, the best validation accuracy of the three runs (kept as trial 1's) for the 30,001 slice "
              f"cells, all three trials of 52 cells; validation accuracy at 4/12/36 epochs of the 30,001 slice cells "
              f"(trial 1); training time at 108 epochs of {int(lite['training_time_is_real'].sum()):,} cells; "
              f"trainable parameters"),
        modelled=(f"all other accuracies at 108 epochs, drawn from a noise model whose spread by accuracy level and "
                  f"validation-test offset are fitted on the 30,001 real slice pairs (even rows; the slice's validation "
                  f"is the best of three runs') and whose within-trial noise comes from the 52 real triples "
                  f"({fitted().summary()}); {agreement().summary()}; {table_agreement(valid, test).summary()}; "
                  f"{_regression_text(valid, test)}; draws fixed by NOISE_SEED={NOISE_SEED} (SplitMix64), "
                  f"identical on every machine; training time of the other cells from nb101-lite's runtime model, "
                  f"the same for the three trials, and below 108 epochs scaled by epochs / 108. Validation accuracy "
                  f"at 4/12/36 epochs of the other cells is the real curve of a slice cell (even rows) of nearly the "
                  f"same best 108-epoch validation, the same for the three trials; test accuracy below 108 epochs is "
                  f"absent (NaN); {curve_agreement().summary()}. Regret is on the mean test accuracy over the three "
                  f"trials at 108 epochs; optimum {best:.4f}, at most the paper's best mean {PAPER_BEST_MEAN} by "
                  f"construction: that bound is imposed, not a validation (the modelled trials are drawn conditioned "
                  f"on no mean exceeding the published {PAPER_BEST_MEAN}, while the empirical-Bayes means pull the best "
                  f"real draws, up to 0.9466, back to their neighbours' level); Result.modelled names the modelled "
                  f"fields of the returned trial"),
        provenance=f"{entry[LITE_FILE].provenance}; {entry[TRIPLES_FILE].provenance}",
    )
