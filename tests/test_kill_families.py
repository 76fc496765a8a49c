"""Every family of work on the execution layer survives Ctrl-C and ``kill -9`` (issue 30, point 2).

For ``nasarena collect``, ``oneshot run``, ``oneshot correlate`` and ``oneshot tune``: the real
command runs in a subprocess on two worker processes with a tiny setting (4-channel networks,
the 200 synthetic images of ``cifar_folder``) and is interrupted as soon as one of its tasks has
finished (its output polled): first by SIGINT to its process group (Ctrl-C in a terminal), then,
rerun, by SIGKILL of the main process alone once one more task has finished. After each: the
command failed, every worker (and the fork server) is gone within seconds, and what finished is
on disk and intact (equal to an uninterrupted run's). Then a rerun completes with the results of
an uninterrupted run (measured times left out). Reruns and the uninterrupted runs are in this
process (one torch thread, as the workers), to spare a start-up each.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from process_helpers import gone_within, kill_all

torch = pytest.importorskip("torch")
psutil = pytest.importorskip("psutil")

#: One-epoch searches of 4-channel one-cell supernets on 20 images a class, looked up in nb101-lite (its table
#: loads in a fifth of nb101-noisy's time, in every worker).
ONESHOT = ["--space", "nb1shot1-1", "--quick", "--set", "epochs=1", "--set", "cells_per_stack=1", "--set", "subset=20"]


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Runs in this process as on a worker: one torch thread (results on a CPU depend on it)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _in_process(*arguments) -> None:
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    result = CliRunner().invoke(app, [str(argument) for argument in arguments])
    assert result.exit_code == 0, result.output + repr(result.exception)


def _descendants(pid: int) -> set[int]:
    try:
        return {child.pid for child in psutil.Process(pid).children(recursive=True)
                if "resource_tracker" not in " ".join(child.cmdline())}
    except psutil.NoSuchProcess:
        return set()


def _interrupt(arguments: list, finished: Callable[[], bool], how: signal.Signals, log: Path) -> None:
    """Run ``nasarena ARGUMENTS`` until ``finished()`` says a task is done, interrupt it ``how``;
    assert it failed and left no process behind."""
    with open(log, "wb") as output:
        process = subprocess.Popen([sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)],
                                   start_new_session=True, stdout=output, stderr=subprocess.STDOUT,
                                   env={**os.environ, "OMP_NUM_THREADS": "1"})
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 300  # the machine running the suite may be busy
        while not finished() and process.poll() is None and time.monotonic() < deadline:
            workers |= _descendants(process.pid)
            time.sleep(0.05)
        assert process.poll() is None, f"the command ended before it was interrupted:\n{log.read_text()}"
        assert finished(), log.read_text()
        workers |= _descendants(process.pid)
        if how == signal.SIGINT:
            os.killpg(process.pid, signal.SIGINT)  # as Ctrl-C in a terminal: to every process of the group
        else:
            os.kill(process.pid, signal.SIGKILL)  # the main process alone: its workers must notice
        process.wait(timeout=60)
    finally:
        kill_all(workers | {process.pid})
    assert process.returncode != 0
    if how == signal.SIGINT:
        assert "Traceback" not in log.read_text(), log.read_text()
    assert len(workers) >= 3 and gone_within(workers, 30), workers  # the fork server and two workers


def _interrupt_twice(arguments: list, finished: Callable[[], int], check: Callable[[], None], folder: Path) -> None:
    """Ctrl-C once ``finished()`` (tasks done) is at least 1, ``check()``; rerun, ``kill -9`` once
    one more task has finished, ``check()``."""
    _interrupt(arguments, lambda: finished() >= 1, signal.SIGINT, folder / "ctrl-c.log")
    check()
    before = finished()
    _interrupt(arguments, lambda: finished() > before, signal.SIGKILL, folder / "kill-9.log")
    check()


def _unmeasured(record) -> dict:
    """A record as a dict without its measured times (different on every run)."""
    fields = record if isinstance(record, dict) else dataclasses.asdict(record)
    return {key: value for key, value in fields.items() if "seconds" not in key}


# --- nasarena collect ------------------------------------------------------------------------

def _collect_arguments(cifar: Path, folder: Path, jobs: int) -> list:
    """Four streams: three of two architectures, one of one."""
    return ["collect", "--space", "darts", "--strategies", "rs", "--n", "7", "--trajectory", "2", "--out",
            folder / "data.parquet", "--data", cifar, "--store", folder / "store", "--epochs", "1", "--image-size",
            "8", "--scale", "channels=4", "--scale", "layers=3", "--scale", "auxiliary=false", "--set",
            "batch_size=100", "--device", "cpu", "--jobs", jobs]


def _collected(out: Path) -> pd.DataFrame:
    return (pd.read_parquet(out).drop(columns="cost_seconds").sort_values(["stream", "evaluation"])
            .reset_index(drop=True)) if out.exists() else pd.DataFrame(columns=["stream"])


@pytest.fixture(scope="module")
def collected(cifar_folder, tmp_path_factory) -> pd.DataFrame:
    folder = tmp_path_factory.mktemp("collect-uninterrupted")
    _in_process(*_collect_arguments(cifar_folder, folder, 1))
    return _collected(folder / "data.parquet")


def test_collect(cifar_folder, collected, tmp_path):
    from nasarena.studies.collection import read_settings

    out = tmp_path / "data.parquet"

    def kept_intact() -> None:
        kept = _collected(out)
        assert 0 < kept["stream"].nunique() and read_settings(out)["complete"] is (kept["stream"].nunique() == 4)
        pd.testing.assert_frame_equal(kept, collected[collected["stream"].isin(kept["stream"])].reset_index(drop=True))

    _interrupt_twice(_collect_arguments(cifar_folder, tmp_path, 2), lambda: _collected(out)["stream"].nunique(),
                     kept_intact, tmp_path)
    _in_process(*_collect_arguments(cifar_folder, tmp_path, 1))
    assert read_settings(out)["complete"] is True and collected["stream"].nunique() == 4
    pd.testing.assert_frame_equal(_collected(out), collected)


# --- nasarena oneshot run --------------------------------------------------------------------

def _run_arguments(cifar: Path, out: Path, jobs: int) -> list:
    return ["oneshot", "run", *ONESHOT, "--optimizers", "random-ws", "--seeds", "0-3", "--set", "snapshot_every=1",
            "--benchmark", "nb101-lite", "--data", cifar, "--jobs", jobs, "--out", out]


def _searches(runs: list[Path]) -> dict[str, list[dict]]:
    """The records of every run directory that holds some: ``{name: records}``."""
    from nasarena.oneshot import read_records

    return {run.name: [_unmeasured(r) for r in read_records(run)] for run in runs if (run / "records.jsonl").exists()}


def _finished(runs: list[Path]) -> int:
    """How many of the searches ``runs`` have recorded their last epoch."""
    searches = _searches(runs)
    return sum(len(searches[run.name]) == json.loads((run / "settings.json").read_text())["settings"]["epochs"]
               for run in runs if run.name in searches)


def _records(out: Path) -> dict[str, list[dict]]:
    return _searches(sorted((out / "random-ws").glob("seed-*")))


@pytest.fixture(scope="module")
def searched(cifar_folder, tmp_path_factory) -> Path:
    """Four uninterrupted one-epoch searches, their supernets kept (scored by ``oneshot correlate``)."""
    out = tmp_path_factory.mktemp("oneshot-uninterrupted") / "out"
    _in_process(*_run_arguments(cifar_folder, out, 1))
    return out


def test_oneshot_run(cifar_folder, searched, tmp_path):
    out = tmp_path / "out"
    reference = _records(searched)

    def kept_intact() -> None:
        kept = _records(out)  # the finished searches whole, and what the others recorded so far
        assert kept and all(kept[run] == reference[run][: len(kept[run])] for run in kept)

    _interrupt_twice(_run_arguments(cifar_folder, out, 2), lambda: _finished(sorted((out / "random-ws").glob("seed-*"))),
                     kept_intact, tmp_path)
    _in_process(*_run_arguments(cifar_folder, out, 1))
    assert _records(out) == reference and len(reference) == 4


# --- nasarena oneshot correlate --------------------------------------------------------------

def _correlate_arguments(results: Path, jobs: int) -> list:
    return ["oneshot", "correlate", results, "--architectures", "100", "--jobs", jobs]


def _scores(results: Path) -> dict[str, pd.DataFrame]:
    return {f"{file.parent.parent.name}/{file.name}": pd.read_csv(file)
            for file in sorted(results.glob("random-ws/seed-*/scores/epoch-*.csv"))}


@pytest.fixture(scope="module")
def scored(searched, tmp_path_factory) -> dict[str, pd.DataFrame]:
    results = tmp_path_factory.mktemp("correlate-uninterrupted") / "out"
    shutil.copytree(searched, results)
    _in_process(*_correlate_arguments(results, 1))
    return _scores(results)


def test_oneshot_correlate(searched, scored, tmp_path):
    results = tmp_path / "out"
    shutil.copytree(searched, results)

    def kept_intact() -> None:
        kept = _scores(results)
        assert 0 < len(kept) <= len(scored) == 4
        for name, frame in kept.items():
            pd.testing.assert_frame_equal(frame, scored[name])

    _interrupt_twice(_correlate_arguments(results, 2), lambda: len(_scores(results)), kept_intact, tmp_path)
    _in_process(*_correlate_arguments(results, 1))
    again = _scores(results)
    assert again.keys() == scored.keys()
    for name, frame in again.items():
        pd.testing.assert_frame_equal(frame, scored[name])
    assert all((run / "correlation.csv").exists() for run in results.glob("random-ws/seed-*"))


# --- nasarena oneshot tune -------------------------------------------------------------------

def _tune_arguments(cifar: Path, out: Path) -> list:
    """BOHB's first two groups of two one-epoch DARTS trials on two processes, then the default settings."""
    return ["oneshot", "tune", *ONESHOT, "--set", "benchmark=nb101-lite", "--optimizers", "darts", "--budget", "4",
            "--min-epochs", "1", "--max-epochs", "2", "--workers", "2", "--data", cifar, "--out", out]


def _trials(out: Path) -> list[Path]:
    return sorted((out / "darts" / "trials").glob("trial-*"))


@pytest.fixture(scope="module")
def tuned(cifar_folder, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tune-uninterrupted") / "out"
    _in_process(*_tune_arguments(cifar_folder, out))
    return out


def test_oneshot_tune(cifar_folder, tuned, tmp_path):
    from nasarena.studies.oneshot_tuning import read_trials

    out = tmp_path / "out"
    reference = _searches(_trials(tuned))

    def kept_intact() -> None:
        kept = _searches(_trials(out))  # the finished trials whole, and what the others recorded so far
        assert kept and all(kept[trial] == reference[trial][: len(kept[trial])] for trial in kept)

    _interrupt_twice(_tune_arguments(cifar_folder, out), lambda: _finished(_trials(out)), kept_intact, tmp_path)
    _in_process(*_tune_arguments(cifar_folder, out))
    assert _searches(_trials(out)) == reference and len(reference) == len(read_trials(tuned / "darts")) >= 2
    assert [_unmeasured(t) for t in read_trials(out / "darts")] == [_unmeasured(t) for t in read_trials(tuned / "darts")]
