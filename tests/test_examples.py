"""The scripts in examples/ run as a newcomer would run them, and print what the README promises."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OMP_NUM_THREADS": "1", "NASARENA_PROGRESS": "0"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_point16_query_example_prints_real_nb201_values():
    output = run_example("query_benchmark.py")
    # this cell's 200-epoch accuracies in the embedded NB201 CIFAR-10 data (../shared/data/nb201)
    assert "validation 0.9155, test 0.9436" in output and "1,288,506 parameters" in output
    assert re.search(r"NB101 cell [0-9a-f]{32}: test accuracy 0\.\d{4}", output)


def test_point16_ask_tell_example_finds_a_good_cell():
    output = run_example("ask_tell_loop.py")
    assert "200 evaluations" in output
    regret = float(re.search(r"test regret (\d\.\d+)", output).group(1))
    assert 0 <= regret < 0.02  # 200 evaluations of evolution on NB201 get within 2 points of the best cell


def test_point16_experiment_example_writes_resumable_runs(tmp_path):
    output = run_example("run_experiment.py", str(tmp_path))
    assert {"rs", "re", "ls"} <= set(re.findall(r"^(rs|re|ls)\s+3\s", output, re.MULTILINE))
    assert len(list((tmp_path / "runs").glob("*.parquet"))) == 9
    assert run_example("run_experiment.py", str(tmp_path)) == output  # resumed: nothing re-run, same summary


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.name)
def test_point16_every_example_has_a_test(path):
    tested = {"query_benchmark.py", "ask_tell_loop.py", "run_experiment.py"}
    assert path.name in tested, f"examples/{path.name} is not run by tests/test_examples.py"
