"""nb101-noisy: the fitted noise model against held-out real draws, and the benchmark's semantics."""

import numpy as np
import pandas as pd
import pytest

from conftest import SHARED_DATA
from nasarena.benchmarks import noise_model
from nasarena.benchmarks.nb101_noisy import NOISE_SEED, build_table, uniforms

#: Tolerance of the agreement with real draws the model was not fitted on: the robust spread of
#: (validation - test) of two different runs, per level bin of held-out slice pairs (odd rows,
#: >= 100 pairs each), within 15 % (the binned spreads themselves move by ~5 % between halves).
HELD_OUT_PAIR_TOLERANCE = 0.15


@pytest.fixture(scope="module")
def noisy():
    import nasarena

    return nasarena.benchmark("nb101-noisy")


def test_noise_model_reproduces_held_out_real_pair_spread():
    agreement = noise_model.agreement()
    scored = agreement.bins[agreement.bins["pairs"] >= noise_model.MIN_PAIRS]
    assert len(scored) >= 6 and scored["pairs"].sum() > 14_000
    assert agreement.worst_bin_error <= HELD_OUT_PAIR_TOLERANCE, agreement.bins
    # the spread shrinks with the accuracy level, as the NB101 paper's Fig. 2 (right) shows
    assert scored["spread"].iloc[0] > scored["spread"].iloc[-1]


def test_real_values_kept_and_flagged(noisy, nb101_slices):
    draws = noise_model.real_draws()
    values = noisy.data.values[:, -1, :, 0]
    np.testing.assert_array_equal(values[:, 0, 2], draws.test_trial0.astype(np.float32))
    np.testing.assert_array_equal(values[draws.slice_rows, 1, 1], draws.slice_valid.astype(np.float32))
    csv = SHARED_DATA / "nb101" / "nb101-pertrial-108-52cells.csv"
    if csv.exists():
        triples = pd.read_csv(csv)
        one = triples[triples["hash"] == triples["hash"].iloc[0]].sort_values("trial")
        result = noisy.query(one["hash"].iloc[0], trial=2)
        assert result.test_accuracy == pytest.approx(one["final_test_accuracy"].iloc[2], abs=1e-6)
        assert result.valid_accuracy == pytest.approx(one["final_validation_accuracy"].iloc[2], abs=1e-6)
        assert result.modelled == frozenset()
    start, columns = nb101_slices[0]
    first = columns["108_final_validation_accuracy"]
    first = first[0] if isinstance(first, list) else first[next(iter(first))]
    assert noisy.query(start, trial=1).valid_accuracy == pytest.approx(first, abs=1e-6)
    assert noisy.query(start, trial=0).modelled == frozenset({"valid_accuracy"})
    assert noisy.query(start, trial=1).modelled == frozenset({"test_accuracy"})
    assert noisy.query(start + 30_000 + 50_000, trial=2).modelled == {"valid_accuracy", "test_accuracy",
                                                                        "cost_seconds"}
    assert "modelled" in noisy.describe().to_text() and "held-out" in noisy.describe().modelled


def test_regret_on_mean_over_trials_and_queries_draw_trials(noisy):
    means = noisy.data.values[:, -1, :, 0, 2].mean(axis=1)
    assert noisy.optimum() == pytest.approx(float(means.max()))
    assert 0.942 < noisy.optimum() <= 0.9432  # the paper's best mean is 0.9432; the best single real draw 0.9466
    assert noisy.final_test_accuracy(5) == pytest.approx(float(means[5]))
    rng = np.random.default_rng(0)
    trials = {noisy.query(5, rng=rng).trial for _ in range(60)}
    assert trials == {0, 1, 2}
    # failed runs near 10 % occur, both as real draws and modelled ones, at a low rate
    test = noisy.data.values[:, -1, :, 0, 2]
    failed = test < noise_model.FAILED_BELOW
    assert 0.0005 < failed.mean() < 0.01 and failed[:, 1:].any()


def test_conforms_to_the_benchmark_contract(noisy):
    from nasarena.testing import check_benchmark

    check_benchmark(noisy)


def test_table_is_a_fixed_function_of_the_seed():
    u = uniforms(np.arange(5), 3)
    # SplitMix64 values, pinned: the same on every machine
    np.testing.assert_allclose(u, uniforms(np.arange(5), 3))
    assert len(set(u.tolist())) == 5 and ((u > 0) & (u < 1)).all()
    valid, test, _ = build_table(NOISE_SEED)
    other_valid, other_test, _ = build_table(NOISE_SEED + 1)
    assert np.array_equal(test[:, 0], other_test[:, 0]) and not np.array_equal(test[:, 2], other_test[:, 2])


def test_a_row_outside_the_table_is_refused_never_counted_from_the_end(noisy):
    from nasarena.benchmarks.protocol import InvalidArchitectureError

    for row in (-1, -423_624, len(noisy)):
        with pytest.raises(InvalidArchitectureError, match="outside"):
            noisy.query(row)
    assert noisy.query(np.int64(7), trial=0).test_accuracy == noisy.query(7, trial=0).test_accuracy


def _table_agreement(noisy):
    values = noisy.data.values[:, -1, :, 0].astype(np.float64)
    return noise_model.table_agreement(values[..., 1], values[..., 2])


def test_the_tables_pairs_against_the_real_pairs_are_measured_and_reported(noisy):
    bins = _table_agreement(noisy).bins
    assert len(bins) == 8 and (bins["pairs_real"] > 100).all() and bins["pairs_modelled"].sum() > 380_000
    assert (bins["real"].diff().iloc[1:] < 0).all() and (bins["modelled"].diff().iloc[1:] < 0).all()
    assert "times as spread as the held-out real slice pairs" in noisy.describe().modelled


def test_the_tables_modelled_pairs_reproduce_the_real_pairs_spread(noisy):
    """The generated best-of-three pairs (cells outside the slice) against the real pairs of the
    slice cells with odd rows, which the fit never saw: within HELD_OUT_PAIR_TOLERANCE per bin."""
    table = _table_agreement(noisy)
    assert len(table.scored) == 8
    assert table.worst_error <= HELD_OUT_PAIR_TOLERANCE, table.bins


def test_the_52_triples_beside_the_model_are_measured_and_reported(noisy):
    """The between-trial scale follows the best-of-three slice pairs; the 52 real triples are set
    beside it: their between-trial sd ~1.4x the model's (2.7x in version 1.1), their same-run
    validation - test offset within 10 % of the model's."""
    triples = noise_model.agreement().triples.set_index("quantity")
    assert 1.1 < triples.loc["between-trial sd", "ratio"] < 1.7
    assert 0.8 < triples.loc["cross-trial pair spread", "ratio"] < 1.3
    assert 0.8 < triples.loc["best-of-three pair spread", "ratio"] < 1.4
    assert abs(triples.loc["within-trial offset", "ratio"] - 1) < 0.1
    assert "beside the 52 real triples" in noisy.describe().modelled


def test_nb101_lite_says_validation_and_test_are_one_draw_in_describe_and_the_listing(lite):
    from typer.testing import CliRunner

    from nasarena.benchmarks.nb101 import LITE_SAME_DRAW
    from nasarena.cli.main import app

    assert LITE_SAME_DRAW in lite.describe().modelled and "0.9466" in LITE_SAME_DRAW
    listing = CliRunner().invoke(app, ["benchmarks"])
    assert listing.exit_code == 0
    line = next(line for line in listing.output.splitlines() if line.startswith("nb101-lite "))
    assert "validation AND test" in line and "optimistic regret" in line
