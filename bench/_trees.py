"""Run a benchmark's measurement in a fresh process on another source tree (a baseline commit).

A before/after comparison in one run: check out the older commit beside this one (``git worktree
add /tmp/base <commit>``), pass its directory as ``--baseline``, and the benchmark runs its own
``--child`` mode once per tree, importing nasarena from that tree's ``src/``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def measure_in_tree(tree: Path, script: str, arguments: list[str]) -> dict:
    """The JSON object ``script --child ARGUMENTS`` prints last, run on ``tree``'s nasarena; it
    must report the ``nasarena`` module file it imported, which is checked to lie in ``tree``."""
    environment = dict(os.environ, PYTHONPATH=str(tree / "src"))
    command = [sys.executable, script, "--child", *arguments]
    output = subprocess.run(command, env=environment, check=True, capture_output=True, text=True).stdout
    results = json.loads(output.splitlines()[-1])
    if not results["nasarena"].startswith(str(tree / "src")):
        raise SystemExit(f"the child imported {results['nasarena']}, not the tree {tree}")
    return results
