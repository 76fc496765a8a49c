#!/usr/bin/env bash
# Install nasarena into .venv at the repository root and run the main job on the embedded real data.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
.venv/bin/nasarena nb101 stats
.venv/bin/nasarena nb101 describe examples/cells.json
