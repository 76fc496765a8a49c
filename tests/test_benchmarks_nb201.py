"""The embedded NAS-Bench-201 benchmarks against the shared real files (the space: test_nb201_space.py)."""

import json

import numpy as np
import pandas as pd
import pytest

import nasarena
from conftest import SHARED_DATA
from nasarena.spaces.nb201 import Cell201

NB201 = SHARED_DATA / "nb201"


@pytest.fixture(scope="module")
def archs():
    path = NB201 / "nb201-arch-strings.json"
    if not path.exists():
        pytest.skip("real data not available")
    return json.loads(path.read_text())["archs"]


def test_benchmarks_answer_with_the_real_values(archs):
    c10 = pd.read_csv(NB201 / "nb201-cifar10-200epochs.csv")
    short = pd.read_csv(NB201 / "nb201-12epochs.csv")
    bench = nasarena.benchmark("nb201-cifar10")
    for index in (0, 1, 777, 15_624):
        cell = Cell201.from_string(archs[index])
        final = bench.query(cell)
        assert final.valid_accuracy == pytest.approx(c10["valid_top1"][index] / 100, abs=1e-6)
        assert final.test_accuracy == pytest.approx(c10["test_top1"][index] / 100, abs=1e-6)
        early = bench.query(cell, fidelity=12)
        assert early.test_accuracy == pytest.approx(short["cifar10-test"][index] / 100, abs=1e-6)
        assert final.modelled == {"cost_seconds"} and final.cost_seconds > early.cost_seconds > 0
    assert bench.optimum() == pytest.approx(c10["test_top1"].max() / 100, abs=1e-6)
    c100 = nasarena.benchmark("nb201-cifar100")
    assert np.isnan(c100.query(0).test_accuracy) and "validation accuracy" in c100.describe().modelled
    assert c100.query(0, fidelity=12).test_accuracy == pytest.approx(short["cifar100-test"][0] / 100, abs=1e-6)
