"""Issue 42 ("Tried as a careless user would, round three"), points 5, 7 and 15: the modelled
flags of ``nasarena query --json``, the shape of the fronts the Pareto indicators score, and
nasarena's errors (not plain TypeError/ValueError) from the Python API of latency and fronts.

Command-line cases run the real command in a subprocess, as a user does."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import nasarena
from nasarena.analysis.multiobjective import front_trajectories
from nasarena.analysis.pareto import TrueFront, hypervolume, igd_plus, normalise
from nasarena.benchmarks import nb201
from nasarena.benchmarks.fbnet import load as load_fbnet
from nasarena.errors import ArchitectureTypeError, InvalidArchitectureError, InvalidSettingError, NasarenaError


def nasarena_cli(*arguments, timeout=300):
    return subprocess.run([sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "OMP_NUM_THREADS": "1",
                                                           "NASARENA_PROGRESS": "0"})


def query_json(*arguments) -> dict:
    result = nasarena_cli("query", *arguments, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def text_modelled(output: str) -> list[str]:
    """The ``modelled`` row of query's text output, as a list."""
    row = next(line for line in output.splitlines() if line.strip().startswith("modelled "))
    return ast.literal_eval(row.split(None, 1)[1])


@pytest.fixture(scope="module")
def front() -> TrueFront:
    return TrueFront.of([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [0.9, 0.9]])


# --- point 5: every machine-readable output carries the human one's modelled flags ---------------

def test_point5_query_json_flags_the_stand_in_latency_as_the_text_does():
    answer = query_json("nb201-cifar100", 0, "--device", "pixel3")
    assert "latency_ms_pixel3" in answer["modelled"] and "cost_seconds" in answer["modelled"]
    assert answer["latency_modelled"] is True and "CIFAR-10 network" in answer["latency_note"]
    assert answer["final_accuracy_basis"] == "validation accuracy"
    text = nasarena_cli("query", "nb201-cifar100", 0, "--device", "pixel3")
    assert text.returncode == 0, text.stderr
    assert text_modelled(text.stdout) == answer["modelled"]  # one list for both
    assert f"(latency modelled: {answer['latency_note']})" in text.stdout


def test_point5_query_json_of_measured_latency_and_modelled_accuracy():
    measured = query_json("nb201-cifar10", 0, "--device", "pixel3")
    assert measured["modelled"] == ["cost_seconds"] and measured["latency_modelled"] is False
    assert "latency_note" not in measured and measured["final_accuracy_basis"] == "test accuracy"
    # a surrogate's final accuracy is modelled: the text says so ("the modelled validation accuracy"), so does the JSON
    surrogate = query_json("nb201-cifar10-xgb-v1.0", 0)
    assert "final_accuracy" in surrogate["modelled"] and "valid_accuracy" in surrogate["modelled"]
    assert surrogate["final_accuracy_basis"] == "modelled validation accuracy"
    assert "latency_modelled" not in surrogate  # no --device: no latency, and no flag about one


def test_point5_best_under_json_says_why_the_latency_is_modelled():
    answer = query_json("nb201-imagenet16-120", "--best-under", 10, "--device", "pixel3")
    assert answer["latency_modelled"] is True and "ImageNet16-120" in answer["latency_note"]
    assert "latency" in nasarena.benchmark("nb201-imagenet16-120").describe().modelled


# --- point 7: a front or points of the wrong shape are refused, never scored --------------------

@pytest.mark.parametrize("found", [[[0.1, 0.2, 0.3]], [[0.1, 0.2, 0.3, 0.4]], np.zeros((2, 1))])
def test_point7_hypervolume_regret_of_another_dimension_is_refused(front, found):
    with pytest.raises(InvalidSettingError, match=r"found front has \d objectives per point where 2 are expected"):
        front.hypervolume_regret(found)
    with pytest.raises(InvalidSettingError, match="found front has"):
        front.igd_plus(found)


def test_point7_one_dimensional_and_ragged_points_are_refused(front):
    with pytest.raises(InvalidSettingError, match=r"2-D array .*shape \(2,\).*\[\[a, b, \.\.\.\]\]"):
        front.hypervolume_regret([0.1, 0.2])  # one point, not written as a row
    with pytest.raises(InvalidSettingError, match="2-D array"):
        front.igd_plus([0.1, 0.2])
    with pytest.raises(InvalidSettingError, match="found front must be numbers"):
        front.hypervolume_regret([[0.1, 0.2], [0.3]])
    with pytest.raises(InvalidSettingError, match="front has 3 objectives per point where 2"):
        igd_plus([[0.1, 0.2, 0.3]], [[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(InvalidSettingError, match="reference point must be 2 finite numbers"):
        hypervolume([[0.1, 0.2]], [1.1, 1.1, 1.1])
    with pytest.raises(InvalidSettingError, match="nadir point must be 2 finite numbers"):
        normalise([[0.1, 0.2]], [0.0, 0.0], [1.0, 1.0, 1.0])


def test_point7_right_shapes_still_score(front):
    assert front.hypervolume_regret(front.points) == pytest.approx(0.0, abs=1e-12)
    assert front.hypervolume_regret([]) == front.hypervolume_regret(np.empty((0, 2))) == 1.0
    assert 0.0 < front.hypervolume_regret([[0.9, 0.9]]) < 1.0
    assert front.igd_plus([[0.9, 0.9]]) > 0.0


# --- point 15: the Python API raises nasarena's errors, saying what is wrong --------------------

def test_point15_latency_of_a_float_is_a_nasarena_error():
    bench = nasarena.benchmark("nb201-cifar10")
    with pytest.raises(ArchitectureTypeError, match="got float 1.5") as error:
        bench.latency(1.5, "pixel3")
    assert isinstance(error.value, NasarenaError) and isinstance(error.value, InvalidArchitectureError)
    assert isinstance(error.value, TypeError) and isinstance(error.value, ValueError)  # both old excepts hold
    with pytest.raises(ArchitectureTypeError, match="got float 1.5"):
        load_fbnet().latency(1.5, "pixel3")
    with pytest.raises(ArchitectureTypeError, match="sequence of architectures, got int"):
        load_fbnet().latency_batch(3, "pixel3")
    with pytest.raises(InvalidSettingError, match="unknown NB201 dataset 'cifar1000'"):
        nb201.load("cifar1000")


@pytest.mark.parametrize(("matrix", "message"), [
    ([[0.1, 1.0], [0.2, np.nan]], r"objective matrix row 1 holds nan in objective 1, which is not finite"),
    ([], "objective matrix has no rows"),
    (np.empty((0, 2)), "objective matrix has no rows"),
    ([0.1, 0.2, 0.3], r"objective matrix must be a 2-D array .*shape \(3,\)"),
])
def test_point15_true_front_of_bad_matrices(matrix, message):
    with pytest.raises(InvalidSettingError, match=message):
        TrueFront.of(matrix)


def test_point15_indicators_of_empty_or_nan_fronts(front):
    with pytest.raises(InvalidSettingError, match=r"IGD\+ needs at least one point in front, which is empty"):
        igd_plus(np.empty((0, 2)), [[0.0, 1.0]])
    with pytest.raises(InvalidSettingError, match=r"IGD\+ needs at least one point in front"):
        igd_plus([], [[0.0, 1.0]])
    with pytest.raises(InvalidSettingError, match=r"IGD\+ needs at least one point in reference_front"):
        igd_plus([[0.0, 1.0]], [])
    with pytest.raises(InvalidSettingError, match=r"IGD\+ of an empty found front is undefined"):
        front.igd_plus([])
    with pytest.raises(InvalidSettingError, match="front row 1 holds nan in objective 0"):
        hypervolume([[0.1, 0.2], [np.nan, 0.1]], [1.1, 1.1])
    with pytest.raises(InvalidSettingError, match="found front row 0 holds inf in objective 1"):
        front.hypervolume_regret([[0.1, np.inf]])
    with pytest.raises(InvalidSettingError, match="reference point must be 2 finite numbers"):
        hypervolume([[0.1, 0.2]], [1.1, np.nan])
    with pytest.raises(InvalidSettingError, match="no multi-objective runs"):
        front_trajectories(pd.DataFrame())
