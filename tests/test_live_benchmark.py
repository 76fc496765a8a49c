"""The live benchmark of issue 13: a query trains, the store answers repeats, the runner uses it."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nasarena  # noqa: E402
from nasarena.benchmarks.live import LiveBenchmark  # noqa: E402
from nasarena.errors import InvalidArchitectureError, InvalidSettingError, UnknownNameError  # noqa: E402

torch.set_num_threads(1)
NB201_CELL = "|nor_conv_3x3~0|+|nor_conv_3x3~0|skip_connect~1|+|skip_connect~0|none~1|avg_pool_3x3~2|"



def _options(folder: Path, store: Path) -> dict:
    return dict(space="nb201", data=folder, store=store, protocol="quick", settings=("batch_size=64",),
                image_size=8, fidelities=(1, 2), channels=4, cells_per_stage=1, device="cpu")


def test_query_trains_once_and_the_store_survives_a_restart(cifar_folder, tmp_path, monkeypatch):
    import socket

    bench = nasarena.benchmark("live", **_options(cifar_folder, tmp_path))
    claims = bench.folder / "training"
    claims.mkdir(parents=True)
    stale = claims / f".claim-{bench._key(bench.space.from_text(NB201_CELL), 2)}.lock"
    stale.write_text(f"{socket.gethostname()} 4194304\n")  # a killed trainer's claim: taken over
    result = bench.query(NB201_CELL, 2)
    assert not stale.exists()
    assert result.fidelity == 2 and not result.modelled and result.cost_seconds > 0
    assert 0 <= result.valid_accuracy <= 1 and 0 <= result.test_accuracy <= 1
    assert result.trainable_parameters > 0 and result.train_accuracy == result.train_accuracy
    assert bench.query(bench.space.from_text(NB201_CELL)) == result  # default fidelity: the highest

    import nasarena.training.loop as loop

    def no_training(*args, **kwargs):
        raise AssertionError("a stored result was trained again")

    monkeypatch.setattr(loop, "train", no_training)
    restarted = nasarena.benchmark("live", **_options(cifar_folder, tmp_path))
    assert restarted.query(NB201_CELL, 2) == result
    assert restarted.final_test_accuracy(NB201_CELL) == result.test_accuracy
    entries = list(restarted.stored())
    assert len(entries) == 1 and entries[0]["fidelity"] == 2 and len(entries[0]["record"]["epochs"]) == 2
    assert not (restarted.folder / "training").exists() or not any((restarted.folder / "training").iterdir())
    other = nasarena.benchmark("live", **{**_options(cifar_folder, tmp_path), "channels": 8})
    assert other.folder != restarted.folder  # other settings: another store, nothing mixed
    with pytest.raises(AssertionError, match="trained again"):
        other.query(NB201_CELL, 2)


def test_describe_and_protocol_surface(cifar_folder, tmp_path):
    bench = LiveBenchmark(**_options(cifar_folder, tmp_path))
    assert bench.fidelities == (1, 2) and bench.optimum() == 1.0 and bench.protocol.batch_size == 64
    text = bench.describe().to_text()
    assert "measured" in text and "quick" in text and "channels=4" in text
    assert not bench.folder.exists()  # describing writes nothing


def test_bad_input_is_a_clear_error(cifar_folder, tmp_path):
    bench = LiveBenchmark(**_options(cifar_folder, tmp_path))
    with pytest.raises(InvalidArchitectureError, match="does not parse"):
        bench.query("|bogus|", 1)
    with pytest.raises(InvalidSettingError, match="fidelity 3"):
        bench.query(NB201_CELL, 3)
    with pytest.raises(UnknownNameError, match="space"):
        LiveBenchmark(space="nb999")
    with pytest.raises(UnknownNameError, match="channels"):
        LiveBenchmark(space="nb201", chanels=4)
    with pytest.raises(InvalidSettingError, match="image_size"):
        LiveBenchmark(space="nb201", image_size="big")
    (tmp_path / "stored").mkdir()
    broken = LiveBenchmark(**_options(cifar_folder, tmp_path / "stored"))
    key = broken._key(broken.space.from_text(NB201_CELL), 1)
    (broken.folder / "results").mkdir(parents=True)
    (broken.folder / "results" / f"{key}.json").write_text("{")
    with pytest.raises(nasarena.errors.DataFileError, match="not a readable"):
        broken.query(NB201_CELL, 1)


def test_nasarena_run_uses_the_live_benchmark(cifar_folder, tmp_path):
    from typer.testing import CliRunner

    from nasarena.cli.main import app
    from nasarena.runner.experiment import load_results

    out = tmp_path / "results"
    options = [f"data={cifar_folder}", f"store={tmp_path / 'store'}", "protocol=quick", "settings=batch_size=64",
               "image_size=8", "fidelities=1", "channels=4", "cells_per_stage=1", "device=cpu"]
    arguments = ["run", "--benchmark", "live", "--space", "nb201", "--optimizers", "rs", "--seeds", "0",
                 "--max-evaluations", "3", "--jobs", "1", "--out", str(out)]
    for option in options:
        arguments += ["--benchmark-option", option]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    frame = load_results(out)
    assert len(frame) == 3 and (frame["benchmark"] == "live").all()
    assert np.all(np.diff(frame["sim_time"].to_numpy()) > 0)  # the clock is the measured training time
    regret = frame["incumbent_test_regret"].to_numpy()
    bench = LiveBenchmark(space="nb201", data=cifar_folder, store=tmp_path / "store", protocol="quick",
                          settings=("batch_size=64",), image_size=8, fidelities="1", channels=4, cells_per_stage=1)
    stored = list(bench.stored())
    assert len(stored) == len(set(frame["arch_id"]))
    assert regret[-1] == pytest.approx(1.0 - frame["test_accuracy"][frame["arch_id"] == frame["incumbent_id"].iloc[-1]]
                                       .iloc[0])
    bad = CliRunner().invoke(app, ["run", "--benchmark", "live", "--benchmark-option", "image_size", "--out",
                                   str(tmp_path / "x")])
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output
