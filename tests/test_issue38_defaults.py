"""Issue 38, point 1: the defaults rank optimizers as the 3-trial benchmark does.

A plain ``nasarena run``, the README's example and the main job (``scripts/main.sh``) use
``nb101-noisy``; the single-draw ``nb101-lite`` is something a user names.
"""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

ROOT = Path(__file__).parents[1]


def test_plain_run_uses_the_three_trial_table(tmp_path):
    from nasarena.cli.main import app
    from nasarena.runner.experiment import load_results

    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", "--optimizers", "rs", "--seeds", "0", "--budget", "1e5", "--jobs", "1",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert set(load_results(out)["benchmark"]) == {"nb101-noisy"}


def test_main_job_readme_and_getting_started_name_the_three_trial_table():
    main = (ROOT / "scripts" / "main.sh").read_text()
    (command,) = [line for line in main.splitlines() if "nasarena run" in line]
    assert "--benchmarks nb101-noisy" in command
    for page in (ROOT / "README.md", ROOT / "docs" / "getting-started.md"):
        text = page.read_text()
        runs = re.findall(r"nasarena run --benchmarks (\S+)", text) + re.findall(r'grid\(\["([\w-]+)"\]', text)
        nb101 = {name for name in runs if name.startswith("nb101")}
        assert nb101 == {"nb101-noisy"}, (page.name, runs)
