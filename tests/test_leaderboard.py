"""Issue 41, point 4: one leaderboard across benchmarks (per-benchmark mean ranks, the ranking
across benchmarks with Friedman/Nemenyi and Kendall's W), resumable, with budgets that count
full trainings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from nasarena.analysis.statistics import friedman_nemenyi, kendall_w
from nasarena.benchmarks.registry import benchmark
from nasarena.cli.main import app
from nasarena.plots.critical_difference import cliques
from nasarena.studies import leaderboard as board_module
from nasarena.studies.leaderboard import budget_seconds, default_benchmarks, families
from nasarena.studies.leaderboard_scales import SMALL

BENCHMARKS = "nb201-cifar10,nb201-cifar100,nb201-imagenet16-120"


def nb201_rankings() -> pd.DataFrame:
    """Real rankings: 8 NB201 cells (columns) ranked by each dataset's test accuracy (rows)."""
    rows = {}
    for dataset in ("cifar10", "cifar100", "imagenet16-120"):
        bench = benchmark(f"nb201-{dataset}")
        cells = [bench.space.sample(np.random.default_rng(seed)) for seed in range(8)]
        rows[dataset] = [-bench.final_test_accuracy(cell) for cell in cells]
    return pd.DataFrame(rows).T


def test_kendall_w_is_friedman_over_m_times_n_minus_one_on_real_rankings():
    scores = nb201_rankings()
    w = kendall_w(scores)
    friedman = stats.friedmanchisquare(*[scores[c] for c in scores.columns])
    assert w.chi_squared == pytest.approx(friedman.statistic) and w.p_value == pytest.approx(friedman.pvalue)
    assert w.w == pytest.approx(friedman.statistic / (3 * 7))
    assert 0.5 < w.w <= 1  # NB201's datasets largely agree on which cells are good
    same = pd.DataFrame([scores.iloc[0]] * 3)
    assert kendall_w(same).w == pytest.approx(1.0)
    with pytest.raises(ValueError, match="needs >= 2 complete rankings"):
        kendall_w(scores.iloc[:1])


def test_kendall_w_corrects_for_ties_as_friedman_does():
    scores = pd.DataFrame([[1, 1, 2, 3], [2, 1, 1, 3], [1, 2, 3, 3], [1, 1, 1, 2]])
    friedman = stats.friedmanchisquare(*[scores[c] for c in scores.columns])
    assert kendall_w(scores).chi_squared == pytest.approx(friedman.statistic)


def test_budgets_count_trainings_of_a_median_architecture():
    one = budget_seconds("nb201-cifar10", 1)
    assert budget_seconds("nb201-cifar10", 30) == pytest.approx(30 * one, rel=1e-6)
    bench = benchmark("nb201-cifar10")
    costs = bench.data.cost_seconds if hasattr(getattr(bench, "data", None), "cost_seconds") else None
    if costs is not None:
        assert np.min(costs) < one < np.max(costs)
    assert 1_000 < one < 10_000  # NB201 CIFAR-10 trainings at 200 epochs take about an hour to two


def test_the_default_covers_every_family_that_can_run():
    chosen, left_out = default_benchmarks()
    for name in ("nb101-noisy", "nb201-cifar10", "nb201-cifar100", "nb201-imagenet16-120", "nb1shot1-1",
                 "nb1shot1-2", "nb1shot1-3"):
        assert name in chosen
    assert set(chosen) | set(left_out) == {name for members in families().values() for name in members}


def test_cliques_are_the_maximal_runs_within_the_critical_difference():
    assert cliques([1.0, 1.5, 2.4, 3.0, 5.0], 1.0) == [(0, 1), (1, 2), (2, 3)]
    assert cliques([1.0, 1.2, 1.9, 2.5], 1.0) == [(0, 2), (2, 3)]  # (1, 2) lies inside (0, 2)
    assert cliques([1.0, 3.0], 1.0) == []


@pytest.fixture(scope="module")
def small_board(tmp_path_factory):
    out = tmp_path_factory.mktemp("leaderboard")
    ran = CliRunner().invoke(app, ["leaderboard", "--benchmarks", BENCHMARKS, "--seeds", "0-1", "--optimizers",
                                   "rs,re,ls", "--out", str(out)], env={"NASARENA_PROGRESS": "0"})
    assert ran.exit_code == 0, ran.output
    return out, ran.output


def test_the_command_writes_one_page_with_ranks_tests_and_concordance(small_board):
    out, output = small_board
    page = (out / "leaderboard.md").read_text()
    assert page.startswith("# Leaderboard (small scale)")
    assert "Over 3 benchmarks: Friedman p" in page and "Kendall's W" in page
    for name in BENCHMARKS.split(","):
        assert f"| {name} | " in page
    runs = sorted((out / "runs").glob("*.parquet"))
    assert len(runs) == 3 * 3 * 2
    # every run had its benchmark's budget: SMALL.evaluations trainings of a median architecture
    frame = pd.read_parquet(runs[0])
    assert frame["sim_time"].max() >= budget_seconds(frame["benchmark"].iloc[0], SMALL.evaluations)


def test_the_page_agrees_with_a_friedman_test_over_the_benchmarks(small_board):
    out, _ = small_board
    from nasarena.runner.experiment import load_results
    results = load_results(out)
    budgets = {name: budget_seconds(name, SMALL.evaluations) for name in BENCHMARKS.split(",")}
    board = board_module.leaderboard(results, budgets)
    per = board.per_benchmark.pivot(index="benchmark", columns="optimizer", values="mean_rank")
    assert board.across.mean_ranks.to_dict() == pytest.approx(friedman_nemenyi(per, 0.95).mean_ranks.to_dict())
    assert f"Kendall's W {board.concordance.w:.2f}" in (out / "leaderboard.md").read_text()


def test_a_second_call_resumes_and_runs_nothing_again(small_board):
    out, _ = small_board
    before = {path: path.stat().st_mtime_ns for path in (out / "runs").glob("*.parquet")}
    ran = CliRunner().invoke(app, ["leaderboard", "--benchmarks", BENCHMARKS, "--seeds", "0-1", "--optimizers",
                                   "rs,re,ls", "--out", str(out)], env={"NASARENA_PROGRESS": "0"})
    assert ran.exit_code == 0, ran.output
    assert {path: path.stat().st_mtime_ns for path in (out / "runs").glob("*.parquet")} == before


@pytest.mark.parametrize(("arguments", "message"), [
    (["--benchmarks", "nb201-cifar1"], "the leaderboard has no benchmark 'nb201-cifar1'"),
    (["--scale", "huge"], "--scale must be one of small, full"),
    (["--optimizers", "rs,nope"], "nope"),
])
def test_bad_input_is_one_clear_error(arguments, message, tmp_path):
    ran = CliRunner().invoke(app, ["leaderboard", *arguments, "--out", str(tmp_path / "x")])
    assert ran.exit_code == 2 and message in ran.output


def test_a_benchmark_whose_extra_is_missing_is_left_out_by_default_and_refused_by_name(monkeypatch, tmp_path):
    monkeypatch.setattr(board_module, "NEEDS", {"nb201-cifar100": ("a_package_that_is_not_there", "demo")})
    chosen, left_out = default_benchmarks()
    assert "nb201-cifar100" not in chosen and "pip install 'nasarena[demo]'" in left_out["nb201-cifar100"]
    ran = CliRunner().invoke(app, ["leaderboard", "--benchmarks", "nb201-cifar100", "--out", str(tmp_path / "x")])
    assert ran.exit_code == 2 and "needs a_package_that_is_not_there" in ran.output
