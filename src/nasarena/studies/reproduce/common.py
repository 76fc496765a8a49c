"""What the blocks of every page share: running a grid of runs at a scale and naming what ran."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ...io.packaged import read_manifest
from ...runner.experiment import RunSpec, load_results, run_experiment

#: Where the repository keeps the results behind its pages that cost too much to recompute each time
#: (the estimators page's proxy values, the final rows of Table I's runs), when nasarena runs
#: from a checkout (``src/nasarena/studies/reproduce/`` is four down).
SAVED_DATA = Path(__file__).resolve().parents[4] / "docs" / "reproduce" / "data"


def run_specs(specs: Sequence[RunSpec], results: Path, jobs: int) -> pd.DataFrame:
    """Run (or resume) ``specs`` into ``results`` and load exactly their rows."""
    ordered = seed_by_seed(specs)
    run_experiment(ordered, results, jobs=jobs)
    return load_results(results, ordered)


def seed_by_seed(specs: Sequence[RunSpec]) -> list[RunSpec]:
    """``specs`` in the order they run: seed by seed, so that an interrupted grid leaves whole seeds."""
    return sorted(specs, key=lambda spec: (spec.seed, spec.benchmark, spec.optimizer))


def configurations(specs: Sequence[RunSpec]) -> tuple[str, ...]:
    """``benchmark/optimizer/settings_hash`` of every configuration of ``specs``."""
    return tuple(sorted({f"{spec.benchmark}/{spec.optimizer}/{spec.settings_hash}" for spec in specs}))


def seeds(specs: Sequence[RunSpec]) -> tuple[int, ...]:
    return tuple(sorted({spec.seed for spec in specs}))


def scaled(value: float, digits: int = 2) -> str:
    """A regret in the page's unit (x 10^3 or x 10^4 is the caller's), fixed decimals."""
    return f"{value:.{digits}f}"


def p_value(p: float) -> str:
    """A p-value as the pages print it: two significant digits."""
    return f"{p:.2g}"


def data_key(name: str) -> str:
    """A package data file named by its checksum: what a data-only block computed from."""
    return f"data/{name}/{read_manifest()[name].sha256[:16]}"
