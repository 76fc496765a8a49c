"""Analysis on hand-computed cases, and agreement with moocore."""

import numpy as np
import pandas as pd
import pytest

from nasarena.analysis import anytime, attainment, curves, ecdf, statistics, trajectories


def table(runs):
    """A trajectory table from {(optimizer, seed): [(time, regret), ...]}."""
    rows = []
    for (optimizer, seed), points in runs.items():
        for i, (time, regret) in enumerate(points):
            rows.append(dict(benchmark="toy", optimizer=optimizer, settings_hash="h", seed=seed, evaluation=i,
                             sim_time=float(time), incumbent_test_regret=float(regret),
                             incumbent_valid_accuracy=float(i)))
    return pd.DataFrame(rows)


def test_monotone_front_is_the_cumulative_minimum_with_improvements_only():
    results = table({("a", 0): [(1, 0.5), (2, 0.6), (3, 0.4), (4, 0.4), (5, 0.1)]})
    front = trajectories.monotone_fronts(results)
    assert front[["time", "regret"]].to_numpy().tolist() == [[1, 0.5], [3, 0.4], [5, 0.1]]


def test_hypervolume_of_a_hand_computed_staircase():
    # points (1.2, 1.8), (1.5, 1.4) with reference (2, 2): 0.8*0.2 + 0.5*0.4 = 0.36
    assert anytime.hypervolume_2d([[1.2, 1.8], [1.5, 1.4]], (2.0, 2.0)) == pytest.approx(0.36)
    assert anytime.hypervolume_2d([[2.5, 1.0]], (2.0, 2.0)) == 0.0  # beyond the reference
    assert anytime.hypervolume_2d([[1.0, 1.0], [1.5, 1.5]], (2.0, 2.0)) == pytest.approx(1.0)  # dominated point


def test_normalisation_matches_the_anytime_paper():
    n = anytime.Normalization()
    assert n.apply([0, 1e7, 5e6], [0, 1, 0.5]).tolist() == [[1, 1], [2, 2], [1.5, 1.5]]
    assert n.reference == (2.1, 2.1) and n.ideal_hypervolume == pytest.approx(1.21)


def test_run_hypervolume_by_hand_and_against_moocore():
    moocore = pytest.importorskip("moocore")
    results = table({("a", 0): [(1e6, 0.5), (5e6, 0.2)]})
    volume = anytime.run_hypervolumes(results)
    # normalised points (1.1, 1.5) and (1.5, 1.2), reference (2.1, 2.1)
    expected = (1.5 - 1.1) * (2.1 - 1.5) + (2.1 - 1.5) * (2.1 - 1.2)
    assert volume["hypervolume"].iloc[0] == pytest.approx(expected)
    assert volume["hypervolume_gap"].iloc[0] == pytest.approx(1.21 - expected)
    rng = np.random.default_rng(0)
    for _ in range(20):
        points = rng.uniform(1, 2.2, size=(rng.integers(1, 30), 2))
        assert anytime.hypervolume_2d(points, (2.1, 2.1)) == pytest.approx(moocore.hypervolume(points, ref=[2.1, 2.1]))


def test_ecdf_area_is_the_mean_final_regret():
    values = [0.3, 0.1, 0.2, 0.2]
    x, y = ecdf.ecdf(values)
    assert x.tolist() == [0.1, 0.2, 0.2, 0.3] and y.tolist() == [0.25, 0.5, 0.75, 1.0]
    assert ecdf.ecdf_area(values) == pytest.approx(0.2)


def test_curves_take_each_runs_incumbent_at_the_grid_points():
    results = table({("a", 0): [(1, 0.5), (3, 0.2)], ("a", 1): [(2, 0.4), (4, 0.1)]})
    c = curves.incumbent_curves(results, grid=[0.5, 1, 2.5, 4])
    assert c["runs"].tolist() == [0, 1, 2, 2]
    assert c["median"].tolist()[1:] == pytest.approx([0.5, 0.45, 0.15])
    by_count = curves.incumbent_curves(results, axis="evaluations")
    assert by_count["mean"].tolist() == pytest.approx([0.45, 0.15])


def test_attainment_and_eaf_difference_agree_with_hand_counts():
    pytest.importorskip("moocore")
    # optimizer a is always faster to regret 0.1; b reaches 0.05 eventually in both runs
    results = table({
        ("a", 0): [(1, 0.1)], ("a", 1): [(2, 0.1)],
        ("b", 0): [(5, 0.1), (6, 0.05)], ("b", 1): [(5, 0.1), (7, 0.05)],
    })
    median = attainment.attainment_surfaces(results, "a", levels=[50, 100])
    assert median[median.level == 50][["time", "regret"]].to_numpy().tolist() == [[1, 0.1]]
    assert median[median.level == 100][["time", "regret"]].to_numpy().tolist() == [[2, 0.1]]
    difference = attainment.eaf_difference(results, "a", "b")
    assert difference["runs"].iloc[0] == 2
    # at (3, 0.1) both runs of a attain and no run of b: +1; at (8, 0.05) only b attains: -1
    def value_at(t, r):
        inside = difference[(difference.time_low <= t) & (t < difference.time_high)
                            & (difference.regret_low <= r) & (r < difference.regret_high)]
        return inside["difference"].sum()
    assert value_at(3, 0.1) == pytest.approx(1.0)
    assert value_at(8, 0.05) == pytest.approx(-1.0)


def test_friedman_nemenyi_finds_the_clearly_best_treatment():
    rng = np.random.default_rng(0)
    scores = pd.DataFrame({"good": rng.normal(0, 0.1, 20), "mid": rng.normal(1, 0.1, 20), "bad": rng.normal(2, 0.1, 20)})
    result = statistics.friedman_nemenyi(scores)
    assert result.significant and result.best_group == ("good",)
    assert result.rank_sums.to_dict() == {"good": 20.0, "mid": 40.0, "bad": 60.0}
    # Nemenyi critical difference for k=3, N=20 at 98%: q/sqrt(2) * sqrt(k(k+1)/(6N))
    from scipy.stats import studentized_range
    assert result.critical_difference == pytest.approx(studentized_range.ppf(0.98, 3, np.inf) / np.sqrt(2) * np.sqrt(12 / 120))


def test_ties_keep_everyone_in_the_best_group():
    scores = pd.DataFrame({"a": [1, 2, 3, 4, 5.0], "b": [2, 1, 4, 3, 5.5], "c": [1.5, 2.5, 3.5, 3.6, 4.9]})
    result = statistics.friedman_nemenyi(scores)
    assert not result.significant and set(result.best_group) == {"a", "b", "c"}


def test_rank_sum_table_groups_by_setup():
    frame = pd.DataFrame({
        "setup": ["O"] * 6 + ["C"] * 6, "optimizer": ["x", "y"] * 6, "seed": [0, 0, 1, 1, 2, 2] * 2,
        "gap": [1, 2, 1, 2, 1, 2, 2, 1, 2, 1, 2, 1],
    })
    tables = statistics.rank_sum_table(frame, "setup", "optimizer", "seed", "gap")
    assert tables[tables.setup == "O"]["optimizer"].tolist() == ["x", "y"]
    assert tables[tables.setup == "C"]["optimizer"].tolist() == ["y", "x"]
    assert tables["rank_sum"].tolist() == [3.0, 6.0, 3.0, 6.0]


def test_pairwise_wilcoxon_and_partial_tables():
    samples = {"a": np.arange(10.0), "b": np.arange(10.0) + 100}
    result = statistics.pairwise_wilcoxon(samples)
    assert result.iloc[0]["p_value"] < 0.001
    results = table({("a", 0): [(1, 0.5)], ("a", 1): [(1, 0.4)], ("b", 0): [(1, 0.3)]})
    counts = trajectories.runs_per_configuration(results)
    assert dict(zip(counts.label, counts.runs)) == {"a": 2, "b": 1}
    with pytest.raises(ValueError, match="missing column"):
        trajectories.final_results(results.drop(columns="sim_time"))


def test_identical_attainment_gives_an_empty_difference():
    pytest.importorskip("moocore")
    results = table({("a", 0): [(1, 0.1)], ("b", 0): [(1, 0.1)]})
    assert attainment.eaf_difference(results, "a", "b").empty
