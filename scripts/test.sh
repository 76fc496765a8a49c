#!/usr/bin/env bash
# Install nasarena with its test extras into .venv at the repository root and run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test,plots,distributed,surrogates,optimizers,torch]"
.venv/bin/python -m pytest "$@"
