"""Issue 40 (multi-objective search, round two), points 2 and 3: a constrained multi-objective run
is scored against the true front of the cells within its bound, and the default score is the
hypervolume regret in a region of interest (the front near its best error, in that part's own
box), with the whole box's score kept beside it and unchanged for unconstrained problems."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nasarena.analysis.multiobjective import final_scores, found_fronts, front_trajectories, region_front, true_front
from nasarena.analysis.pareto import MAX_ERROR_ABOVE_BEST, REFERENCE, RegionFront, TrueFront, hypervolume, normalise
from nasarena.benchmarks import benchmark
from nasarena.benchmarks.objectives import objective_matrix, parse_objectives
from nasarena.cli.run import _print_final_hypervolume_regret
from nasarena.errors import InvalidSettingError
from nasarena.runner.experiment import grid, load_results, run_experiment
from nasarena.runner.front import IncumbentFront
from nasarena.runner.protocol import Budget, RunSettings

OBJECTIVES = "error,latency:pixel3"
CONSTRAINT = "latency:pixel3<=5"

# A hand-made front: a, b, c within 0.5 error of the best (0.25 + 0.5 = 0.75, exact in binary),
# e just outside the region but faster than its fastest, d far outside; f is dominated by a.
A, B, C, E, D, F = (0.25, 9.0), (0.5, 5.0), (0.75, 1.0), (0.775, 0.5), (1.0, 0.1), (0.3, 20.0)


@pytest.fixture(scope="module")
def hand_made() -> TrueFront:
    return TrueFront.of([A, B, C, E, D, F])


def test_default_region_bound_is_five_points_of_error():
    assert MAX_ERROR_ABOVE_BEST == 0.05
    region = region_front("nb201-cifar10", OBJECTIVES)
    assert isinstance(region, RegionFront) and region.max_error_above_best == MAX_ERROR_ABOVE_BEST
    truth = true_front("nb201-cifar10", OBJECTIVES)
    assert region.points[:, 0].max() <= truth.ideal[0] + MAX_ERROR_ABOVE_BEST
    assert set(region.rows) == set(truth.rows[truth.points[:, 0] <= truth.ideal[0] + MAX_ERROR_ABOVE_BEST])
    assert TrueFront.of(truth.points).region().max_error_above_best == MAX_ERROR_ABOVE_BEST


def test_region_is_the_front_near_its_best_error_in_its_own_box(hand_made):
    region = hand_made.region(max_error_above_best=0.5)
    assert sorted(map(tuple, region.points)) == [A, B, C]  # the bound is inclusive
    assert region.ideal.tolist() == [0.25, 1.0] and region.nadir.tolist() == [0.75, 9.0]
    # normalised: a (0, 1), b (0.5, 0.5), c (1, 0); e clipped to (1.05, 0) lies under c; d beyond 1.1
    # the staircase from the reference 1.1: 1.1 x 0.1 + 0.6 x 0.5 + 0.1 x 0.5
    assert region.hypervolume == pytest.approx(0.46)
    assert region.hypervolume_regret(hand_made.points) == pytest.approx(0.0, abs=1e-12)
    assert region.hypervolume_regret(region.points) == pytest.approx(0.0, abs=1e-12)  # two objectives
    assert region.igd_plus(region.points) == pytest.approx(0.0, abs=1e-12)
    # e is outside the region, and faster than all of it: clipped at the region's ideal, not dropped,
    # it dominates [1.05, 1.1] x [0, 1.1], of which a dominates [1.05, 1.1] x [1, 1.1] already
    assert region.hypervolume_regret([A, E]) == pytest.approx((0.46 - (0.11 + 0.055 - 0.005)) / 0.46)
    assert region.hypervolume_regret([A]) == pytest.approx((0.46 - 0.11) / 0.46)  # as if e were dropped
    # points only outside the region's box score as nothing found
    assert region.hypervolume_regret([D, F]) == 1.0
    assert region.hypervolume_regret(np.empty((0, 2))) == 1.0
    assert 0 < region.igd_plus([D, F])
    # the whole box sees the same found fronts differently: d alone covers most of it
    assert hand_made.hypervolume_regret([D]) < 1.0


def test_region_bound_and_error_column_are_checked(hand_made):
    swapped = TrueFront.of(np.array([A, B, C, E, D, F])[:, ::-1])  # error as the second objective
    region = swapped.region(0.5, error=1)
    assert sorted(map(tuple, region.points[:, ::-1])) == [A, B, C]
    for bound in (-0.01, np.nan, np.inf, "0.05", True):
        with pytest.raises(InvalidSettingError, match="max_error_above_best must be a finite error >= 0"):
            hand_made.region(bound)
    for column in (2, -1, 0.0, "error"):
        with pytest.raises(InvalidSettingError, match="column number of the error objective, 0 to 1"):
            hand_made.region(error=column)


def test_a_cell_outside_the_region_may_dominate_part_of_its_box_in_three_objectives():
    """With three objectives, a cell just outside the region (q) may dominate part of the region's
    box that no cell inside does: the region's hypervolume is the whole front's there, so the
    whole front scores 0, the region's points alone do not, and no subset of the table is below 0."""
    inside = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.5]])  # (error, latency, params)
    q = [0.52, 0.1, 0.1]  # normalised by the region: (1.04, 0.1, 0.1)
    front = TrueFront.of(np.vstack([inside, q, [[0.9, 0.0, 0.0]]]))
    region = front.region(0.5)
    assert region.points.tolist() == inside.tolist()
    # q adds [1.04, 1.1] x ([0.1, 1.1]^2 less what the three dominate: 0.19 + 0.36 - 0.11) = 0.06 x 0.56
    assert region.hypervolume - hypervolume(region.in_box(inside), region.reference) == pytest.approx(0.06 * 0.56)
    assert region.hypervolume_regret(front.points) == pytest.approx(0.0, abs=1e-12)
    assert region.hypervolume_regret(inside) == pytest.approx(0.06 * 0.56 / region.hypervolume)
    rng = np.random.default_rng(40)
    table = rng.uniform(size=(300, 3))
    region = TrueFront.of(table).region(0.2)
    for _ in range(50):
        found = table[rng.choice(len(table), size=rng.integers(1, 40), replace=False)]
        assert -1e-12 <= region.hypervolume_regret(found) <= 1.0


def test_whole_box_scores_are_unchanged():
    """The values of the implementation before issue 40, on the fixed front of tests/test_pareto.py."""
    table = np.array([[0.10, 5.0], [0.20, 3.0], [0.15, 4.0], [0.30, 3.0], [0.10, 6.0], [0.20, 3.0], [0.05, 10.0],
                      [0.40, 2.5]])
    front = TrueFront.of(table)
    assert front.hypervolume_regret(table[[3, 4]]) == pytest.approx(0.20189905047476261, rel=1e-12)
    assert front.igd_plus(table[[3, 4]]) == pytest.approx(0.17904761904761904, rel=1e-12)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One unconstrained and one constrained mo-rs run (~20 NB201 evaluations each)."""
    out = tmp_path_factory.mktemp("issue40") / "results"
    specs = [spec for constraint in (None, CONSTRAINT)
             for spec in grid(["nb201-cifar10"], ["mo-rs"], [0], Budget(seconds=3e4),
                              run_settings=RunSettings(objectives=tuple(OBJECTIVES.split(",")), constraint=constraint))]
    run_experiment(specs, out, jobs=1)
    return load_results(out, specs)


def test_unconstrained_run_keeps_its_whole_box_regret(runs):
    """hv_regret of every evaluation is (HV(true) - HV(found)) / HV(true), the found front's test
    vectors normalised by the whole true front's ideal and nadir, exactly as before issue 40."""
    run = runs[runs["constraint"].isna()].sort_values("evaluation")
    scored = front_trajectories(run)
    truth = true_front("nb201-cifar10", OBJECTIVES)
    whole = hypervolume(normalise(truth.points, truth.ideal, truth.nadir), np.full(2, REFERENCE))
    front, expected = IncumbentFront(), []
    for i, valid in enumerate(run["valid_objectives"]):
        front.add(tuple(valid), i)  # every evaluation is feasible
        found = np.array([run["test_objectives"].iloc[k] for k in front.keys])
        expected.append((whole - hypervolume(normalise(found, truth.ideal, truth.nadir), np.full(2, REFERENCE)))
                        / whole)
    assert scored["hv_regret"].tolist() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert scored["constraint"].isna().all()
    region = region_front("nb201-cifar10", OBJECTIVES)
    final = final_scores(scored).iloc[0]
    found = found_fronts(run)[["x", "y"]].to_numpy()
    assert final["hv_regret_roi"] == pytest.approx(region.hypervolume_regret(found))
    assert final["igd_plus_roi"] == pytest.approx(region.igd_plus(found))
    assert final["hv_regret_roi"] > final["hv_regret"]  # the accurate region is where the run falls short


def test_constrained_front_is_the_feasible_cells_front():
    bench = benchmark("nb201-cifar10")
    matrix = objective_matrix(bench, parse_objectives(OBJECTIVES), split="test")
    feasible = np.asarray(bench.latency_column("pixel3")) <= 5
    exact = TrueFront.of(matrix[feasible & np.isfinite(matrix).all(axis=1)])
    constrained = true_front("nb201-cifar10", OBJECTIVES, CONSTRAINT)
    assert len(constrained.points) == len(exact.points) == 28
    assert sorted(map(tuple, constrained.points)) == sorted(map(tuple, exact.points))
    for truth in (constrained, region_front("nb201-cifar10", OBJECTIVES, CONSTRAINT)):
        assert truth.hypervolume_regret(exact.points) == pytest.approx(0.0, abs=1e-12)
    # against the unconstrained front the exact feasible front is a floor no constrained run could pass
    assert true_front("nb201-cifar10", OBJECTIVES).hypervolume_regret(exact.points) > 0.01


def hand_run(vectors: np.ndarray, feasible: np.ndarray, constraint: str) -> pd.DataFrame:
    """A run file's columns for evaluations of ``vectors`` (validation = test)."""
    n = len(vectors)
    return pd.DataFrame({
        "benchmark": "nb201-cifar10", "optimizer": "oracle", "settings_hash": "0", "seed": 0, "evaluation": range(n),
        "sim_time": np.arange(1.0, n + 1), "incumbent_test_regret": np.nan, "incumbent_valid_accuracy": np.nan,
        "arch_id": [f"cell{i}" for i in range(n)], "objectives": OBJECTIVES, "constraint": constraint,
        "feasible": feasible, "valid_objectives": [list(v) for v in vectors],
        "test_objectives": [list(v) for v in vectors]})


def test_constrained_run_that_finds_the_feasible_front_scores_0():
    """An infeasible evaluation (the most accurate cell, over the bound) first, then every point of
    the exact feasible front: the run's final regrets are 0, as its constrained single-objective
    regret would be."""
    constrained = true_front("nb201-cifar10", OBJECTIVES, CONSTRAINT)
    whole = true_front("nb201-cifar10", OBJECTIVES)
    most_accurate = whole.points[np.argmin(whole.points[:, 0])]
    assert most_accurate[1] > 5
    vectors = np.vstack([most_accurate, constrained.points])
    scored = front_trajectories(hand_run(vectors, np.arange(len(vectors)) > 0, CONSTRAINT))
    assert scored["hv_regret"].iloc[0] == scored["hv_regret_roi"].iloc[0] == 1.0  # nothing feasible yet
    assert np.isnan(scored["igd_plus"].iloc[0]) and np.isnan(scored["igd_plus_roi"].iloc[0])
    final = final_scores(scored).iloc[0]
    assert final["constraint"] == CONSTRAINT and final["front_size"] == len(constrained.points)
    for column in ("hv_regret", "hv_regret_roi", "igd_plus", "igd_plus_roi"):
        assert final[column] == pytest.approx(0.0, abs=1e-12)


def test_constrained_run_scores_and_front_carry_its_bound(runs):
    run = runs[runs["constraint"].notna()]
    assert set(run["constraint"]) == {CONSTRAINT}
    final = final_scores(front_trajectories(run)).iloc[0]
    members = found_fronts(run)
    assert set(members["constraint"]) == {CONSTRAINT}
    found = members[["x", "y"]].to_numpy()
    assert final["hv_regret"] == pytest.approx(true_front("nb201-cifar10", OBJECTIVES, CONSTRAINT)
                                               .hypervolume_regret(found))
    assert final["hv_regret_roi"] == pytest.approx(region_front("nb201-cifar10", OBJECTIVES, CONSTRAINT)
                                                   .hypervolume_regret(found))


def test_run_summary_prints_the_region_score_first(runs, capsys):
    _print_final_hypervolume_regret(runs)
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("problem"))
    assert header.index("HV regret ROI") < header.index("IGD+ ROI") < header.index("HV regret full")
    assert f"most {MAX_ERROR_ABOVE_BEST:g} error above its best" in "\n".join(lines)
    # a constrained problem's name ends with " | CONSTRAINT" (analysis.problem_name)
    rows = {tokens[3] if tokens[2] == "|" else None: tokens for tokens in map(str.split, lines)
            if tokens[:2] == ["nb201-cifar10", OBJECTIVES]}
    final = final_scores(front_trajectories(runs))
    for constraint, tokens in rows.items():
        row = final[final["constraint"].fillna("none") == (constraint or "none")].iloc[0]
        assert tokens[-7].startswith("mo-rs") and tokens[-6] == "1"  # one run, labelled by its settings hash
        assert tokens[-5:] == [f"{row['hv_regret_roi']:.4f}", f"{row['igd_plus_roi']:.4f}", f"{row['hv_regret']:.4f}",
                               f"{row['igd_plus']:.4f}", f"{row['front_size']:.1f}"]
    assert set(rows) == {None, CONSTRAINT}


def test_a_constrained_problem_is_its_own_problem_and_names_its_front():
    """Constrained and unconstrained runs of the same objectives are two problems, each with the
    front it is scored against; an unconstrained problem on all cells keeps its old name."""
    from nasarena.analysis.multiobjective import parse_problem, problem_front, problem_name

    plain = problem_name("nb201-cifar10", OBJECTIVES)
    bounded = problem_name("nb201-cifar10", OBJECTIVES, CONSTRAINT)
    unique = problem_name("nb201-cifar10", OBJECTIVES, CONSTRAINT, unique=True)
    assert plain == f"nb201-cifar10 {OBJECTIVES}" and len({plain, bounded, unique}) == 3
    assert parse_problem(bounded) == ("nb201-cifar10", OBJECTIVES, CONSTRAINT, False)
    assert parse_problem(unique) == ("nb201-cifar10", OBJECTIVES, CONSTRAINT, True)
    assert len(problem_front(bounded).points) == 28
    assert np.array_equal(problem_front(plain).points, true_front("nb201-cifar10", OBJECTIVES).points)
