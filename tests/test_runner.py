"""Clock, caching, invalid architectures, asynchronous workers, and experiments that resume."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from nasarena.optimizers.base import Observation, Optimizer, Trial
from nasarena.runner import Budget, RunSettings, run
from nasarena.runner.experiment import RUNS_DIR, grid, load_results, run_experiment
from nasarena.spaces.nb101 import INPUT, OPS, OUTPUT, Cell, unique_cells


class Scripted(Optimizer):
    """Proposes a fixed sequence of cells and records what it was told."""

    name = "scripted"

    def __init__(self, space, cells):
        super().__init__(space, 0)
        self.cells = list(cells)
        self.told: list[Observation] = []

    def _ask(self, number):
        return Trial(self.cells.pop(0))

    def _tell(self, trial, observation):
        self.told.append(observation)


INVALID = Cell([[0, 0, 0], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[0], OUTPUT])


def test_clock_advances_by_each_training_cost(lite):
    cells = [unique_cells().cell(r) for r in (5, 6, 7)]
    trajectory = run(lite, Scripted(lite.space, cells), Budget(evaluations=3), seed=0)
    costs = [lite.query(c).cost_seconds for c in cells]
    assert np.allclose(trajectory.sim_time, np.cumsum(costs))


def test_invalid_cells_cost_nothing_and_do_not_count(lite):
    cells = [INVALID, unique_cells().cell(5), INVALID, INVALID, unique_cells().cell(6)]
    optimizer = Scripted(lite.space, cells)
    trajectory = run(lite, optimizer, Budget(evaluations=2), seed=0)
    assert len(trajectory) == 2 and trajectory.evaluation.tolist() == [0, 1]
    assert [o.valid for o in optimizer.told] == [False, True, False, False, True]
    assert trajectory.sim_time.iloc[-1] == pytest.approx(sum(lite.query(r).cost_seconds for r in (5, 6)))


def test_caching_returns_the_first_result_for_free(lite):
    """A repeated proposal is answered from the cache: no cost and no evaluation (issue 29)."""
    cell, other = unique_cells().cell(9), unique_cells().cell(10)
    optimizer = Scripted(lite.space, [cell] * 4 + [other])
    cached = run(lite, optimizer, Budget(evaluations=2), seed=0, settings=RunSettings(caching=True))
    plain = run(lite, Scripted(lite.space, [cell] * 4), Budget(evaluations=4), seed=0)
    assert len(cached) == 2 and len(optimizer.told) == 5 and len({o.valid_accuracy for o in optimizer.told[:4]}) == 1
    assert cached.sim_time.iloc[0] == pytest.approx(lite.query(cell).cost_seconds)
    assert plain.sim_time.is_monotonic_increasing and plain.sim_time.nunique() == 4


def test_parallel_workers_finish_in_simulated_time_order(lite):
    from nasarena.optimizers import make

    serial = run(lite, make("rs", lite.space, seed=1), Budget(seconds=2e5), seed=1)
    parallel = run(lite, make("rs", lite.space, seed=1), Budget(seconds=2e5), seed=1, settings=RunSettings(n_workers=4))
    assert parallel.sim_time.is_monotonic_increasing
    assert len(parallel) > 3 * len(serial)  # four workers evaluate about four times as much


def test_budget_in_seconds_lets_the_last_started_evaluation_finish(lite):
    from nasarena.optimizers import make

    trajectory = run(lite, make("rs", lite.space, seed=2), Budget(seconds=1e5), seed=2)
    assert trajectory.sim_time.iloc[-2] < 1e5 <= trajectory.sim_time.iloc[-1]


def test_experiment_results_do_not_depend_on_the_number_of_processes(tmp_path):
    specs = grid(["nb101-lite"], ["rs", "re"], range(3), Budget(evaluations=120))
    run_experiment(specs, tmp_path / "one", jobs=1)
    run_experiment(specs, tmp_path / "two", jobs=2)
    columns = ["benchmark", "optimizer", "seed", "evaluation", "arch_id", "sim_time", "incumbent_test_regret"]
    one = load_results(tmp_path / "one")[columns].sort_values(columns[:4], ignore_index=True)
    two = load_results(tmp_path / "two")[columns].sort_values(columns[:4], ignore_index=True)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 6 * 120


def test_ray_backend_gives_the_same_trajectories(tmp_path):
    pytest.importorskip("ray")
    specs = grid(["nb101-lite"], ["re"], range(2), Budget(evaluations=80))
    run_experiment(specs, tmp_path / "local", jobs=1)
    run_experiment(specs, tmp_path / "ray", jobs=2, backend="ray")
    columns = ["seed", "evaluation", "arch_id", "sim_time"]
    local = load_results(tmp_path / "local")[columns].sort_values(columns[:2], ignore_index=True)
    remote = load_results(tmp_path / "ray")[columns].sort_values(columns[:2], ignore_index=True)
    pd.testing.assert_frame_equal(local, remote)


def test_killed_experiment_resumes_without_losing_or_corrupting_runs(tmp_path):
    out = tmp_path / "results"
    command = [sys.executable, "-m", "nasarena.cli.main", "run", "--optimizers", "rs", "--seeds", "0-39",
               "--budget", "3e6", "--jobs", "1", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    runs = out / RUNS_DIR
    deadline = time.time() + 60
    while time.time() < deadline and len(list(runs.glob("*.parquet"))) < 3:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    finished = sorted(runs.glob("*.parquet"))
    assert 3 <= len(finished) < 40
    for path in finished:
        pd.read_parquet(path)  # every finished file is complete
    before = {p.name: p.stat().st_mtime_ns for p in finished}
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = sorted(runs.glob("*.parquet"))
    assert len(after) == 40 and not list(runs.glob(".partial-*"))
    assert not list(runs.glob(".claim-*"))  # the killed experiment's claims, finished runs' too, are gone
    assert all(p.stat().st_mtime_ns == before[p.name] for p in after if p.name in before)  # not rerun
    assert load_results(out).groupby("seed").ngroups == 40
