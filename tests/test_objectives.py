"""The objectives of issue 31 on the real benchmarks: parsing, checks, vectors, matrices, and the
constrained view "best accuracy under L ms on device D" (API and CLI)."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import nasarena
from nasarena.benchmarks.fbnet import load as load_fbnet
from nasarena.benchmarks.objectives import (
    Objective,
    best_under,
    check_objectives,
    modelled_labels,
    objective_matrix,
    objective_vector,
    parse_objectives,
)
from nasarena.cli.main import app
from nasarena.errors import InvalidSettingError
from nasarena.spaces.nb201 import flops


@pytest.fixture(scope="module")
def cifar10():
    return nasarena.benchmark("nb201-cifar10")


@pytest.fixture(scope="module")
def cifar100():
    return nasarena.benchmark("nb201-cifar100")


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"NASARENA_PROGRESS": "0"})


def test_parse_and_labels():
    objectives = parse_objectives("error, latency:pixel3,params,flops")
    assert [o.label for o in objectives] == ["error", "latency:pixel3", "params", "flops"]
    assert objectives[1] == Objective("latency", "pixel3")
    assert parse_objectives(["error", "latency:raspi4"]) == (Objective("error"), Objective("latency", "raspi4"))


@pytest.mark.parametrize("text, message", [
    ("error,laterncy:pixel3", "did you mean latency"),
    ("error,error", "named twice"),
    ("error,,params", "empty objective"),
    ("latency", "needs a device"),
    ("latency:", "needs a device"),
    ("error:pixel3", "only latency takes a device"),
    (3, "must be text"),
])
def test_parse_refuses(text, message):
    with pytest.raises(InvalidSettingError, match=message):
        parse_objectives(text)


def test_check_names_what_a_benchmark_cannot_give(cifar10, lite):
    check_objectives(cifar10, parse_objectives("error,latency:pixel3,params,flops"))
    with pytest.raises(InvalidSettingError, match=r"unknown device 'pixel9'.*available: .*raspi4"):
        check_objectives(cifar10, parse_objectives("error,latency:pixel9"))
    with pytest.raises(InvalidSettingError, match=r"nb101-lite has no latency data.*nbgraph-<dataset> benchmarks \(device nbgraph\)"):
        check_objectives(lite, parse_objectives("error,latency:pixel3"))
    with pytest.raises(InvalidSettingError, match="nb101-lite has no FLOPs"):
        check_objectives(lite, parse_objectives("error,flops"))
    check_objectives(lite, parse_objectives("error,params"))
    fbnet = load_fbnet()
    with pytest.raises(InvalidSettingError, match="latency-only"):
        check_objectives(fbnet, parse_objectives("error,latency:pixel3"))
    with pytest.raises(InvalidSettingError, match="no objectives"):
        check_objectives(cifar10, ())


def test_vector_reads_validation_for_optimizers_and_test_offline(cifar10):
    objectives = parse_objectives("error,latency:pixel3,params,flops")
    arch = cifar10.space.sample(np.random.default_rng(3))
    result = cifar10.query(arch)
    valid = objective_vector(cifar10, arch, result, objectives)
    test = objective_vector(cifar10, arch, result, objectives, split="test")
    assert valid[0] == pytest.approx(1 - result.valid_accuracy)
    assert test[0] == pytest.approx(1 - cifar10.final_test_accuracy(arch))
    assert valid[0] != test[0] and valid[1:] == test[1:]
    assert valid[1:] == (cifar10.latency(arch, "pixel3"), result.trainable_parameters, flops(arch, "cifar10"))
    with pytest.raises(InvalidSettingError, match="split"):
        objective_vector(cifar10, arch, result, objectives, split="train")
    fbnet = load_fbnet()
    fb_arch = fbnet.space.sample(np.random.default_rng(0))
    assert objective_vector(fbnet, fb_arch, None, parse_objectives("latency:fpga")) == (fbnet.latency(fb_arch, "fpga"),)


def test_matrix_rows_are_the_benchmark_rows(cifar10, cifar100):
    objectives = parse_objectives("error,latency:raspi4,params")
    matrix = objective_matrix(cifar10, objectives)
    assert matrix.shape == (15_625, 3) and matrix.dtype == np.float64
    for row in (0, 777, 15_624):
        result = cifar10.query(row)
        assert tuple(matrix[row]) == pytest.approx(objective_vector(cifar10, row, result, objectives, split="test"))
    valid = objective_matrix(cifar10, objectives, split="valid")
    assert valid[777, 0] == pytest.approx(1 - cifar10.query(777).valid_accuracy)
    # CIFAR-100 has no final test accuracy: the test split reads the regret metric, never NaN
    assert not np.isnan(objective_matrix(cifar100, objectives)).any()
    with pytest.raises(InvalidSettingError, match="not a finite table"):
        objective_matrix(load_fbnet(), parse_objectives("latency:pixel3"))


def test_modelled_labels(cifar10, cifar100):
    objectives = parse_objectives("error,latency:pixel3")
    assert modelled_labels(cifar10, objectives) == ()
    assert modelled_labels(cifar100, objectives) == ("latency:pixel3",)


def test_best_under_is_the_exact_constrained_optimum(cifar10):
    matrix = objective_matrix(cifar10, parse_objectives("error,latency:pixel3"))
    previous = 0.0
    for bound in (1.0, 3.0, 5.0, 10.0):
        best = best_under(cifar10, "pixel3", bound)
        feasible = matrix[:, 1] <= bound
        assert best.latency_ms <= bound and best.feasible == int(feasible.sum())
        assert best.accuracy == pytest.approx(1 - matrix[feasible, 0].min())
        assert best.arch == cifar10.arch_at(best.row) and best.accuracy >= previous
        previous = best.accuracy
    assert best.accuracy == pytest.approx(cifar10.final_test_accuracy(best.arch))
    with pytest.raises(InvalidSettingError, match="no architecture of nb201-cifar10 runs within 0.001 ms on pixel3"):
        best_under(cifar10, "pixel3", 0.001)
    for bad in (-1, 0, float("nan"), "5"):
        with pytest.raises(InvalidSettingError, match="positive number"):
            best_under(cifar10, "pixel3", bad)


def test_cli_best_under_matches_the_api(cifar10, lite, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    loaded = {"nb201-cifar10": cifar10, "nb101-lite": lite}  # the CLI's logic, not loading, is under test
    monkeypatch.setattr("nasarena.benchmarks.benchmark", lambda name, **options: loaded[name])
    result = invoke("query", "nb201-cifar10", "--best-under", 5, "--device", "pixel3", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    best = best_under(cifar10, "pixel3", 5)
    assert answer["row"] == best.row and answer["architecture"] == best.arch.to_string()
    assert answer["latency_ms"] == pytest.approx(best.latency_ms) and answer["latency_modelled"] is False
    text = invoke("query", "nb201-cifar10", "0", "--device", "raspi4").output
    assert f"latency_ms_raspi4      {cifar10.latency(0, 'raspi4')}" in text
    for args, message in [
        (("nb201-cifar10", "--best-under", "0.001", "--device", "pixel3"), "no architecture"),
        (("nb201-cifar10", "--best-under", "5", "--device", "pixl3"), "did you mean pixel3"),
        (("nb101-lite", "--best-under", "5", "--device", "pixel3"), "nb101-lite has no latency data"),
        (("nb201-cifar10", "0", "--device", "nope"), "unknown device 'nope'"),
        (("nb201-cifar10", "--best-under", "5"), "needs --device"),
        (("nb201-cifar10", "0", "--best-under", "5", "--device", "pixel3"), "give no ARCH"),
        (("nb201-cifar10",), "missing ARCH"),
    ]:
        refused = invoke("query", *args)
        assert refused.exit_code == 2 and "error:" in refused.output and message in refused.output, refused.output
    assert list(tmp_path.iterdir()) == []
