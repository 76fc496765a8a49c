"""Issue 42 ("Tried as a careless user would, round three"): the estimator points 6, 9, 10, 12, 13,
16 and 17. Command-line cases run ``nasarena estimators evaluate`` in a subprocess, on the
embedded table or on a tiny computed table of cheap proxies (params, synflow) of 20 NB201 cells."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")

from nasarena.errors import DataFileError, InvalidSettingError  # noqa: E402
from nasarena.estimators import compute_proxies  # noqa: E402
from nasarena.io.settings_parquet import write_with_settings  # noqa: E402
from nasarena.studies.estimator_table import METADATA_KEY, compute_table, read_settings, read_table  # noqa: E402

TINY_NB201 = {"channels": 4, "cells_per_stage": 1}
CELL = "|nor_conv_3x3~0|+|nor_conv_3x3~0|nor_conv_3x3~1|+|skip_connect~0|nor_conv_3x3~1|nor_conv_3x3~2|"
ARCHITECTURES = 20


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A computed table: params and synflow of 20 NB201 cells on tiny networks (seconds)."""
    out = tmp_path_factory.mktemp("issue42") / "table.parquet"
    compute_table("nb201", ["params", "synflow"], out, sample=ARCHITECTURES, seed=0, device="cpu", image_size=8,
                  scale=TINY_NB201)
    return out


def rewritten(table, frame: pd.DataFrame, path):
    """``frame`` written to ``path`` with ``table``'s settings kept (a table edited in place)."""
    write_with_settings(path, frame.reset_index(drop=True), read_settings(table), METADATA_KEY)
    return path


def evaluate(*arguments: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "nasarena.cli.main", "estimators", "evaluate", *arguments]
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "NASARENA_PROGRESS": "0"}
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=600)


def refused(result: subprocess.CompletedProcess, *phrases: str) -> str:
    """The one-line error of a refused command, checked to hold every phrase."""
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and result.stderr.startswith("error: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr
    return result.stderr


def test_point6_a_table_with_an_architecture_twice_is_refused_naming_it_and_its_rows(table, tmp_path):
    from nasarena.studies.estimator_evaluation import benchmark_truth, compare_with_training, evaluate_proxies

    frame = pd.read_parquet(table)
    doubled = pd.concat([frame, frame.iloc[[3]]])
    path = rewritten(table, doubled, tmp_path / "doubled.parquet")
    arch = frame["arch"].iloc[3]
    refused(evaluate("--table", str(path), "--ks", "5", "--no-surrogate"),
            f"architectures in more than one row, each copy counting in every correlation (a computed table holds "
            f"each architecture once): {arch} in rows 3, {ARCHITECTURES} (from 0)")
    # the library refuses it too, rather than counting the copy twice in every correlation
    with pytest.raises(InvalidSettingError, match="more than one row.* in rows 3, 20"):
        compare_with_training(doubled, "nb201-cifar10", [5], "nb201")
    truth = benchmark_truth("nb201-cifar10", frame, "nb201")
    with pytest.raises(InvalidSettingError, match="more than one row.* in rows 3, 20"):
        evaluate_proxies(doubled, np.append(truth, truth[3]), [5])


def test_point9_a_k_larger_than_the_table_is_refused_naming_the_number_of_architectures():
    from nasarena.estimators import embedded_table
    from nasarena.studies.estimator_evaluation import compare_estimators

    refused(evaluate("--ks", "5,100000", "--no-surrogate"), "--ks 100000", "must be in 1..6,466")
    with pytest.raises(InvalidSettingError, match="--ks 0: every k of a1\\(k\\) must be in 1..6,466"):
        compare_estimators(embedded_table("nb201"), "nb201-cifar10", [0, 10], surrogate=False)


def test_point10_a_negative_or_fractional_seed_is_refused_naming_the_setting():
    for seed in (-1, 1.5, True):
        with pytest.raises(InvalidSettingError, match=f"seed={seed!r} must be a whole number >= 0"):
            compute_proxies("nb201", CELL, ["params"], seed=seed)
    assert compute_proxies("nb201", CELL, ["params"], seed=np.int64(3)).values["params"] == 1_288_506


def test_point12_each_unreadable_table_says_what_is_wrong_with_it(table, tmp_path):
    frame = pd.read_parquet(table)
    missing = tmp_path / "missing.parquet"
    refused(evaluate("--table", str(missing)), f"--table {missing} does not exist")
    with_nan_rows = rewritten(table, frame.reindex(range(ARCHITECTURES + 2)), tmp_path / "nan-rows.parquet")
    refused(evaluate("--table", str(with_nan_rows)), "no architecture (arch is empty) in rows 20, 21 (from 0)",
            "no measured seconds (params_seconds, synflow_seconds empty) in rows 20, 21")
    resaved = tmp_path / "resaved.parquet"
    frame.to_parquet(resaved)
    refused(evaluate("--table", str(resaved)), "its Parquet metadata has no nasarena-estimators entry",
            "re-saved by pandas")
    # every problem of a file is named at once, and the other cases read back alike
    pd.concat([frame, frame.iloc[[0]]], ignore_index=True).reindex(range(ARCHITECTURES + 3)).to_parquet(resaved)
    with pytest.raises(DataFileError) as error:
        read_table(resaved)
    assert "no nasarena-estimators entry" in str(error.value) and "arch is empty) in rows 21, 22" in str(error.value)
    assert "in rows 0, 20" in str(error.value)
    frame.drop(columns="synflow_seconds").to_parquet(resaved)
    with pytest.raises(DataFileError, match="column synflow_seconds missing"):
        read_table(resaved)
    write_with_settings(resaved, frame, {"proxies": ["params", "synflow"]}, METADATA_KEY)
    with pytest.raises(DataFileError, match="nasarena-estimators settings lack space, seed"):
        read_table(resaved)
    resaved.write_text("not parquet")
    with pytest.raises(DataFileError, match="is not a Parquet file"):
        read_table(resaved)
    loaded, settings = read_table(table)
    assert len(loaded) == ARCHITECTURES and settings["proxies"] == ["params", "synflow"]


def test_point13_benchmarks_of_two_spaces_are_refused_naming_the_tables_space(table):
    from nasarena.studies.estimator_evaluation import compare_estimators

    refused(evaluate("--benchmarks", "nb201-cifar10,nb101-slice", "--no-surrogate"),
            "one table is judged against benchmarks of its own space", "the embedded table is a table of the nb201 "
            "space", "nb101-slice is over the nb101 space", "separate call (--benchmarks nb101-slice)")
    refused(evaluate("--table", str(table), "--benchmarks", "nb101-slice"),
            f"{table} is a table of the nb201 space", "and a --table of that space")
    with pytest.raises(InvalidSettingError, match="over the nb101 space, the table over nb201: a table is judged only "
                                                  "against benchmarks of its own space"):
        compare_estimators(pd.read_parquet(table), "nb101-slice", [5], surrogate=False)


def test_point16_one_proxy_name_as_a_string_is_that_one_proxy(table, tmp_path):
    result = compute_proxies("nb201", CELL, "params")
    assert list(result.values) == ["params"] and result.values["params"] == 1_288_506
    frame = compute_table("nb201", "params", tmp_path / "one.parquet", sample=2, seed=0, device="cpu",
                          image_size=8, scale=TINY_NB201)
    assert list(frame.columns) == ["arch", "row", "params", "params_seconds", "device"]


def test_point17_undefined_values_are_counted_per_estimator_in_the_output_and_the_report(table, tmp_path):
    frame = pd.read_parquet(table)
    frame.loc[[1, 4, 7], "synflow"] = np.nan
    frame.loc[9, "synflow"] = -np.inf
    path = rewritten(table, frame, tmp_path / "undefined.parquet")
    out = tmp_path / "report"
    result = evaluate("--table", str(path), "--ks", "5", "--no-surrogate", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    sentence = ("undefined: synflow has no value for 4 of 20 architectures (NaN or -inf); they rank last, tied")
    assert sentence in result.stdout and "undefined: params" not in result.stdout
    metrics = pd.read_csv(out / "metrics.csv").set_index("estimator")
    assert metrics.loc["synflow", "undefined"] == 4 and metrics.loc["params", "undefined"] == 0
    page = (out / "report.html").read_text()
    assert "undefined (ranked last)" in page and sentence in page
