"""One-shot search on the NAS-Bench-1Shot1 spaces: every optimizer runs two quick epochs on real
CIFAR-10 and records everything; seed-determinism and resumption; bad input.

Scale is tiny (4 channels, one cell per stack, 16 x 16 images, 20 images per class) so the
whole file stays within a minute or two on two CPU cores; the numbers checked are the NB101
benchmark's own (looked up again here), never made-up ones.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from typer.testing import CliRunner

from nasarena.cli.main import app
from nasarena.errors import (
    DataFileError,
    InvalidArchitectureError,
    InvalidSettingError,
    UnknownNameError,
)
from nasarena.oneshot import OPTIMIZERS, SearchSettings, quick_settings, read_records
from nasarena.oneshot.lookup import Nb101Lookup
from nasarena.oneshot.run import read_weights, run_search
from nasarena.oneshot.supernet import ArchitectureWeights, PathWeights, Supernet
from nasarena.spaces.oneshot import OneShotArch, discretize_arch

SPACE = "nb1shot1-1"
TINY = {"cells_per_stack": 1, "subset": 20, "epochs": 2}


@pytest.fixture(scope="module")
def data():
    from nasarena.training.data import load_cifar10

    try:
        return load_cifar10(image_size=16, subset=20)
    except DataFileError as error:  # the shared data is not on every machine
        pytest.skip(f"CIFAR-10 not available: {error}")


@pytest.fixture(scope="module")
def lookup():
    return Nb101Lookup(SPACE)


@pytest.fixture(scope="module")
def noisy():
    """The default table of the one-shot lookups: nb101-noisy's three trials (issue 29)."""
    import nasarena

    return nasarena.benchmark("nb101-noisy")


def _search(tmp_path, data, lookup, optimizer, seed=0, name="run", **changes):
    torch.set_num_threads(1)
    settings = quick_settings(optimizer, SPACE, **{**TINY, **changes})
    return run_search(settings, seed, tmp_path / name, data=data, lookup=lookup)


def _without_time(records):
    return [{k: v for k, v in r.to_dict().items() if not k.endswith("seconds")} for r in records]


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_two_quick_epochs_record_everything(tmp_path, data, lookup, noisy, optimizer):
    records = _search(tmp_path, data, lookup, optimizer)
    assert [r.epoch for r in records] == [1, 2]
    assert read_records(tmp_path / "run") == records
    test, valid = noisy.mean_over_trials("test_accuracy"), noisy.mean_over_trials("valid_accuracy")
    for r in records:
        assert r.optimizer == optimizer and r.space == SPACE and r.seed == 0
        assert 0 <= r.train_error <= 1 and 0 <= r.valid_error <= 1 and r.train_loss > 0
        arch = OneShotArch.from_string(r.architecture)
        cell = arch.to_cell()
        assert cell.hash == r.nb101_hash
        row = int(noisy.rows([cell])[0])
        assert r.nb101_test_accuracy == pytest.approx(float(test[row]))
        assert r.nb101_valid_accuracy == pytest.approx(float(valid[row]))  # means over the three trials
        assert r.test_regret == pytest.approx(lookup.optimum - r.nb101_test_accuracy)
        assert r.test_regret >= 0
        assert r.seconds >= r.search_seconds > 0
    weights = sorted((tmp_path / "run" / "weights").glob("*.npz"))
    if optimizer in ("random-ws", "enas"):  # no architecture weights: sampled architectures
        assert weights == []
    else:
        assert [w.name for w in weights] == ["epoch-001.npz", "epoch-002.npz"]
        saved = read_weights(weights[-1])
        assert [a.shape for a in saved["alpha"]] == [(1,), (2,), (3,), (4,)]
        assert saved["beta"].shape == (4, 3) and saved["gamma"].shape == (5,)
        assert discretize_arch(SPACE, **saved).to_string() == records[-1].architecture


def test_seed_determinism_and_resumption(tmp_path, data, lookup):
    first = _search(tmp_path, data, lookup, "gdas", name="a")
    again = _search(tmp_path, data, lookup, "gdas", name="b")
    assert _without_time(first) == _without_time(again)
    other = _search(tmp_path, data, lookup, "gdas", seed=1, name="c")
    assert _without_time(other) != _without_time(first)
    settings = quick_settings("gdas", SPACE, **TINY)
    partial = run_search(settings, 0, tmp_path / "d", data=data, lookup=lookup, stop_after_epoch=1)
    assert len(partial) == 1
    resumed = run_search(settings, 0, tmp_path / "d", data=data, lookup=lookup)
    assert _without_time(resumed) == _without_time(first)


def test_enas_resumption_keeps_the_controller(tmp_path, data, lookup):
    whole = _search(tmp_path, data, lookup, "enas", name="a")
    settings = quick_settings("enas", SPACE, **TINY)
    run_search(settings, 0, tmp_path / "b", data=data, lookup=lookup, stop_after_epoch=1)
    resumed = run_search(settings, 0, tmp_path / "b", data=data, lookup=lookup)
    assert _without_time(resumed) == _without_time(whole)


def test_resume_with_other_settings_is_refused_and_keeps_epochs(tmp_path, data, lookup):
    settings = quick_settings("random-ws", SPACE, **TINY)
    run_search(settings, 0, tmp_path / "r", data=data, lookup=lookup, stop_after_epoch=1)
    before = (tmp_path / "r" / "records.jsonl").read_bytes()
    with pytest.raises(InvalidSettingError, match=r"channels: 4 -> 8.*finished epochs are kept"):
        run_search(settings.replace(channels=8), 0, tmp_path / "r", data=data, lookup=lookup)
    with pytest.raises(InvalidSettingError, match=r"seed: 0 -> 3"):
        run_search(settings, 3, tmp_path / "r", data=data, lookup=lookup)
    assert (tmp_path / "r" / "records.jsonl").read_bytes() == before
    assert json.loads((tmp_path / "r" / "settings.json").read_text())["settings"]["channels"] == 4


def test_one_hot_weights_equal_the_single_path(lookup):
    """The supernet under one-hot DARTS weights computes exactly the sampled architecture's sub-network."""
    torch.manual_seed(0)
    net = Supernet(SPACE, channels=4, cells_per_stack=1)
    images = torch.randn(6, 3, 16, 16)
    arch = OneShotArch.from_string(
        "nb1shot1-1:conv3x3-bn-relu<0|maxpool3x3<0+1|conv1x1-bn-relu<1+2|conv3x3-bn-relu<0+3|out<3+4")
    single = PathWeights.of_architecture(arch)
    full = PathWeights(single.inputs, single.ops, single.output)  # same weights, every op and edge computed
    with torch.no_grad():
        assert torch.allclose(net(images, single), net(images, full), atol=1e-5)


def test_architecture_weights_have_the_paper_shapes():
    weights = ArchitectureWeights("nb1shot1-3", torch.Generator().manual_seed(0)).to_numpy()
    assert [a.shape for a in weights["alpha"]] == [(1,), (2,), (3,), (4,), (5,)]
    assert weights["beta"].shape == (5, 3) and weights["gamma"].shape == (6,)
    bad = dict(weights, gamma=np.zeros(5))
    with pytest.raises(InvalidArchitectureError, match="gamma must have shape"):
        discretize_arch("nb1shot1-3", **bad)


def test_bad_settings():
    with pytest.raises(UnknownNameError, match="one-shot optimizer 'dart'.*did you mean darts"):
        SearchSettings(optimizer="dart")
    with pytest.raises(UnknownNameError, match="one-shot space"):
        SearchSettings(space="nb1shot1-4")
    with pytest.raises(InvalidSettingError, match="unknown one-shot setting"):
        quick_settings().replace(chanels=3)
    with pytest.raises(InvalidSettingError, match="channels"):
        SearchSettings(channels=0)
    with pytest.raises(InvalidSettingError, match="need a tabular NB101 benchmark"):
        Nb101Lookup(SPACE, "nb201-cifar10")
    assert SearchSettings(optimizer="random-ws").batch_size == 64
    assert SearchSettings(optimizer="enas").samples == 100 and SearchSettings().batch_size == 96


def test_cli_run_report_and_errors(tmp_path):
    runner = CliRunner()
    out = tmp_path / "out"
    args = ["oneshot", "run", "--space", SPACE, "--optimizer", "random-ws", "--quick", "--seeds", "0", "--out",
            str(out), "--set", "epochs=1", "--set", "cells_per_stack=1", "--set", "subset=20", "--threads", "1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "epoch 1/1" in result.output
    assert len(read_records(out / "random-ws" / "seed-0")) == 1
    result = runner.invoke(app, ["oneshot", "report", str(out)])
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    assert "random-ws" in page and "data:image/png;base64" in page
    result = runner.invoke(app, [*args[:4], "--optimizer", "enass", *args[6:]])
    assert result.exit_code == 2 and "unknown one-shot optimizer 'enass'" in result.output
    result = runner.invoke(app, ["oneshot", "run", "--space", "nb1shot1-7", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "unknown one-shot space 'nb1shot1-7'" in result.output
    assert not (tmp_path / "x").exists()
    changed = [a if a != "cells_per_stack=1" else "cells_per_stack=2" for a in args]
    result = runner.invoke(app, changed)
    assert result.exit_code == 2 and "cells_per_stack: 1 -> 2" in result.output
