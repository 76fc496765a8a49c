#!/usr/bin/env bash
# Install nasarena into .venv at the repository root and run the main job on the embedded real data:
# a comparison of NAS optimizers on NAS-Bench-101 (4 optimizers x 20 seeds, 1e7 simulated seconds each)
# and its report (figures, tables, statistics) in report/report.html.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[plots]"
.venv/bin/nasarena run --benchmarks nb101-noisy --optimizers rs,re,ls,reinforce --seeds 0-19 --budget 1e7 --out results
.venv/bin/nasarena report results --out report
