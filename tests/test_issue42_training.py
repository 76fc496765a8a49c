"""Issue 42 ("Tried as a careless user would, round three"), points 3, 4, 11, 14 and 18: a zero-cost
warm-up refused before ``nasarena run`` writes anything (no proxy, more architectures than the
space holds, ``1e6``), a junk ``checkpoint.pt`` named and kept, non-finite supernet scores named
as such, and a live training estimate from several timed steps after an untimed one.

Command-line cases run the real command in a subprocess, as a user does, and expect
``error: ...``, exit status 2 and no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import types

import numpy as np
import pandas as pd
import pytest

import nasarena
from nasarena.errors import DataFileError, InvalidSettingError
from nasarena.optimizers.base import make
from nasarena.optimizers.zero_cost_warmup import ZeroCostWarmup
from nasarena.runner import Budget
from nasarena.runner.experiment import grid

NB201_CELL = "|nor_conv_3x3~0|+|nor_conv_3x3~0|skip_connect~1|+|skip_connect~0|none~1|avg_pool_3x3~2|"
N201 = 15_625


def nasarena_cli(*arguments, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "OMP_NUM_THREADS": "1",
                                                           "NASARENA_PROGRESS": "0"})


def refused(result: subprocess.CompletedProcess, *fragments: str) -> str:
    """Exit status 2, an ``error:`` line holding every fragment, no traceback; the error's text."""
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    return result.stderr


def run_arguments(out, *extra) -> list[str]:
    return ["run", "--benchmarks", "nb201-cifar10", "--optimizers", "re", "--seeds", "0", "--out", out, *extra]


# --- point 3: a warm-up without a proxy writes nothing ------------------------------------------


def test_point3_a_warm_up_without_a_proxy_is_refused_before_out_is_created(tmp_path):
    out = tmp_path / "results"
    refused(nasarena_cli(*run_arguments(out, "--set", "re.zero_cost_warmup=100")),
            "re.zero_cost_warmup=100", "zero-cost proxy (fidelity 0)", "nb201-cifar10", "--benchmark-option proxy=NAME")
    assert not out.exists()
    # a benchmark that has no proxy at all, the setting given for every optimizer of the grid
    refused(nasarena_cli("run", "--benchmarks", "nb101-lite", "--optimizers", "re,nre", "--seeds", "0", "--out", out,
                         "--set", "zero_cost_warmup=100"), "nb101-lite has none", "leave the warm-up out")
    assert not out.exists()


# --- point 4: a warm-up larger than the space ----------------------------------------------------


class _ThreeArchitectures:
    """A finite space of three architectures (0, 1, 2), enough for the warm-up's bound."""

    name = "three"
    size = 3

    def sample(self, rng):
        return int(rng.integers(3))

    def identity(self, arch):
        return str(arch)


def test_point4_a_warm_up_of_at_most_the_spaces_size_is_accepted_and_a_larger_one_refused():
    space = _ThreeArchitectures()
    whole = ZeroCostWarmup(space, np.random.default_rng(0), 3, 1, "re")
    assert sorted(whole.ask(number).arch for number in range(3)) == [0, 1, 2]  # every architecture, once
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"zero_cost_warmup=1,000,000,000 .* space three holds \(3\)"):
        ZeroCostWarmup(space, np.random.default_rng(0), 10**9, 1, "re")
    assert time.monotonic() - started < 1  # refused before a single draw
    bench = nasarena.benchmark("nb201-cifar10", proxy="synflow")
    for name in ("re", "nre", "bananas"):
        with pytest.raises(InvalidSettingError, match=f"optimizer '{name}': zero_cost_warmup=1,000,000 .*15,625"):
            make(name, bench.space, zero_cost_warmup=10**6)


def test_point4_the_cli_refuses_a_warm_up_larger_than_the_space_and_1e6_before_any_work(tmp_path):
    out = tmp_path / "results"
    proxy = ("--benchmark-option", "proxy=synflow")
    started = time.monotonic()
    refused(nasarena_cli(*run_arguments(out, "--set", "re.zero_cost_warmup=1000000000", *proxy), timeout=120),
            "zero_cost_warmup=1,000,000,000", "space nb201 holds (15,625)", "at most 15,625")
    assert time.monotonic() - started < 60 and not out.exists()  # not the draws of a billion architectures
    refused(nasarena_cli(*run_arguments(out, "--set", "re.zero_cost_warmup=1e6", *proxy)),
            "zero_cost_warmup=1000000.0 is not a whole number", "write the whole number in digits",
            "zero_cost_warmup=1000000")
    assert not out.exists()


def test_point4_settings_hashes_of_existing_runs_are_unchanged():
    # the warm-up left at its default is not recorded: RE's and BANANAS' runs keep the hashes they had
    re, bananas = grid(["nb201-cifar10"], ["re", "bananas"], [0], Budget(seconds=1e7))
    assert (re.settings_hash, bananas.settings_hash) == ("ec83f74e7a", "8f0aa2ec80")
    assert "zero_cost_warmup" not in re.recorded_settings


# --- point 11: a junk checkpoint is named and kept -----------------------------------------------

#: A pickle header and garbage: torch's loader fails inside with KeyError (seed 62), IndexError
#: (seed 17) and UnicodeDecodeError (seed 54), not with an error saying the file is not a checkpoint.
JUNK = {kind: b"\x80\x04" + np.random.default_rng(seed).bytes(64)
        for kind, seed in (("KeyError", 62), ("IndexError", 17), ("UnicodeDecodeError", 54))}


def test_point11_junk_and_foreign_checkpoints_are_data_file_errors_and_kept(tmp_path):
    torch = pytest.importorskip("torch")
    from nasarena.training.checkpoint import CHECKPOINT_FILE, load_checkpoint

    file = tmp_path / CHECKPOINT_FILE
    for kind, junk in JUNK.items():
        file.write_bytes(junk)
        with pytest.raises(DataFileError, match=f"{CHECKPOINT_FILE}: not a readable nasarena training checkpoint"
                                                ".*it is kept"):
            load_checkpoint(tmp_path, {})
        assert file.read_bytes() == junk, kind
    for foreign, why in (({"weights": torch.zeros(2)}, "not a nasarena training checkpoint"), ([1, 2], "list")):
        torch.save(foreign, file)
        before = file.read_bytes()
        with pytest.raises(DataFileError, match=why):
            load_checkpoint(tmp_path, {})
        assert file.read_bytes() == before


def test_point11_train_into_a_folder_with_a_junk_checkpoint_is_an_error_naming_it(cifar_folder, tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "run"
    out.mkdir()
    (out / "checkpoint.pt").write_bytes(JUNK["KeyError"])
    result = nasarena_cli("train", "--space", "nb201", "--arch", NB201_CELL, "--epochs", "1", "--image-size", "8",
                          "--device", "cpu", "--scale", "channels=4", "--scale", "cells_per_stage=1", "--set",
                          "batch_size=64", "--data", cifar_folder, "--out", out)
    refused(result, str(out / "checkpoint.pt"), "not a readable nasarena training checkpoint", "it is kept")
    assert (out / "checkpoint.pt").read_bytes() == JUNK["KeyError"] and os.listdir(out) == ["checkpoint.pt"]


# --- point 14: non-finite supernet scores are named as such --------------------------------------


def test_point14_non_finite_scores_are_named_and_counted_not_called_missing_ids(tmp_path):
    scores = np.random.default_rng(0).random(N201)
    scores[[5, 100, 2000]] = [np.nan, np.inf, -np.inf]
    pd.DataFrame({"arch_id": np.arange(N201), "50": scores}).to_csv(tmp_path / "scores.csv", index=False)
    error = refused(nasarena_cli("supernet", "evaluate", "--scores", tmp_path / "scores.csv", "--out",
                                 tmp_path / "out"),
                    "checkpoint 50, arch_id 5, 100, 2000: not a finite score",
                    "3 architecture(s): 1 empty or NaN (5), 1 inf (100), 1 -inf (2000)")
    assert "missing" not in error and not (tmp_path / "out").exists()


def test_point14_a_file_of_some_rows_names_their_non_finite_scores_and_rows_without_an_id(tmp_path):
    from nasarena.analysis.supernet import read_scores

    sample, blank = tmp_path / "sample.csv", tmp_path / "blank.csv"
    # three rows, all non-finite: their scores are the problem, not the 15,622 ids they leave out
    pd.DataFrame({"arch_id": [5, 100, 2000], "50": [np.nan, np.inf, -np.inf]}).to_csv(sample, index=False)
    with pytest.raises(ValueError, match=r"arch_id 5, 100, 2000: not a finite score \(3 architecture"):
        read_scores(sample, N201)
    pd.DataFrame({"arch_id": [5, 100], "50": [0.5, 0.7]}).to_csv(sample, index=False)
    with pytest.raises(ValueError, match=r"15,623 architecture id\(s\) missing, e.g. \[0, 1, 2, 3, 4\] \(the file "
                                         r"scores 2 of the 15,625"):
        read_scores(sample, N201)
    # whole rows of NaN: named by their rows, neither as an id 'nan' repeated nor as an architecture 'nan'
    frame = pd.DataFrame({"arch_id": np.arange(6.0), "50": np.arange(6.0)})
    frame.loc[[1, 4]] = np.nan
    frame.to_csv(blank, index=False)
    for row_of in (None, int):
        with pytest.raises(ValueError, match=r"2 row\(s\) without an arch_id \(empty or NaN\): data row\(s\) 2, 5"):
            read_scores(blank, 6, row_of=row_of)


# --- point 18: a stable estimate of the live benchmark's work ------------------------------------


class _FakeClock:
    """``time.perf_counter`` of :mod:`nasarena.benchmarks.live`, answering scripted readings."""

    def __init__(self, readings):
        self.readings = list(readings)
        self.calls = 0

    def perf_counter(self) -> float:
        self.calls += 1
        return self.readings.pop(0)


def test_point18_timed_steps_discard_the_first_step_and_time_each_of_the_others(monkeypatch):
    from nasarena.benchmarks import live

    clock = types.SimpleNamespace(now=0.0)
    durations = iter([1000.0, 1.0, 2.0, 3.0, 4.0, 5.0])  # the first (warm-up) step is very slow

    def step():
        clock.now += next(durations)

    monkeypatch.setattr(live, "time", types.SimpleNamespace(perf_counter=lambda: clock.now))
    assert live.timed_steps(step, 5) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert next(durations, None) is None  # six steps run: one untimed, five timed


@pytest.fixture
def one_torch_thread():
    """The estimate's steps are real (only the clock is not): on one thread they take a fraction of
    a second where two threads on a machine busy with other work took seconds each."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_point18_the_estimate_is_the_median_of_several_timed_steps_with_their_spread(cifar_folder, tmp_path,
                                                                                     monkeypatch, one_torch_thread):
    import nasarena.training
    from nasarena.benchmarks import live

    bench = nasarena.benchmark("live", space="nb201", data=cifar_folder, store=tmp_path, protocol="quick",
                               image_size=8, fidelities=(1, 3), channels=4, cells_per_stage=1, device="cpu")
    forward_passes = []
    build = nasarena.training.build_network

    def counted_build(*arguments, **knobs):
        network = build(*arguments, **knobs)
        network.register_forward_hook(lambda *_: forward_passes.append(1))
        return network

    monkeypatch.setattr(nasarena.training, "build_network", counted_build)
    steps = [1.0, 2.0, 30.0, 4.0, 5.0]  # one slow step: the median does not follow it
    clock = _FakeClock([reading for index, seconds in enumerate(steps) for reading in (10.0 * index,
                                                                                       10.0 * index + seconds)])
    monkeypatch.setattr(live, "time", clock)
    estimate = bench.estimate_training()
    per_second = 200 * 3 / live.ESTIMATE_BATCH  # the training images of 3 epochs, per timed step's image
    assert len(forward_passes) == live.ESTIMATE_STEPS + 1 and clock.calls == 2 * live.ESTIMATE_STEPS
    assert estimate.steps == live.ESTIMATE_STEPS == len(steps)
    assert (estimate.seconds, estimate.low_seconds, estimate.high_seconds) == pytest.approx(
        (4.0 * per_second, 1.0 * per_second, 30.0 * per_second))
    text = str(estimate)
    assert "per architecture (3 epochs of 200 images" in text and "median of 5 timed training steps" in text
    assert text.startswith("about 5.0 minutes per architecture") and "ranged from 75 s to 37.5 minutes" in text
