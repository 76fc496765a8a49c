"""Query semantics of the original NB101 API on a small table with several trials and halfway points.

The numbers are constructed so that every (architecture, budget, trial, stage, metric) value is
distinct and decodable; the real data has one trial per cell, so trial/halfway semantics can only
be pinned on a constructed table (the official-file round trip in test_nb101_import uses it too).
"""

import random

import numpy as np
import pytest

from nasarena.benchmarks.protocol import Description
from nasarena.benchmarks.tabular import METRICS, TabularBenchmark, TabularData

FIDELITIES = (4, 12, 36, 108)


def encoded_table(num_archs=5, trials=3):
    a, f, t, s, m = np.meshgrid(
        np.arange(num_archs), np.arange(len(FIDELITIES)), np.arange(trials), np.arange(2), np.arange(4), indexing="ij"
    )
    values = (a * 10_000 + f * 1000 + t * 100 + s * 10 + m).astype(np.float32)
    return TabularData(values, FIDELITIES, np.arange(num_archs) * 7)


def make(seed=0, compatible=False):
    description = Description("toy", "0", 5, FIDELITIES, 3, METRICS, "constructed", "nothing", "test")
    return TabularBenchmark("toy", "0", encoded_table(), None, int, description, seed=seed,
                            compatible_random_stream=compatible)


def decode(value):
    value = int(value)
    return value // 10_000, value // 1000 % 10, value // 100 % 10, value // 10 % 10, value % 10


def test_query_returns_one_trial_at_the_end_of_the_requested_budget():
    bench = make()
    result = bench.query(2, fidelity=36, trial=1)
    assert decode(result.valid_accuracy) == (2, 2, 1, 0, 1)
    assert decode(result.test_accuracy) == (2, 2, 1, 0, 2)
    assert decode(result.train_accuracy) == (2, 2, 1, 0, 0)
    assert decode(result.cost_seconds) == (2, 2, 1, 0, 3)
    assert result.trainable_parameters == 14 and result.fidelity == 36 and result.trial == 1


def test_stop_halfway_is_the_halfway_point_of_the_same_run():
    bench = make()
    end = bench.query(3, fidelity=108, trial=2)
    half = bench.query(3, fidelity=108, trial=2, stop_halfway=True)
    assert decode(half.valid_accuracy)[:3] == decode(end.valid_accuracy)[:3]
    assert decode(half.valid_accuracy)[3] == 1 and half.halfway


def test_budget_counters_add_time_and_epochs_like_the_original():
    bench = make()
    first = bench.query(0, fidelity=12, trial=0)
    second = bench.query(1, fidelity=108, trial=0, stop_halfway=True)
    time_spent, epochs_spent = bench.get_budget_counters()
    assert time_spent == pytest.approx(first.cost_seconds + second.cost_seconds)
    assert epochs_spent == 12 + 54
    bench.reset_budget_counters()
    assert bench.get_budget_counters() == (0.0, 0)


def test_trials_are_drawn_from_the_given_generator_deterministically():
    draws = [[make().query(0, rng=np.random.default_rng(9)).trial for _ in range(1)] for _ in range(2)]
    assert draws[0] == draws[1]
    bench = make()
    rng = np.random.default_rng(1)
    trials = [bench.query(0, rng=rng).trial for _ in range(3000)]
    counts = np.bincount(trials, minlength=3)
    assert counts.min() > 900  # all three trials, about uniformly


def test_compatible_stream_reproduces_the_original_api_random_calls():
    bench = make(seed=123, compatible=True)
    reference = random.Random(123)
    expected = [reference.randint(0, 2) for _ in range(50)]
    assert [bench.query(1).trial for _ in range(50)] == expected


def test_bad_requests_are_clear_errors():
    bench = make()
    with pytest.raises(ValueError, match="no fidelity of 50 epochs; available: \\[4, 12, 36, 108\\]"):
        bench.query(0, fidelity=50)
    with pytest.raises(ValueError, match="trial must be an integer in 0..2 for toy, got 3"):
        bench.query(0, trial=3)


def test_query_batch_matches_single_queries_for_given_trials():
    bench = make()
    rows = np.array([0, 4, 2, 2])
    trials = np.array([2, 0, 1, 2])
    batch = bench.query_batch(rows, fidelity=4, trials=trials, stop_halfway=True)
    for i, (row, trial) in enumerate(zip(rows, trials)):
        single = bench.query(int(row), fidelity=4, trial=int(trial), stop_halfway=True)
        assert batch.valid_accuracy[i] == single.valid_accuracy
        assert batch.cost_seconds[i] == single.cost_seconds


def test_optimum_is_the_best_mean_over_trials_at_the_highest_budget():
    bench = make()
    # mean over trials t of a*10000 + 3*1000 + t*100 + 2 is maximal for a = 4
    assert bench.optimum("test_accuracy") == pytest.approx(40_000 + 3000 + 100 + 2)


def test_fast_results_equal_ordinary_ones():
    from dataclasses import FrozenInstanceError

    from nasarena.benchmarks.result import Result

    fields = (0.9, 0.8, 12.0, 1000, 108, 0.99, 2, True, frozenset({"cost_seconds"}))
    fast, ordinary = Result.from_fields(*fields), Result(*fields)
    assert fast == ordinary and hash(fast) == hash(ordinary) and repr(fast) == repr(ordinary)
    with pytest.raises(FrozenInstanceError):
        fast.valid_accuracy = 0.1
