"""Regression tests of issue 28 ("tried as a careless user would"), the one-shot commands.

Each runs the real command in a subprocess, as a user does (tiny runs: one epoch of Random-WS on
20 images per class); a refusal is exit status 2 and one ``error:`` line naming what is wrong,
never a traceback, and nothing the user had is changed or lost."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("torch")

from nasarena.errors import DataFileError, InvalidSettingError
from nasarena.oneshot import quick_settings, read_records
from nasarena.studies.oneshot_correlation import BATCH_ORDER, Task, score_task, spearman_table

TINY = ["--space", "nb1shot1-1", "--optimizers", "random-ws", "--quick", "--seeds", "0", "--set", "epochs=1",
        "--set", "cells_per_stack=1", "--set", "subset=20"]
ENVIRONMENT = {**os.environ, "OMP_NUM_THREADS": "1"}


def command(*arguments) -> list[str]:
    return [sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)]


def nasarena(*arguments, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run(command(*arguments), capture_output=True, text=True, timeout=timeout, env=ENVIRONMENT)


def finished(result: subprocess.CompletedProcess) -> None:
    """Assert the command succeeded; skip where the shared CIFAR-10 is not on this machine."""
    if result.returncode == 2 and "no CIFAR-10 data found" in result.stderr:
        pytest.skip("CIFAR-10 not available")
    assert result.returncode == 0, result.stdout + result.stderr


def refused(result: subprocess.CompletedProcess, *phrases: str) -> str:
    """Assert the command was refused as every command refuses; returns its one line."""
    output = result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, output
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    assert "Traceback" not in output and "Error:" not in output, output
    for phrase in phrases:
        assert phrase in lines[0], output
    return lines[0]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A finished one-epoch ``oneshot run`` (copy it before changing it)."""
    out = tmp_path_factory.mktemp("tiny") / "out"
    finished(nasarena("oneshot", "run", *TINY, "--out", out))
    return out


def test_point01_two_runs_with_other_settings_into_one_out_at_once(tmp_path):
    out = tmp_path / "out"
    rates = ("0.05", "0.2")
    started = [subprocess.Popen(command("oneshot", "run", *TINY, "--set", f"learning_rate={rate}", "--out", out),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENVIRONMENT)
               for rate in rates]
    results = [subprocess.CompletedProcess(p.args, p.wait(timeout=300), *p.communicate()) for p in started]
    codes = sorted(r.returncode for r in results)
    if codes == [2, 2]:
        finished(results[0])  # skips where CIFAR-10 is missing
    assert codes == [0, 2], [r.stderr for r in results]
    winner = rates[[r.returncode for r in results].index(0)]
    refused(next(r for r in results if r.returncode == 2), "other settings", "learning_rate")
    run_dir = out / "random-ws" / "seed-0"
    assert json.loads((run_dir / "settings.json").read_text())["settings"]["learning_rate"] == float(winner)
    records = read_records(run_dir)
    assert len(records) == 1 and records[0].learning_rate == pytest.approx(float(winner))


def test_point12_run_refuses_a_file_as_out_before_any_work(tmp_path):
    file = tmp_path / "results.txt"
    file.write_text("keep me")
    refused(nasarena("oneshot", "run", *TINY, "--out", file), str(file), "is a file")
    refused(nasarena("oneshot", "run", *TINY, "--out", file / "sub"), str(file / "sub"), "cannot create")
    assert file.read_text() == "keep me"


def test_point13a_float_settings_must_be_finite_and_in_range(tmp_path):
    for setting, shown in (("learning_rate=nan", "'nan'"), ("weight_decay=NaN", "nan")):
        name = setting.split("=")[0]
        refused(nasarena("oneshot", "run", *TINY, "--set", setting, "--out", tmp_path / "out"),
                f"setting {name} must be a finite number", shown)
    assert not (tmp_path / "out").exists()
    for name, bad in (("momentum", 1.0), ("arch_beta2", -0.1), ("grad_clip", 0), ("controller_baseline_decay", 2.0),
                      ("learning_rate", float("inf")), ("weight_decay", float("-inf")), ("tau_min", float("nan")),
                      ("learning_rate", True),
                      ("cutout", "x")):
        with pytest.raises(InvalidSettingError, match=f"setting {name} must be"):
            quick_settings(**{name: bad})


def test_point13b_a_truncated_checkpoint_is_named_and_kept(tmp_path, tiny_run):
    out = shutil.copytree(tiny_run, tmp_path / "out")
    run_dir = out / "random-ws" / "seed-0"
    checkpoint = run_dir / "checkpoint.pt"
    cut = checkpoint.read_bytes()[: checkpoint.stat().st_size // 2]
    checkpoint.write_bytes(cut)
    refused(nasarena("oneshot", "run", *TINY, "--out", out), str(checkpoint), "not a readable one-shot checkpoint")
    assert checkpoint.read_bytes() == cut
    snapshot = run_dir / "supernets" / "epoch-001.pt"  # correlate's supernets are read the same way
    snapshot.parent.mkdir()
    snapshot.write_bytes(cut)
    with pytest.raises(DataFileError, match=f"{snapshot}: not a readable supernet snapshot"):
        score_task(Task(run_dir, 1, ("x",), 1, None))
    assert snapshot.read_bytes() == cut


def test_point13c_report_names_a_corrupt_correlation_table(tmp_path, tiny_run):
    out = shutil.copytree(tiny_run, tmp_path / "out")
    run_dir = out / "random-ws" / "seed-0"
    table = run_dir / "correlation.csv"
    table.write_text("checkpoint,metric,value\n1,spearman,0.5\n")
    refused(nasarena("oneshot", "report", out), str(table), "no column parameter, optimizer, seed")
    assert table.read_text() == "checkpoint,metric,value\n1,spearman,0.5\n"
    assert not (out / "report.html").exists()
    table.write_text("checkpoint,metric,parameter,value,optimizer,seed\n1,spearman,all,0.5,random-ws,0\n")
    with pytest.raises(DataFileError, match="no kendall, scored, seconds_per_architecture over all architectures"):
        spearman_table([run_dir])
    table.write_bytes(b"")
    with pytest.raises(DataFileError, match="not a readable correlation table"):
        spearman_table([run_dir])


def test_point15_correlate_reports_errors_as_every_command_does(tmp_path, tiny_run):
    refused(nasarena("oneshot", "correlate", tmp_path / "none", "--jobs", "1"), "no one-shot runs")
    out = shutil.copytree(tiny_run, tmp_path / "out")
    run_dir = out / "random-ws" / "seed-0"
    (run_dir / "supernets").mkdir()
    (run_dir / "supernets" / "epoch-001.pt").write_bytes(b"")  # scored already: only its name is read
    scores = run_dir / "scores"
    scores.mkdir()
    (scores / "scoring.json").write_text(json.dumps({"batches": 1, "architectures": None, "seed": 0,
                                                    "order": BATCH_ORDER}))
    (scores / "epoch-001.csv").write_text("damaged\n1\n")
    refused(nasarena("oneshot", "correlate", out, "--jobs", "1"), str(scores / "epoch-001.csv"),
            "no column arch_id, score")
    assert (scores / "epoch-001.csv").read_text() == "damaged\n1\n"


def test_point01_a_refused_run_leaves_the_folders_it_marked_free_for_other_settings(tmp_path):
    from nasarena.errors import OutputError
    from nasarena.io.outputs import MARK_FILE
    from nasarena.studies.oneshot_experiment import claim, plan

    first = quick_settings(optimizer="darts", learning_rate=0.05)
    claim(plan([first], [0], tmp_path))
    other = [quick_settings(optimizer="random-ws", learning_rate=0.2), quick_settings(optimizer="darts",
                                                                                        learning_rate=0.2)]
    with pytest.raises(OutputError, match="other settings"):
        claim(plan(other, [0], tmp_path))  # random-ws/seed-0 is marked first, then darts/seed-0 refuses
    assert not (tmp_path / "random-ws" / "seed-0" / MARK_FILE).exists()
    assert (tmp_path / "darts" / "seed-0" / MARK_FILE).exists()
    claim(plan([quick_settings(optimizer="random-ws", learning_rate=0.05)], [0], tmp_path))
