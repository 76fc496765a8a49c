"""Regression tests of issue 11 through the command line (a subprocess each, as a user runs it):
the library half's defects must surface as ``error: ...`` and exit status 2, nothing lost."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from nasarena.io.nb101_records import EvaluationData, ModelMetrics, NB101Record, serialize_record
from nasarena.io.tfrecord import write_records
from nasarena.spaces.nb101 import unique_cells


def nasarena(*arguments, timeout=300):
    return subprocess.run([sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "OMP_NUM_THREADS": "1"})


@pytest.fixture()
def official(tmp_path):
    table = unique_cells()
    evaluations = (EvaluationData(0, 0, 0.1, 0.1, 0.1), EvaluationData(54, 5.0, 0.5, 0.5, 0.5),
                   EvaluationData(108, 10.0, 0.9, 0.9, 0.9))
    cell = table.cell(3)
    path = tmp_path / "data" / "nasbench_only108.tfrecord"
    path.parent.mkdir()
    write_records(path, [serialize_record(NB101Record(table.hashes[3], 108, cell.matrix, cell.ops,
                                                      ModelMetrics(evaluations, 1000, 1.0)))] * 3)
    return path


def test_point01_cli_import_refuses_a_foreign_folder_and_its_source_folder(tmp_path, official):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    result = nasarena("nb101", "import", official, "--out", mine)
    assert result.returncode == 2 and "error:" in result.stderr + result.stdout and "not an NB101 store" in (
        result.stderr + result.stdout)
    assert (mine / "notes.txt").read_text() == "keep me"
    result = nasarena("nb101", "import", official, "--out", official.parent)
    assert result.returncode == 2 and "holds the source" in result.stderr + result.stdout
    assert official.exists()


def test_point05_cli_import_refuses_an_empty_file(tmp_path):
    (tmp_path / "empty.tfrecord").write_bytes(b"")
    result = nasarena("nb101", "import", tmp_path / "empty.tfrecord", "--out", tmp_path / "store")
    assert result.returncode == 2 and "no records" in result.stderr + result.stdout
    assert not (tmp_path / "store").exists()


def test_point11_cli_resume_recomputes_a_corrupt_run_file_and_report_names_a_foreign_one(tmp_path):
    out = tmp_path / "results"
    arguments = ("run", "--optimizers", "rs", "--seeds", "0-1", "--max-evaluations", "30", "--jobs", "1", "--out", out)
    assert nasarena(*arguments).returncode == 0
    runs = sorted((out / "runs").glob("*.parquet"))
    runs[0].write_bytes(runs[0].read_bytes()[:50])
    result = nasarena(*arguments)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "1 to run" in result.stdout and pd.read_parquet(runs[0]).evaluation.max() == 29
    pd.DataFrame({"x": [1]}).to_parquet(runs[1])
    result = nasarena("report", out, "--out", tmp_path / "report")
    assert result.returncode == 2 and runs[1].name in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_point05_cli_import_warns_about_an_incomplete_file(tmp_path, official):
    result = nasarena("nb101", "import", official, "--out", tmp_path / "store")
    assert result.returncode == 0 and "warning: incomplete file: 423,623 of 423,624 cells are absent" in result.stderr
