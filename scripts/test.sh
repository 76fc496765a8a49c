#!/usr/bin/env bash
# Install nasarena with its test extras into .venv at the repository root, then lint (ruff),
# type-check the public contracts (mypy) and run the tests (pytest; arguments go to pytest). The tests
# include the documentation: tests/test_docs.py runs the code blocks of README.md and docs/ and builds
# the site with `mkdocs build --strict` into a temporary folder (the docs extra).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# torch first, at the CPU build this machine has: a bare range would let pip pick a newer torch
# with several GB of CUDA packages; the extras below then find it satisfied.
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install --quiet -e ".[test,docs,plots,distributed,surrogates,optimizers,torch,nb301]"
.venv/bin/ruff check --quiet src tests bench scripts examples
# The written contracts: spaces, optimizers, benchmarks, results, registries, errors, conformance checks.
.venv/bin/mypy --no-error-summary src/nasarena/spaces/protocol.py src/nasarena/optimizers/base.py \
    src/nasarena/registry.py src/nasarena/errors.py src/nasarena/benchmarks/protocol.py \
    src/nasarena/benchmarks/result.py src/nasarena/benchmarks/registry.py src/nasarena/testing/__init__.py \
    src/nasarena/spaces/registry.py src/nasarena/spaces/nb101/space.py src/nasarena/spaces/nb201/space.py \
    src/nasarena/spaces/darts/space.py src/nasarena/spaces/fbnet/space.py src/nasarena/spaces/oneshot/space.py \
    src/nasarena/spaces/nbgraph/space.py src/nasarena/spaces/conformance_types.py
# Two test processes (pytest-xdist), one per core of the reference 2-core machine; a test file stays
# in one process (--dist loadfile), so a module's fixtures are built once. NASARENA_TEST_PROCESSES=0
# runs everything in this process.
.venv/bin/python -m pytest -n "${NASARENA_TEST_PROCESSES:-2}" --dist loadfile "$@"
