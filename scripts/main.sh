#!/usr/bin/env bash
# Install nasarena into .venv at the repository root and run the main job on the embedded real data.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
# a small real comparison on the embedded NAS-Bench-101 data: 4 optimizers x 10 seeds, 1e7 s budget each
.venv/bin/nasarena run --benchmark nb101-lite --optimizers rs,re,ls,reinforce --seeds 0-9 --budget 1e7 --out results
