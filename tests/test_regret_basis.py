"""analysis.regret_basis names what each benchmark's regret is measured on."""

from __future__ import annotations

import importlib.util

import pytest

from nasarena.analysis.regret_basis import regret_basis, regret_name


@pytest.mark.parametrize(("name", "basis"), [
    ("nb101-noisy", "test accuracy"), ("nb201-cifar10", "test accuracy"),
    ("nb201-cifar100", "validation accuracy"),  # NB201's data holds no final test accuracy there
    ("nbgraph-cora", "test accuracy"), ("nbgraph-proteins", "test ROC-AUC"),
])
def test_tabular_benchmarks(name, basis):
    assert regret_basis(name) == basis


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="nb301 needs the nb301 extra")
def test_nb301_is_modelled():
    assert regret_basis("nb301") == "modelled validation accuracy"


def test_names_of_mixed_benchmarks():
    assert regret_name(["nb101-noisy", "nbgraph-cora"]) == "test regret"
    assert regret_name(["nbgraph-proteins", "nbgraph-cora"]) == "regret on test ROC-AUC / test accuracy"
