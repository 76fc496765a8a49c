"""What an experiment ran: benchmarks, configurations with their exact settings, budgets and
how many runs each configuration has finished.

Results are read as they are, so a partially finished experiment is described as such: each
configuration reports its own runs and seeds. Settings come from ``settings.json`` next to
the runs (keyed by settings hash); a configuration missing from it is reported as unknown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..analysis.trajectories import final_results
from ..errors import DataFileError

SETTINGS_FILE = "settings.json"


@dataclass(frozen=True)
class Configuration:
    """One (benchmark, optimizer, settings) of an experiment and its finished runs.

    The settings are JSON text, or ``None`` when ``settings.json`` does not know the hash.
    """

    benchmark: str
    label: str
    optimizer: str
    settings_hash: str
    runs: int
    seeds: tuple[int, ...]
    mean_evaluations: float
    optimizer_settings: str | None
    run_settings: str | None
    budget_seconds: float | None
    budget_evaluations: int | None
    #: mean simulated time at the runs' last evaluation (seconds)
    mean_seconds: float = float("nan")
    #: runs that stopped on the evaluation cap before spending the time budget (a cap below what the
    #: time allows; or cached runs from before issue 29, whose cached answers counted as evaluations)
    capped_runs: int = 0
    #: mean simulated time at the last evaluation of those runs (NaN when none)
    capped_seconds: float = float("nan")
    #: the benchmark options that change its answers, as settings.json recorded them
    benchmark_options: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class ExperimentDescription:
    results_dir: Path
    benchmarks: tuple[str, ...]
    configurations: tuple[Configuration, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(sorted({c.label for c in self.configurations}))

    @property
    def total_runs(self) -> int:
        return sum(c.runs for c in self.configurations)

    @property
    def budget_seconds(self) -> float | None:
        """The largest time budget of any configuration (``None`` if none is known)."""
        known = [c.budget_seconds for c in self.configurations if c.budget_seconds is not None]
        return max(known) if known else None

    @property
    def balanced(self) -> bool:
        """Whether every configuration of a benchmark finished the same seeds."""
        seeds = {}
        for c in self.configurations:
            seeds.setdefault(c.benchmark, set()).add(c.seeds)
        return all(len(s) == 1 for s in seeds.values())


def describe_experiment(results_dir: Path, results: pd.DataFrame) -> ExperimentDescription:
    """The description of ``results`` (the table of ``load_results(results_dir)``)."""
    known = read_settings(Path(results_dir) / SETTINGS_FILE)
    final = final_results(results)
    configurations = []
    for (bench, name, optimizer, settings), runs in final.groupby(["benchmark", "label", "optimizer", "settings_hash"],
                                                                  sort=True):
        entry = known.get(settings)
        budget = entry.get("budget", {}) if entry else {}
        seconds, cap = budget.get("seconds"), budget.get("evaluations")
        capped = pd.Series(False, index=runs.index)
        if seconds is not None and cap is not None:
            capped = (runs["evaluations"] >= cap) & (runs["sim_time"] < seconds)
        configurations.append(Configuration(
            benchmark=bench, label=name, optimizer=optimizer, settings_hash=settings, runs=len(runs),
            seeds=tuple(sorted(int(s) for s in runs["seed"])), mean_evaluations=float(runs["evaluations"].mean()),
            optimizer_settings=_json(entry, "optimizer_settings"), run_settings=_json(entry, "run_settings"),
            budget_seconds=seconds, budget_evaluations=cap, mean_seconds=float(runs["sim_time"].mean()),
            capped_runs=int(capped.sum()), capped_seconds=float(runs.loc[capped, "sim_time"].mean()) if capped.any()
            else float("nan"),
            benchmark_options=tuple(sorted((entry or {}).get("benchmark_options", {}).items())),
        ))
    return ExperimentDescription(Path(results_dir), tuple(sorted(final["benchmark"].unique())), tuple(configurations))


def read_settings(path: Path) -> dict:
    """``settings.json``: settings hash -> its settings ({} when there is no such file).

    A file that is not such a JSON object is a :class:`DataFileError` naming it.
    """
    if not path.exists():
        return {}
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataFileError(f"{path}: cannot read the experiment's settings ({error}); restore it or remove it "
                            "(the report then shows the settings as unknown)") from None
    if not isinstance(known, dict) or not all(isinstance(entry, dict) for entry in known.values()):
        raise DataFileError(f"{path}: not the settings of a nasarena experiment (a JSON object of settings hash -> "
                            "settings)")
    return known


def seed_ranges(seeds: tuple[int, ...]) -> str:
    """``(0, 1, 2, 5, 7, 8)`` -> ``"0-2, 5, 7-8"``."""
    parts, start = [], None
    for i, seed in enumerate(seeds):
        if start is None:
            start = seed
        if i + 1 == len(seeds) or seeds[i + 1] != seed + 1:
            parts.append(str(seed) if seed == start else f"{start}-{seed}")
            start = None
    return ", ".join(parts)


def _json(entry: dict | None, key: str) -> str | None:
    if entry is None or key not in entry:
        return None
    return json.dumps(entry[key], sort_keys=True)
