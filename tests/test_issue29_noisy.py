"""Issue 29, points 3 and 5: nb101-noisy's optimum and top cells against the real data, and its
modelled budgets."""

import numpy as np
import pytest

from nasarena.benchmarks import learning_curves, noise_model
from nasarena.benchmarks.nb101_noisy import PAPER_BEST_MEAN, VERSION

#: The NB101 paper's best 3-trial mean test accuracy (Sec. 4) and the issue's tolerance on it.
PAPER_BEST = 0.9432
BEST_TOLERANCE = 0.001
#: Regression of the top 1 % / 5 % trial-0 draws: modelled within this of the held-out real one
#: (about two standard errors of the real top-1 % median, 155 pairs; version 1.1 missed by 0.0017).
REGRESSION_TOLERANCE = 0.001
#: Held-out tolerances of the modelled learning curves, per budget (slice cells with odd rows,
#: 15,000 cells): the rank correlation with the 108-epoch value within 0.03 over all cells and
#: 0.08 over the top 10 % (1,500 cells: a standard error of ~0.035 on the difference), and the
#: median per level bin of the 108-epoch value within these accuracies (4-epoch values spread over
#: 0.1-0.8, 36-epoch ones over a few points).
RANK_TOLERANCE, TOP_RANK_TOLERANCE = 0.03, 0.08
MEDIAN_TOLERANCE = {4: 0.025, 12: 0.025, 36: 0.01}


@pytest.fixture(scope="module")
def noisy():
    import nasarena

    return nasarena.benchmark("nb101-noisy")


@pytest.fixture(scope="module")
def table(noisy):
    values = noisy.data.values[:, -1, :, 0].astype(np.float64)
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
    assert VERSION.startswith("2.") and noisy.version == noisy.describe().version == VERSION
    assert noise_model.agreement().worst_bin_error <= 0.15
    assert noise_model.table_agreement(valid, test).worst_error <= 0.15


def test_point05_every_cell_has_four_budgets_real_on_the_slice_and_flagged(noisy):
    assert noisy.fidelities == (4, 12, 36, 108) and noisy.describe().fidelities == (4, 12, 36, 108)
    values = noisy.data.values[:, :, :, 0]
    assert not np.isnan(values[..., 1]).any()  # validation accuracy at every budget, every trial
    assert np.isnan(values[:, :-1, :, 2]).all()  # no test accuracy below 108 epochs in the data
    draws = noise_model.real_draws()
    real = learning_curves.slice_curves()
    np.testing.assert_array_equal(values[draws.slice_rows, :, 1, 1], real.astype(np.float32))
    np.testing.assert_allclose(values[:, 0, :, 3], values[:, -1, :, 3] * (4 / 108), rtol=1e-6)
    inside, outside = int(draws.slice_rows[0]), 30_000 + 50_000
    assert noisy.query(inside, 12, trial=1).modelled == frozenset({"cost_seconds"})
    assert noisy.query(inside, 12, trial=0).modelled == frozenset({"valid_accuracy", "cost_seconds"})
    result = noisy.query(outside, 4, trial=2)
    assert result.fidelity == 4 and result.modelled == frozenset({"valid_accuracy", "cost_seconds"})
    assert "4/12/36 epochs" in noisy.describe().modelled


def test_point05_modelled_learning_curves_held_out_error_within_tolerance(noisy):
    table = learning_curves.curve_agreement().table.set_index("budget")
    assert list(table.index) == [4, 12, 36]
    assert ((table["real_rank"] - table["modelled_rank"]).abs() <= RANK_TOLERANCE).all(), table
    assert ((table["real_top_rank"] - table["modelled_top_rank"]).abs() <= TOP_RANK_TOLERANCE).all(), table
    for budget, tolerance in MEDIAN_TOLERANCE.items():
        assert table.loc[budget, "median_error"] <= tolerance, table
    # the low rank correlation between budgets among good cells (NB101 Supplement Fig. 7) is kept
    assert (table["real_top_rank"] < 0.5).all() and (table["modelled_top_rank"] < 0.5).all()
    assert learning_curves.curve_agreement().summary() in noisy.describe().modelled


@pytest.mark.parametrize("bench", ["nb101-noisy", "nb1shot1-3"])
def test_point05_hb_and_bohb_run_on_the_noisy_table_and_nb1shot1(tmp_path, bench):
    from typer.testing import CliRunner

    from nasarena.cli.main import app
    from nasarena.runner.experiment import load_results

    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", "--benchmark", bench, "--optimizers", "hb,bohb", "--seeds", "0",
                                      "--budget", "30000", "--jobs", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    results = load_results(out)
    assert set(results["optimizer"]) == {"hb", "bohb"}
    assert {4, 12} <= set(results["fidelity"]) and results["incumbent_test_regret"].notna().all()


def test_point03_runs_on_the_new_table_never_resume_results_of_the_old_one():
    from nasarena.benchmarks.nb101_noisy import VERSION
    from nasarena.runner import Budget
    from nasarena.runner.experiment import grid
    from nasarena.runner.protocol import RunSettings, settings_hash

    budget = Budget(seconds=1e7)
    noisy = grid(["nb101-noisy"], ["re"], [0], budget)[0]
    old = settings_hash("re", noisy.recorded_settings, RunSettings(), budget)  # as written before 2.0
    assert noisy.settings_hash != old and noisy.result_options == {"nb101_noisy_version": VERSION}
    oneshot = grid(["nb1shot1-1"], ["re"], [0], budget)[0]
    assert oneshot.result_options == {"nb101": "nb101-noisy", "nb101_noisy_version": VERSION}
    lite = grid(["nb101-lite"], ["re"], [0], budget)[0]  # other tables keep their hashes
    assert lite.settings_hash == old
