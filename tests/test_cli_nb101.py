"""``nasarena nb101`` commands end to end (in-process, through Typer's runner)."""

import json
from pathlib import Path

from typer.testing import CliRunner

from nasarena.cli.main import app

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "cells.json"
runner = CliRunner()


def test_describe_reports_each_cell_and_never_aborts_on_a_bad_one():
    result = runner.invoke(app, ["nb101", "describe", str(EXAMPLES)])
    assert result.exit_code == 0, result.output
    cells = json.loads(result.output)
    assert len(cells) == 5
    assert cells[0]["valid"] and cells[0]["num_vertices"] == 7 and len(cells[0]["hash"]) == 32
    assert cells[0]["trainable_parameters"] > 1_000_000
    assert cells[1]["valid"] and cells[1]["num_edges"] == 7
    # vertex 2 (an unknown op) is unreachable from the input, so it is pruned and the cell is valid
    assert cells[2]["valid"] and cells[2]["ops"] == ["input", "conv1x1-bn-relu", "output"]
    assert cells[3] == {"valid": False, "reason": "the input is not connected to the output"}
    assert "strictly upper-triangular" in cells[4]["error"]


def test_describe_rejects_a_file_that_is_not_a_list(tmp_path):
    bad = tmp_path / "cells.json"
    bad.write_text('{"matrix": []}')
    result = runner.invoke(app, ["nb101", "describe", str(bad)])
    assert result.exit_code == 2 and "JSON list" in result.output


def test_stats_prints_the_space_size():
    result = runner.invoke(app, ["nb101", "stats"])
    assert result.exit_code == 0 and "unique cells: 423,624" in result.output
    assert "7: 359,082" in result.output
