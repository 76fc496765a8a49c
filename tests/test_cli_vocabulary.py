"""Issue 30 point 5: one command-line vocabulary across every command.

- processes are ``--jobs`` (0: all cores); ``--workers`` only names an optimizer's own workers
  (``run``: simulated, ``oneshot tune``: BOHB's), elsewhere it is a hidden old name of ``--jobs``;
- lists are plural options with comma-separated items; a repeated singular option is a hidden
  old name of one;
- ``--set`` is ``[NAME.]KEY=VALUE`` in every command;
- every user error, Click's usage errors included, is one ``error: ...`` line, exit status 2.

The first tests read the Typer app itself (every command of every group), so a new command
or option is held to the vocabulary without a test of its own; the others run the commands
in-process with the heavy work stubbed out, checking what reaches it.
"""

from __future__ import annotations

import re
import sys
import types

import pandas as pd
import pytest
import typer.main
from typer.testing import CliRunner

from nasarena.cli.main import app
from nasarena.cli.vocabulary import own_settings, scoped_settings
from nasarena.errors import InvalidSettingError

#: Where ``--workers`` keeps a meaning of its own, and a word its help must say it with.
OWN_WORKERS = {"run": "simulated", "oneshot tune": "BOHB"}
#: Repeatable options of ``KEY=VALUE`` items (values may hold commas, so they are not lists).
ASSIGNMENTS = re.compile(r"=VALUE\b.*repeatable|repeatable.*=VALUE\b", re.S)
OLD_NAME = re.compile(r"^Old name of (--[a-z-]+)\.$")


def commands(command=None, path=()):
    """Every command of the app as (``"oneshot run"``, click command), groups walked."""
    command = command or typer.main.get_command(app)
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        if getattr(sub, "commands", None) is not None:
            yield from commands(sub, (*path, name))
        else:
            yield " ".join((*path, name)), sub


def options(command):
    return [p for p in command.params if p.param_type_name == "option"]


def names(option) -> list[str]:
    return [name for name in option.opts if name.startswith("--")]


ALL = list(commands())


def invoke(*args, **kwargs):
    return CliRunner().invoke(app, [str(a) for a in args], env={"NASARENA_PROGRESS": "0"}, **kwargs)


def test_the_walk_sees_every_group():
    seen = {name for name, _ in ALL}
    assert {"run", "collect", "train", "report", "oneshot run", "oneshot tune", "oneshot regularise",
            "oneshot correlate", "surrogate fit", "surrogate validate", "nb101 enumerate",
            "supernet evaluate"} <= seen


def test_workers_never_means_processes_outside_its_own_meanings():
    for name, command in ALL:
        for option in options(command):
            if "--workers" not in names(option):
                continue
            if name in OWN_WORKERS:
                assert not option.hidden and OWN_WORKERS[name] in option.help, (name, option.help)
            else:  # the old name of --jobs, kept one release: hidden, and --jobs is there
                assert option.hidden and option.help == "Old name of --jobs.", name
                assert any("--jobs" in names(o) for o in options(command)), name


def test_every_processes_option_is_jobs_and_zero_means_all_cores():
    jobs = []
    for name, command in ALL:
        for option in options(command):
            if option.hidden or name in OWN_WORKERS and "--workers" in names(option):
                continue
            if "--jobs" in names(option):
                jobs.append(name)
                assert "0: all cores" in option.help, (name, option.help)
            elif re.search(r"\bprocesses\b", option.help or ""):
                pytest.fail(f"{name} {names(option)} is about processes but is not --jobs: {option.help}")
    assert {"run", "collect", "oneshot run", "oneshot regularise", "oneshot correlate", "surrogate validate",
            "nb101 enumerate"} <= set(jobs)


def test_list_options_are_plural_and_comma_separated():
    for name, command in ALL:
        visible = {n for o in options(command) if not o.hidden for n in names(o)}
        for option in options(command):
            help_text = option.help or ""
            if option.hidden:  # an old spelling: says what it is the old name of, which is there
                match = OLD_NAME.match(help_text)
                assert match and match.group(1) in visible, (name, names(option), help_text)
                continue
            if "comma-separated" in help_text:
                assert not option.multiple and all(n.endswith("s") for n in names(option)), (name, names(option))
            if option.multiple:  # repeatable only for KEY=VALUE assignments
                assert ASSIGNMENTS.search(help_text), (name, names(option), help_text)


def test_set_has_one_form_everywhere():
    sets = {name: o for name, command in ALL for o in options(command) if "--set" in names(o)}
    assert {"run", "collect", "train", "oneshot run", "oneshot tune", "oneshot regularise", "surrogate fit"} <= set(sets)
    for name, option in sets.items():
        assert re.search(r"\[[A-Z]+\.\]KEY=VALUE", option.help), (name, option.help)


# --- the old spellings still work, with a note ----------------------------------------------


def note_of(output: str, old: str, new: str) -> None:
    assert f"note: {old} is now {new}" in output and "will be removed in the next release" in output, output


def fake_module(monkeypatch, name: str, **attributes) -> None:
    """``name`` imported by a command as a stand-in holding ``attributes`` (the one-shot modules
    import torch, seconds of work these tests do not need)."""
    monkeypatch.setitem(sys.modules, name, types.SimpleNamespace(__name__=name, **attributes))


@pytest.fixture
def oneshot_stubs(monkeypatch):
    """``oneshot run``/``regularise`` with the searches stubbed: what reached them."""
    seen = {}

    def plan(settings, seeds, out):
        seen["settings"] = settings
        return []

    def run_jobs(jobs, **options):
        seen["workers"] = options["workers"]

    fake_module(monkeypatch, "nasarena.studies.oneshot_experiment", BACKENDS=("process", "ray"), plan=plan, run_jobs=run_jobs)
    fake_module(monkeypatch, "nasarena.studies.oneshot_regularisation", plan_study=plan)
    fake_module(monkeypatch, "nasarena.plots.oneshot_regularisation",
                write_regularisation_report=lambda out: out / "report.html")
    return seen


def test_oneshot_run_old_spellings_work_with_notes(oneshot_stubs, tmp_path):
    result = invoke("oneshot", "run", "--optimizer", "darts", "--optimizer", "gdas", "--workers", "3", "--quick",
                    "--set", "channels=8", "--set", "gdas.channels=6", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    note_of(result.output, "--optimizer", "--optimizers")
    note_of(result.output, "--workers", "--jobs")
    assert oneshot_stubs["workers"] == 3
    assert [(s.optimizer, s.channels) for s in oneshot_stubs["settings"]] == [("darts", 8), ("gdas", 6)]


def test_oneshot_run_new_spellings_need_no_note(oneshot_stubs, tmp_path):
    result = invoke("oneshot", "run", "--optimizers", "darts,gdas", "--jobs", "0", "--quick", "--out", tmp_path / "o")
    assert result.exit_code == 0 and "note:" not in result.output, result.output
    assert oneshot_stubs["workers"] >= 1  # 0: every core
    assert [s.optimizer for s in oneshot_stubs["settings"]] == ["darts", "gdas"]


def test_regularise_takes_jobs_and_its_old_name(oneshot_stubs, tmp_path):
    result = invoke("oneshot", "regularise", "--optimizer", "gdas", "--workers", "2", "--quick", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    note_of(result.output, "--workers", "--jobs")
    assert oneshot_stubs["workers"] == 2 and [s.optimizer for s in oneshot_stubs["settings"]] == ["gdas"]


@pytest.mark.parametrize("args", [["--workers", "2", "--jobs", "2"], ["--optimizers", "darts", "--optimizer", "gdas"]])
def test_old_and_new_spelling_together_are_refused(oneshot_stubs, tmp_path, args):
    result = invoke("oneshot", "run", *args, "--out", tmp_path / "o")
    assert result.exit_code == 2 and "error: give --" in result.output and "only" in result.output, result.output


def test_correlate_old_workers_reaches_the_scoring(monkeypatch, tmp_path):
    (tmp_path / "darts" / "seed-0").mkdir(parents=True)
    (tmp_path / "darts" / "seed-0" / "settings.json").write_text("{}")
    seen = {}
    fake_module(monkeypatch, "nasarena.oneshot.run", SETTINGS_FILE="settings.json")
    fake_module(monkeypatch, "nasarena.studies.oneshot_correlation", Scoring=dict, spearman_table=lambda runs: pd.DataFrame(),
                score_runs=lambda runs, scoring, **options: seen.update(options) or (0, 0.0))
    result = invoke("oneshot", "correlate", tmp_path, "--workers", "2")
    assert result.exit_code == 0, result.output
    note_of(result.output, "--workers", "--jobs")
    assert seen["workers"] == 2


def test_collect_old_strategy_reaches_the_collection(monkeypatch, tmp_path):
    import nasarena.studies.collection as collection

    seen = {}

    def collect(options, strategies, n, out, **rest):
        seen.update(options=options, strategies=strategies, **rest)
        return pd.DataFrame({"source": ["rs"], "valid_accuracy": [0.5]})

    monkeypatch.setattr(collection, "collect", collect)
    result = invoke("collect", "--space", "nb201", "--strategy", "rs", "--strategy", "re", "--n", "2", "--jobs", "0",
                    "--set", "nb201.batch_size=64", "--out", tmp_path / "c.parquet")
    assert result.exit_code == 0, result.output
    note_of(result.output, "--strategy", "--strategies")
    assert seen["strategies"] == ["rs", "re"] and seen["jobs"] >= 1
    assert seen["options"]["settings"] == ("batch_size=64",)


def test_run_old_benchmark_and_plain_set(monkeypatch, tmp_path):
    import nasarena.runner.experiment as experiment

    seen = {}
    monkeypatch.setattr(experiment, "run_experiment", lambda specs, out, **options: seen.update(specs=specs))
    result = invoke("run", "--benchmark", "nb201-cifar10", "--optimizers", "re,ls", "--seeds", "0", "--jobs", "1",
                    "--set", "re.population_size=20", "--set", "re.tournament_size=4", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    note_of(result.output, "--benchmark", "--benchmarks")
    assert {(s.benchmark, s.optimizer) for s in seen["specs"]} == {("nb201-cifar10", "re"), ("nb201-cifar10", "ls")}
    settings = {s.optimizer: dict(s.optimizer_settings) for s in seen["specs"]}
    assert settings["re"] == {"population_size": 20, "tournament_size": 4} and settings["ls"] == {}

    seen.clear()
    both = invoke("run", "--benchmarks", "nb201-cifar10", "--optimizers", "re", "--seeds", "0", "--jobs", "1",
                  "--set", "population_size=30", "--set", "re.population_size=20", "--out", tmp_path / "b")
    assert both.exit_code == 0 and "note:" not in both.output, both.output
    assert dict(seen["specs"][0].optimizer_settings) == {"population_size": 20}  # the named form wins
    plain = invoke("run", "--benchmarks", "nb201-cifar10", "--optimizers", "re,rs", "--seeds", "0",
                   "--set", "population_size=30", "--out", tmp_path / "c")
    assert plain.exit_code == 2 and "of optimizer 'rs'" in plain.output and "re.population_size" not in plain.output


def test_report_old_pair_and_level_work_with_notes(monkeypatch, tmp_path):
    import nasarena.plots.report as report
    import nasarena.runner.experiment as experiment

    seen = {}

    def write_report(results, out, **options):
        seen.update(options)
        (out / "report.html").write_text("")
        return out / "report.html"

    monkeypatch.setattr(report, "write_report", write_report)
    monkeypatch.setattr(experiment, "load_results", lambda results, *specs: pd.DataFrame())
    (tmp_path / "results").mkdir()
    result = invoke("report", tmp_path / "results", "--out", tmp_path / "r", "--pair", "re:rs", "--level", "25",
                    "--level", "75")
    assert result.exit_code == 0, result.output
    note_of(result.output, "--pair", "--pairs")
    note_of(result.output, "--level", "--levels")
    assert seen["pairs"] == [("re", "rs")] and seen["levels"] == [25.0, 75.0]
    new = invoke("report", tmp_path / "results", "--out", tmp_path / "r", "--pairs", "re:rs,ls:rs", "--levels", "50")
    assert new.exit_code == 0 and "note:" not in new.output, new.output
    assert seen["pairs"] == [("re", "rs"), ("ls", "rs")] and seen["levels"] == [50.0]


def test_set_scopes():
    assert scoped_settings(["a=1", "x.a=2", "b=3"], ["x", "y"], "optimizer", "in --optimizers", "x.a=1") == \
        {"x": ["a=1", "b=3", "a=2"], "y": ["a=1", "b=3"]}
    assert own_settings(["nb201.batch_size=64", "learning_rate=0.1"], "nb201", "protocol", "batch_size=64") == \
        ["learning_rate=0.1", "batch_size=64"]
    with pytest.raises(InvalidSettingError, match="is for protocol 'nb101', which is not the protocol in use"):
        own_settings(["nb101.batch_size=64"], "nb201", "protocol", "batch_size=64")
    for bad in ("a", ".a=1", "x.=1", "=1"):
        with pytest.raises(InvalidSettingError, match=r"bad --set .*\[NAME\.\]KEY=VALUE"):
            scoped_settings([bad], ["x"], "optimizer", "in --optimizers", "x.a=1")


# --- usage errors come out as nasarena's errors ---------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["run", "--bogus"], "error: no such option: --bogus"),
    (["--bogus"], "error: no such option: --bogus"),
    (["nope"], "error: no such command 'nope'"),
    (["oneshot", "tune", "--out", "x"], "error: missing option '--budget'"),
    (["oneshot", "run", "--epochs", "x", "--out", "x"], "error: invalid value for '--epochs'"),
    (["surrogate", "fit"], "error: missing argument 'data'"),
    (["run", "--seeds"], "error: option '--seeds' requires an argument"),
])
def test_usage_errors_are_one_error_line_exit_2(args, message):
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(message), result.output
    assert "Error" not in result.output and "╭" not in result.output and "Traceback" not in result.output
    assert result.stdout == "", result.stdout  # on stderr


def test_no_arguments_still_show_the_help():
    result = invoke("oneshot")
    assert "Usage" in result.output and "error:" not in result.output
