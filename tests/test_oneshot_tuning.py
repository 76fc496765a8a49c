"""BOHB tuning of one-shot hyperparameters (NAS-Bench-1Shot1 Sec. 5.4): the objective is the NB101
validation accuracy only, the loop resumes from its log, the report is written.

Tiny scale (4 channels, one cell per stack, 16 x 16 images, 20 images per class, budgets of 1
and 2 search epochs) on real CIFAR-10 and nb101-noisy.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from typer.testing import CliRunner

from nasarena.cli.main import app
from nasarena.errors import DataFileError, InvalidSettingError
from nasarena.oneshot import quick_settings
from nasarena.oneshot.records import SearchEpochRecord
from nasarena.plots.oneshot_tuning import incumbent_trace, write_tune_report
from nasarena.spaces.oneshot import OneShotArch
from nasarena.studies.oneshot_tuning import (
    TRIALS_FILE,
    HyperparameterSpace,
    TrialResult,
    TuneSetup,
    fidelities,
    hyperparameters,
    observation,
    read_trials,
    tune,
)

SPACE = "nb1shot1-1"
TINY = {"cells_per_stack": 1, "subset": 20}


def _record(valid: float, test: float) -> SearchEpochRecord:
    return SearchEpochRecord(epoch=1, optimizer="darts", space=SPACE, seed=0, train_error=0.5, train_loss=1.0,
                       valid_error=0.5, architecture="a", nb101_hash="h", nb101_valid_accuracy=valid,
                       nb101_test_accuracy=test, test_regret=0.95 - test, learning_rate=0.025, search_seconds=1.0,
                       seconds=2.0)


def test_objective_is_the_validation_accuracy_never_the_test_accuracy():
    told = [observation(TrialResult.of(0, 0, {}, 1, [_record(0.91, test)])) for test in (0.5, 0.93, 0.99)]
    assert [o.valid_accuracy for o in told] == [0.91, 0.91, 0.91]
    assert observation(TrialResult.of(0, 0, {}, 1, [_record(0.80, 0.93)])).valid_accuracy == 0.80


def test_configuration_spaces_and_budgets():
    assert fidelities(25, 100, 2) == [25, 50, 100]  # the paper's budgets
    with pytest.raises(InvalidSettingError, match="single budget"):
        fidelities(1, 2, 3)
    darts = quick_settings("darts", SPACE)
    names = [p.name for p in hyperparameters(darts)]
    assert names == ["learning_rate", "momentum", "weight_decay", "cutout", "batch_size", "arch_learning_rate"]
    assert [p.name for p in hyperparameters(quick_settings("gdas", SPACE))][-2:] == ["tau_max", "tau_min"]
    partial = hyperparameters(quick_settings("pc-darts", SPACE))[-1]
    assert partial.name == "partial_channels" and partial.values == (2, 4)  # divisors of the 4 quick channels
    defaults = dataclasses.asdict(quick_settings("darts", SPACE, cutout=0))
    for p in hyperparameters(darts):
        if p.name not in ("cutout", "batch_size"):  # the paper's defaults are levels of the grid
            assert defaults[p.name] in p.values
    space = HyperparameterSpace(hyperparameters(darts))
    config = space.sample(np.random.default_rng(0))
    darts.replace(**config)  # every sampled configuration is a valid setting
    with pytest.raises(InvalidSettingError, match="tunes darts"):
        hyperparameters(quick_settings("enas", SPACE))


def test_tuning_runs_resumes_from_its_log_and_reports(tmp_path):
    from nasarena.oneshot.lookup import Nb101Lookup

    torch.set_num_threads(1)
    setup = TuneSetup(quick_settings("darts", SPACE, **TINY), 1, 2, 2, 0, 1)
    out = tmp_path / "darts"
    first = tune(setup, out, budget=2)
    assert [(r.number, r.epochs) for r in first] == [(0, 1), (1, 1)]
    lookup = Nb101Lookup(SPACE)
    for result in first:  # BOHB was told the benchmark's validation accuracy of the returned architecture
        assert result.valid_accuracy == lookup.look_up(OneShotArch.from_string(result.architecture)).valid_accuracy
    told = json.loads((out / TRIALS_FILE).read_text().splitlines()[0])
    assert told["valid_accuracy"] == first[0].valid_accuracy
    more = tune(setup, out, budget=4)  # continues: the log is replayed, the best 1-epoch trial is promoted
    assert more[:2] == first and len(more) == 3 and more[2].epochs == 2
    best = max(first, key=lambda r: r.valid_accuracy)
    assert more[2].config == best.config
    assert read_trials(out) == more
    report = write_tune_report(tmp_path)
    assert report.exists() and (report.parent / "figures" / "incumbent.png").exists()
    assert "default" in report.read_text() and (out / "default" / "records.jsonl").exists()
    trace = incumbent_trace(pd.DataFrame([r.__dict__ for r in more]))
    assert trace["valid_accuracy"].is_monotonic_increasing and trace["valid_accuracy"].iloc[-1] == max(
        r.valid_accuracy for r in more)
    with pytest.raises(InvalidSettingError, match="another setup"):
        tune(dataclasses.replace(setup, seed=1), out, budget=4)
    (out / TRIALS_FILE).write_text((out / TRIALS_FILE).read_text().replace('"epochs": 2', '"epochs": 1'))
    with pytest.raises(DataFileError, match="does not replay"):
        tune(setup, out, budget=4)


def test_tune_cli_refuses_bad_input(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["oneshot", "tune", "--optimizer", "enas", "--budget", "2", "--quick",
                                 "--out", str(tmp_path / "t")])
    assert result.exit_code == 2 and "tunes darts" in result.output
    result = runner.invoke(app, ["oneshot", "tune", "--budget", "0", "--out", str(tmp_path / "t")])
    assert result.exit_code == 2 and "--budget" in result.output
    result = runner.invoke(app, ["oneshot", "tune", "--budget", "4", "--quick", "--min-epochs", "3",
                                 "--max-epochs", "2", "--out", str(tmp_path / "t")])
    assert result.exit_code == 2 and "min epochs < max epochs" in result.output
    assert not (tmp_path / "t").exists()  # refused before anything was written
