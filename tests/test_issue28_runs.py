"""Issue 28, the points of ``nasarena run`` and the library's query API: live-benchmark options in
the settings hash (8), no silent days of live training (11), bad options and generators as
clear errors (13, 15), and a final table that holds only the command's own runs (15)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import nasarena
from nasarena.errors import InvalidArchitectureError, InvalidSettingError
from nasarena.runner import Budget
from nasarena.runner.experiment import grid


def nasarena_cli(*arguments, timeout=300):
    return subprocess.run([sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "OMP_NUM_THREADS": "1",
                                                           "NASARENA_PROGRESS": "0"})


def assert_refused(result, *fragments: str) -> str:
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "error:" in output and "Traceback" not in output, output
    for fragment in fragments:
        assert fragment in output, output
    return output


def _live_arguments(cifar_folder, store, out, *extra):
    options = [f"data={cifar_folder}", f"store={store}", "protocol=quick", "settings=batch_size=64", "image_size=8",
               "fidelities=1", "cells_per_stage=1", "device=cpu", *extra]
    arguments = ["run", "--benchmark", "live", "--space", "nb201", "--optimizers", "rs", "--seeds", "0",
                 "--max-evaluations", "2", "--jobs", "1", "--out", out]
    for option in options:
        arguments += ["--benchmark-option", option]
    return arguments


def test_point08_a_changed_live_option_is_a_new_run_not_the_old_results(cifar_folder, tmp_path):
    pytest.importorskip("torch")
    out, store = tmp_path / "results", tmp_path / "store"
    first = nasarena_cli(*_live_arguments(cifar_folder, store, out, "channels=4"))
    assert first.returncode == 0 and "0 already in" in first.stdout, first.stdout + first.stderr
    again = nasarena_cli(*_live_arguments(cifar_folder, store, out, "channels=4"))
    assert "1 already in" in again.stdout, again.stdout + again.stderr
    changed = nasarena_cli(*_live_arguments(cifar_folder, store, out, "channels=6"))
    assert changed.returncode == 0 and "0 already in" in changed.stdout, changed.stdout + changed.stderr
    assert len(list((out / "runs").glob("*.parquet"))) == 2
    # where the data is (store, data folder, device) is not a setting: runs stay found
    moved = nasarena_cli(*_live_arguments(cifar_folder, tmp_path / "other-store", out, "channels=4"))
    assert "1 already in" in moved.stdout, moved.stdout + moved.stderr


def test_point08_hashes_of_runs_without_benchmark_options_are_unchanged():
    # the hashes stored results carry (as written before issue 28): resumption keeps finding them
    spec = grid(["nb101-lite"], ["re"], [0], Budget(seconds=1e7))[0]
    with_path = grid(["nb101"], ["re"], [0], Budget(seconds=1e7), benchmark_options={"path": "/data/store"})[0]
    assert spec.settings_hash == with_path.settings_hash
    live = grid(["live"], ["re"], [0], Budget(seconds=1e7), benchmark_options={"space": "nb201"})[0]
    assert live.settings_hash != spec.settings_hash


def test_point11_live_needs_its_space_and_announces_the_work_before_training(cifar_folder, tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "results"
    assert_refused(nasarena_cli("run", "--benchmark", "live", "--optimizers", "hb", "--out", out), "--space")
    assert not out.exists()
    result = nasarena_cli(*_live_arguments(cifar_folder, tmp_path / "store", out, "channels=4"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "per architecture (1 epoch of 200 images" in result.stderr and "--budget" in result.stderr
    full = nasarena.benchmark("live", space="nb201", device="cpu").estimate_training()
    assert full.epochs == 200 and full.images == 40_000 and full.parameters > 300_000
    assert full.seconds > 3600  # NB201's full protocol on a CPU: days, never a quiet default


def test_point13_run_refuses_a_space_for_a_benchmark_whose_space_is_fixed(tmp_path):
    assert_refused(nasarena_cli("run", "--benchmark", "nb201-cifar10", "--space", "darts", "--out", tmp_path / "r"),
                   "nb201-cifar10", "takes no option space='darts'")
    with pytest.raises(InvalidSettingError, match="takes no option foo=1"):
        nasarena.benchmark("nb101-lite", foo=1)


def test_point13_a_seed_given_as_rng_is_a_clear_error():
    noisy = nasarena.benchmark("nb101-noisy")  # three trials: the generator draws one
    with pytest.raises(InvalidSettingError, match=r"default_rng\(3\)"):
        noisy.query(5, rng=3)
    with pytest.raises(InvalidSettingError, match="numpy Generator"):
        noisy.query_batch([5, 6], rng=3)
    assert noisy.query(5, rng=np.random.default_rng(3)).valid_accuracy > 0


def test_point13_one_hot_of_another_spaces_architecture_names_both_spaces():
    from nasarena.spaces.oneshot.choices import one_hot, to_categorical, to_config

    arch = nasarena.benchmark("nb1shot1-3").space.sample(np.random.default_rng(0))
    for encode in (one_hot, to_categorical, to_config):
        with pytest.raises(InvalidArchitectureError, match="belongs to nb1shot1-3, not to nb1shot1-1"):
            encode("nb1shot1-1", arch)
    assert one_hot("nb1shot1-3", arch).sum() == len(to_categorical("nb1shot1-3", arch))


def test_point15_stop_halfway_without_halfway_data_is_a_nasarena_error():
    with pytest.raises(InvalidSettingError, match="no halfway evaluations"):
        nasarena.benchmark("nb101-noisy").query(5, stop_halfway=True)


def test_point15_the_final_table_holds_only_this_commands_runs(tmp_path):
    out = tmp_path / "results"
    other = nasarena_cli("run", "--optimizers", "rs", "--seeds", "0-2", "--max-evaluations", "20", "--jobs", "1",
                         "--out", out)
    assert other.returncode == 0, other.stderr
    mine = nasarena_cli("run", "--optimizers", "re", "--seeds", "0", "--max-evaluations", "20", "--jobs", "1",
                        "--out", out)
    assert mine.returncode == 0, mine.stderr
    table = mine.stdout.split("final regret", 1)[1]
    assert " re " in table and " rs " not in table
    assert "also holds 3 run(s) of other commands" in mine.stdout


def test_point05_run_keeps_a_folder_of_someone_elses_files(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.json").write_text('{"my": "notes"}')
    assert_refused(nasarena_cli("run", "--optimizers", "rs", "--seeds", "0", "--max-evaluations", "5", "--jobs", "1",
                                "--out", mine), "did not write", "notes.json")
    assert sorted(p.name for p in mine.iterdir()) == ["notes.json"]
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("chapter 1")
    assert_refused(nasarena_cli("run", "--optimizers", "rs", "--seeds", "0", "--max-evaluations", "5", "--jobs", "1",
                                "--out", thesis), "is a file")
    assert thesis.read_text() == "chapter 1"
