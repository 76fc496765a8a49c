"""The core install (no extras) runs the command line: `pip install nasarena` then `nasarena run`.

The test environment has every extra, so a module the core does not declare (click arrived only
through Ray and SMAC; typer 0.29 vendors its own) can slip into a core import path unnoticed: the
README's main job then failed on a fresh install with ModuleNotFoundError: click. Here the
undeclared packages are made unimportable in a child interpreter that runs the CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: Packages the core install does not declare: the extras' (torch, plots, surrogates, optimizers,
#: distributed) and click, which typer no longer installs.
NOT_IN_THE_CORE = ("click", "torch", "PIL", "matplotlib", "sklearn", "xgboost", "lightgbm", "ngboost", "optuna",
                   "smac", "ray")

CHILD = """
import sys
blocked = set(sys.argv[1].split(","))

class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (not in the core install)", name=name)
        return None

sys.meta_path.insert(0, Block())
from nasarena.cli.main import app
app(sys.argv[2:], prog_name="nasarena")
"""


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD, ",".join(NOT_IN_THE_CORE), *args], capture_output=True,
                          text=True, timeout=300)


def test_core_install_runs_an_experiment_and_lists_what_it_has(tmp_path):
    done = _cli("run", "--benchmark", "nb101-lite", "--optimizers", "rs,re", "--seeds", "0", "--max-evaluations",
                "30", "--jobs", "1", "--out", str(tmp_path / "results"))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "results" / "runs").glob("*.parquet"))) == 2
    listed = _cli("benchmarks")
    assert listed.returncode == 0, listed.stderr
    assert "nb101-lite" in listed.stdout


def test_core_install_reports_errors_in_one_line():
    done = _cli("run", "--benchmarks", "nope")
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr


@pytest.mark.parametrize("args, module, extra", [
    (["run", "--benchmarks", "nb101-lite", "--optimizers", "smac3", "--seeds", "0", "--max-evaluations", "5", "--jobs",
      "1", "--out", "{out}"], "smac", "optimizers"),
    (["run", "--benchmarks", "nb101-lite", "--optimizers", "smac", "--seeds", "0", "--max-evaluations", "5", "--jobs",
      "1", "--out", "{out}"], "sklearn", "surrogates"),
    (["run", "--benchmarks", "nb101-lite", "--optimizers", "tpe-optuna", "--seeds", "0", "--max-evaluations", "5",
      "--jobs", "1", "--out", "{out}"], "optuna", "optimizers"),
    (["run", "--benchmarks", "nb101-xgb-v1.0", "--optimizers", "rs", "--seeds", "0", "--max-evaluations", "5",
      "--out", "{out}"], "xgboost", "surrogates"),
    (["surrogate", "info", "nb101-xgb-v1.0"], "xgboost", "surrogates"),
    (["run", "--benchmarks", "live", "--space", "nb201", "--optimizers", "rs", "--seeds", "0", "--max-evaluations", "1",
      "--out", "{out}"], "torch", "torch"),
    (["collect", "--space", "nb201", "--strategies", "rs", "--n", "2", "--out", "{out}"], "torch", "torch"),
    (["analyze", "nb201-cifar10", "--out", "{out}"], "matplotlib", "plots"),
    (["supernet", "evaluate", "--out", "{out}"], "matplotlib", "plots"),
    (["oneshot", "run", "--quick", "--out", "{out}"], "torch", "torch"),
    (["train", "--space", "nb201", "--arch", "|skip_connect~0|+|none~0|none~1|+|none~0|none~1|none~2|", "--out",
      "{out}"], "torch", "torch"),
])
def test_a_missing_extra_is_one_line_naming_the_pip_command(tmp_path, args, module, extra):
    """Each feature of an extra, run on the core install: ``error: ... needs <module> ... pip install
    'nasarena[<extra>]'``, exit 2, never a traceback (they were tracebacks, or 'data cannot be
    decoded' for a built-in surrogate whose xgboost was missing), and nothing written (a run of
    smac had left settings.json behind)."""
    done = _cli(*(arg.format(out=tmp_path / "out") for arg in args))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr, done.stderr
    assert f"needs {module}" in done.stderr and f"pip install 'nasarena[{extra}]'" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_an_installed_extra_that_fails_inside_keeps_its_reason():
    from nasarena.errors import MissingExtraError, as_missing_extra

    absent = as_missing_extra(ModuleNotFoundError("No module named 'torch'", name="torch"), "train")
    assert isinstance(absent, MissingExtraError) and "torch, which is not installed" in str(absent)
    broken = as_missing_extra(ImportError("libcudart.so.12: cannot open shared object file", name="torch._C"), "train")
    assert isinstance(broken, MissingExtraError)
    assert "cannot be imported (libcudart.so.12" in str(broken) and "nasarena[torch]" in str(broken)
    assert as_missing_extra(ModuleNotFoundError("No module named 'nasarena.nope'", name="nasarena.nope"), "x") is None
