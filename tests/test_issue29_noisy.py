"""Issue 29, points 3 and 5: nb101-noisy's optimum and top cells against the real data, and its
modelled budgets."""

import numpy as np
import pytest

from nasarena.benchmarks import noise_model
from nasarena.benchmarks.nb101_noisy import PAPER_BEST_MEAN, VERSION

#: The NB101 paper's best 3-trial mean test accuracy (Sec. 4) and the issue's tolerance on it.
PAPER_BEST = 0.9432
BEST_TOLERANCE = 0.001
#: Regression of the top 1 % / 5 % trial-0 draws: modelled within this of the held-out real one
#: (about two standard errors of the real top-1 % median, 155 pairs; version 1.1 missed by 0.0017).
REGRESSION_TOLERANCE = 0.001


@pytest.fixture(scope="module")
def noisy():
    import nasarena

    return nasarena.benchmark("nb101-noisy")


@pytest.fixture(scope="module")
def table(noisy):
    values = noisy.data.values[:, 0, :, 0].astype(np.float64)
    return values[..., 1], values[..., 2]


def test_point03_best_mean_within_0001_of_the_papers_and_never_above(noisy, table):
    _, test = table
    means = test.mean(axis=1)
    assert PAPER_BEST_MEAN == PAPER_BEST
    assert abs(noisy.optimum() - PAPER_BEST) <= BEST_TOLERANCE
    assert means.max() <= PAPER_BEST + 1e-6
    assert f"optimum {noisy.optimum():.4f}" in noisy.describe().modelled


def test_point03_the_best_real_draws_regress_to_their_neighbours_level(table):
    """The best real draw (0.9466) stays trial 0; the modelled trials of the best cells fall
    below it, and the top-100 means sit below the best mean as the real ones must."""
    _, test = table
    means = test.mean(axis=1)
    order = np.argsort(-means, kind="stable")
    best_draw = int(np.argmax(test[:, 0]))
    assert test[best_draw, 0] == pytest.approx(0.9466, abs=1e-4)
    assert test[best_draw, 1:].mean() < test[best_draw, 0] - 0.002
    assert 0.9395 < means[order[:100]].mean() < 0.9420


def test_point03_trial_spread_of_top_cells_matches_the_real_triples(table):
    """The three trials of the top-100 cells spread as the 13 real triples with a mean >= 0.92
    (pooled sd 0.0034) within a factor 1.6 (version 1.1: 3x too narrow)."""
    _, test = table
    means = test.mean(axis=1)
    top = test[np.argsort(-means, kind="stable")[:100]]
    modelled = float(np.sqrt(np.mean(top.var(axis=1, ddof=1))))
    draws = noise_model.real_draws()
    real = noise_model._pooled_between_trial_sd(draws.triple_test[draws.triple_test.mean(axis=1) >= 0.92])
    assert real == pytest.approx(0.0034, abs=1e-4)
    assert real / 1.6 < modelled < real * 1.6


def test_point03_selected_maxima_regress_as_the_held_out_slice_pairs(table):
    """The drop of the second draw of the top 1 % / 5 % trial-0 draws, against the slice cells
    with odd rows, which the fit never saw."""
    valid, test = table
    frame = noise_model.regression_agreement(valid, test)
    assert (frame["real"] < -0.002).all() and (frame["modelled"] < -0.0015).all()
    assert ((frame["modelled"] - frame["real"]).abs() <= REGRESSION_TOLERANCE).all(), frame


def test_point03_version_bumped_and_held_out_checks_within_tolerance(noisy, table):
    valid, test = table
    assert VERSION == "2.0" and noisy.version == "2.0" and noisy.describe().version == "2.0"
    assert noise_model.agreement().worst_bin_error <= 0.15
    assert noise_model.table_agreement(valid, test).worst_error <= 0.15
