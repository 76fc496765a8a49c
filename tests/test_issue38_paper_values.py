"""Issue 38, point 2: paper values only beside the runs they describe.

The report of the main job (a plain grid of rs, re, ls and reinforce on nb101-noisy) set the
anytime paper's Table I (SMAC 23, irace 28, RE 31) beside runs that are none of its setups, with
no note, and NAS-Bench-1Shot1's comparison appeared beside any run on its spaces. Now a paper's
values and notes appear only where the runs are its protocol (benchmark, optimizers, settings and
budget as `nasarena run --preset anytime-...` or the documented NAS-Bench-1Shot1 command make
them; fewer seeds are the protocol, said in a note); elsewhere one line says why they are not
shown, and a multi-objective report shows none."""

from __future__ import annotations

import re
from html import escape

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from typer.testing import CliRunner  # noqa: E402

from nasarena.cli.main import app  # noqa: E402
from nasarena.plots.report import write_report  # noqa: E402
from nasarena.studies.anytime_presets import PRESETS  # noqa: E402
from nasarena.studies.paper_notes import (  # noqa: E402
    NB1SHOT1,
    TABLE_I,
    compare_with_papers,
    nb1shot1_discrete_note,
    table_i_note,
)

#: The paper's Table I values, as its column prints them.
PAPER_VALUES = ("SMAC (23)", "irace (28)", "RE (31)", "SMAC (34)", "RE (55)")
TABLE_I_COLUMN = f"<th>{escape(TABLE_I)}</th>"


def run(out, *arguments: str) -> None:
    ran = CliRunner().invoke(app, ["run", *arguments, "--jobs", "1", "--out", str(out)],
                             env={"NASARENA_PROGRESS": "0"})
    assert ran.exit_code == 0, ran.output


def report(results, tmp_path_factory) -> str:
    return write_report(results, tmp_path_factory.mktemp("report")).read_text()


@pytest.fixture(scope="module")
def plain_grid(tmp_path_factory):
    """The main job in small: a plain grid on nb101-noisy, not one of the anytime presets."""
    out = tmp_path_factory.mktemp("grid")
    run(out, "--benchmarks", "nb101-noisy", "--optimizers", "rs,re", "--seeds", "0-1", "--budget", "1e5")
    return report(out, tmp_path_factory)


@pytest.fixture(scope="module")
def presets(tmp_path_factory):
    """RE as the presets anytime-O and anytime-C run it (nb101-noisy, 1e7 s), one seed each."""
    out = tmp_path_factory.mktemp("presets")
    for name in ("anytime-O", "anytime-C"):
        run(out, "--preset", name, "--optimizers", "re", "--seeds", "0")
    return report(out, tmp_path_factory)


def test_a_plain_grid_on_nb101_noisy_shows_no_table_i_value_and_says_why(plain_grid):
    assert "final quality (Table I) grouped by setup" in plain_grid  # our Table I stays
    assert TABLE_I_COLUMN not in plain_grid
    for value in PAPER_VALUES:
        assert value not in plain_grid, value
    assert escape(table_i_note()) not in plain_grid
    (line,) = re.findall(r"<p class=\"note\">(No paper values beside these runs: .*?)</p>", plain_grid)
    assert "the anytime paper&#x27;s Table I describes its four setups as the presets anytime-O/VS/C/CVS" in line
    assert line.endswith("the runs of re and rs here are not a preset&#x27;s (optimizer, settings or budget differ).")


def test_the_presets_runs_show_the_table_i_column_with_a_note_of_their_seeds(presets):
    assert TABLE_I_COLUMN in presets
    assert re.search(r"<td>O</td><td>re \(\d+\)</td><td>SMAC \(23\)  irace \(28\)  RE \(31\)</td>", presets)
    assert re.search(r"<td>C</td><td>re \(\d+\)</td><td>SMAC \(34\)  irace \(50\)  RE \(55\)</td>", presets)
    assert "<td>O (31)  VS (47)  CVS (50)  C (55)</td>" in presets  # the paper's RE
    assert escape(table_i_note()) in presets
    assert "but with as few as 1 seed per configuration, not the paper&#x27;s 20" in presets
    assert "No paper values" not in presets


def test_nb1shot1_notes_appear_only_beside_runs_of_its_protocol(tmp_path_factory):
    """nb1shot1-1 as the documented command runs it (1e6 s); nb1shot1-2 on another budget."""
    out = tmp_path_factory.mktemp("nb1shot1")
    run(out, "--benchmarks", "nb1shot1-1", "--optimizers", "rs,re", "--seeds", "0-1", "--budget", "1e6")
    run(out, "--benchmarks", "nb1shot1-2", "--optimizers", "rs", "--seeds", "0-1", "--budget", "1e5")
    page = report(out, tmp_path_factory)
    assert page.count(escape(nb1shot1_discrete_note())) == 1
    (line,) = re.findall(r"<p class=\"note\">(No NAS-Bench-1Shot1 note beside these runs: .*?)</p>", page)
    assert "the runs of rs on nb1shot1-2 here are not" in line
    assert page.count("No paper values beside these runs") == 2  # Table I describes neither space
    assert "these runs are on nb1shot1-1" in page and TABLE_I_COLUMN not in page

    alone = tmp_path_factory.mktemp("nb1shot1-other")
    run(alone, "--benchmarks", "nb1shot1-2", "--optimizers", "rs", "--seeds", "0", "--budget", "1e5")
    assert escape(nb1shot1_discrete_note()) not in report(alone, tmp_path_factory)


def test_a_multiobjective_report_shows_no_paper_value_nor_reason(tmp_path_factory):
    out = tmp_path_factory.mktemp("mo")
    run(out, "--benchmarks", "nb201-cifar10", "--objectives", "error,latency:pixel3", "--optimizers", "mo-rs",
        "--seeds", "0-1", "--budget", "3e4")
    page = report(out, tmp_path_factory).replace("&#x27;", "'")
    for fragment in (TABLE_I, *PAPER_VALUES, "No paper values", "NAS-Bench-1Shot1", NB1SHOT1, table_i_note()[:40]):
        assert fragment not in page, fragment


def test_the_decision_is_per_configuration_and_needs_one_benchmark():
    preset_runs = sorted({(spec.optimizer, spec.settings_hash) for preset in PRESETS.values() for spec in preset.specs()})
    full = pd.DataFrame([(optimizer, settings, seed) for optimizer, settings in preset_runs for seed in range(20)],
                        columns=["optimizer", "settings_hash", "seed"]).assign(benchmark="nb101-noisy")
    assert compare_with_papers(full).notes == {TABLE_I: [table_i_note()]}  # 20 seeds: no seed note
    assert compare_with_papers(full).reasons == {}
    mixed = pd.concat([full, pd.DataFrame({"benchmark": "nb101-noisy", "optimizer": "rs", "settings_hash": "0" * 10,
                                           "seed": [0]})])
    assert compare_with_papers(mixed).notes == {}
    assert "the runs of rs here are not a preset's" in compare_with_papers(mixed).reasons[TABLE_I]
    elsewhere = compare_with_papers(full.assign(benchmark="nb101-lite"))
    assert elsewhere.notes == {} and "these runs are on nb101-lite" in elsewhere.reasons[TABLE_I]
    with pytest.raises(ValueError, match="one benchmark at a time"):
        compare_with_papers(pd.concat([full, full.assign(benchmark="nb101-lite")]))
