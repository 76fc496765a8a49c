"""Saved final rows of expensive runs (issue 38: Table I's runs outlive their results folder)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from nasarena.analysis.setups import PAPER_TABLE_I
from nasarena.analysis.trajectories import final_results
from nasarena.errors import DataFileError
from nasarena.runner.experiment import execute, load_results, run_experiment
from nasarena.runner.protocol import Budget
from nasarena.studies.anytime_presets import preset
from nasarena.studies.reproduce import anytime_table, markers, recorded
from nasarena.studies.reproduce.provenance import commit, machine
from nasarena.studies.reproduce.regenerate import reproduce
from nasarena.studies.reproduce.saved_runs import (
    COLUMNS,
    UNRECORDED,
    final_rows,
    machines,
    read_saved,
    save_finished,
    saved_path,
    unsaved,
)
from nasarena.version import __version__

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _specs(seeds):
    return [dataclasses.replace(spec, budget=Budget(seconds=2e4))
            for spec in preset("anytime-O").specs(["nb101-lite"], seeds=seeds, optimizers=["re"])]


def _made(results):
    return sorted(path.name for path in (results / "runs").glob("*.parquet")) if (results / "runs").is_dir() else []


def test_runs_are_saved_as_they_finish_and_never_made_twice(tmp_path):
    path = saved_path("demo", tmp_path / "data")
    first = final_rows(_specs([0, 1]), tmp_path / "a", 1, path)
    expected = final_results(load_results(tmp_path / "a"))
    assert len(first) == 2 and _made(tmp_path / "a") == sorted(first["run"])
    for column in COLUMNS:  # the saved rows are the runs' last rows, floats bit for bit
        assert first[column].tolist() == expected[column].tolist(), column
    assert set(first["commit"]) == {commit()} and set(first["version"]) == {__version__}
    assert set(first["machine"]) == {machine()}

    again = final_rows(_specs([0, 1]), tmp_path / "b", 1, path)  # a fresh results folder: nothing is made
    assert _made(tmp_path / "b") == []
    pd.testing.assert_frame_equal(again, first)

    more = final_rows(_specs([0, 1, 2]), tmp_path / "c", 1, path)  # only the run without a saved row
    assert _made(tmp_path / "c") == [_specs([2])[0].file_name]
    assert len(more) == 3 and len(read_saved(path)) == 3


def test_runs_finished_in_the_results_folder_are_saved_without_running_them_again(tmp_path):
    specs = _specs([0, 1])
    run_experiment(specs[:1], tmp_path / "runs", jobs=1)
    path = saved_path("demo", tmp_path)
    assert save_finished(specs, tmp_path / "runs", path) == 1  # the unfinished seed is left alone
    assert save_finished(specs, tmp_path / "runs", path) == 0
    assert read_saved(path)["run"].tolist() == [specs[0].file_name]


def test_a_damaged_saved_file_is_named(tmp_path):
    path = saved_path("demo", tmp_path)
    path.write_text("run,seed\nx,1\n")
    with pytest.raises(DataFileError, match="demo-runs.csv.*lacks the columns benchmark"):
        read_saved(path)
    final_rows(_specs([0]), tmp_path / "runs", 1, saved := saved_path("ok", tmp_path))
    text = saved.read_text().splitlines()
    saved.write_text("\n".join([*text, text[1]]) + "\n")
    with pytest.raises(DataFileError, match="saves run .*seed000000.parquet twice"):
        read_saved(saved)
    good = saved.read_text().splitlines()[:2]
    saved.write_text("\n".join(good) + "\n" + good[1][:60])  # a copy cut off in its last line
    with pytest.raises(DataFileError, match=r"ok-runs.csv: line 3 \(run nb101-lite__re__\w+__seed\d+\.parquet\) "
                                            r"lacks values of .*incumbent_test_regret.*restore the file from git"):
        read_saved(saved)


def test_the_full_table_reads_the_saved_rows_and_says_where_they_are(tmp_path, monkeypatch):
    specs = [dataclasses.replace(spec, budget=Budget(seconds=2e4)) for name in ("anytime-O", "anytime-C")
             for spec in preset(name).specs(["nb101-lite"], seeds=[0, 1], optimizers=["re", "irace"])]
    monkeypatch.setattr(anytime_table, "specs", lambda scale: specs)
    monkeypatch.setattr(anytime_table, "SAVED", saved_path("table", tmp_path))
    generated = anytime_table.generate("full", tmp_path / "runs", 1)
    assert "The 8 runs' final rows are saved in `docs/reproduce/data/table-runs.csv`" in generated.markdown
    assert f"on {machine()} (8 runs);" in generated.markdown
    assert generated.values["O/RE/runs"] == 2 and generated.values["C/irace/runs"] == 2
    again = anytime_table.generate("full", tmp_path / "elsewhere", 1)
    assert again.values == generated.values and _made(tmp_path / "elsewhere") == []


def test_table_i_saves_only_runs_of_the_current_presets_and_they_are_made_again():
    """The repository's saved Table I rows: every one a run the full scale asks for (a change of the
    presets' settings orphans rows, and is noticed here), and two of the quickest made again on
    today's code give the saved final rows (a change of the optimizers that moves them is noticed)."""
    saved = read_saved(anytime_table.SAVED).set_index("run")
    full = {spec.file_name: spec for spec in anytime_table.specs("full")}
    assert len(full) == 240
    assert set(saved.index) <= set(full)
    for name, row in saved.iterrows():
        assert (row["setup"], row["seed"]) == (full[name].setup, full[name].seed)
    quick = [spec for spec in full.values() if spec.seed == 0 and (spec.optimizer, spec.setup) in
             (("re", "VS"), ("irace", "O"))]
    assert len(quick) == 2
    for spec in quick:
        last = execute(spec).iloc[-1]
        row = saved.loc[spec.file_name]
        assert last["evaluation"] == row["evaluation"]
        for column in ("sim_time", "incumbent_test_regret", "incumbent_valid_accuracy"):
            assert last[column] == pytest.approx(row[column], rel=1e-9), (spec.file_name, column)


def test_machines_are_counted_most_runs_first():
    rows = pd.DataFrame({"machine": [UNRECORDED, "AMD EPYC 7B13, 2 cores", UNRECORDED, "Intel Xeon, 2 cores"]})
    assert machines(rows) == "not recorded (2 runs); AMD EPYC 7B13, 2 cores (1 run); Intel Xeon, 2 cores (1 run)"


def test_the_published_table_i_is_what_the_saved_runs_give_today(tmp_path):
    """All 240 runs are saved, so the full Table I regenerates from the repository in seconds: the
    page's table and the values the report quotes are what today's analysis makes of the saved rows
    (a change of the ECDF areas, the Friedman test or the post-hoc groups that moves a published
    number fails here until the page is regenerated)."""
    missing = [spec.file_name for spec in unsaved(anytime_table.specs("full"), anytime_table.SAVED)]
    assert not missing, f"Table I lacks saved runs (regenerating would make them): {missing[:3]}"
    (outcome,) = reproduce("anytime", recorded.FULL, results=tmp_path, docs=DOCS, check=True, blocks=["table-i"])
    assert not outcome.moved, "\n".join(map(str, outcome.moved))
    assert not list(tmp_path.rglob("*.parquet"))  # read from the saved rows, nothing run
    values = recorded.values("anytime", "table-i")
    page = (DOCS / "reproduce/anytime.md").read_text()
    text = markers.block_text(page, "table-i")
    assert anytime_table.table(values) in text and "The 240 runs' final rows are saved" in text
    assert all(values[f"{setup}/{algorithm}/runs"] == 20 for setup, algorithm in PAPER_TABLE_I)  # the 12 cells
    assert anytime_table.differences(values) in markers.block_text(page, "differences")
