"""``nasarena run``: a grid of benchmarks x optimizers x seeds, with a progress bar and a summary."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def parse_seeds(text: str) -> list[int]:
    """``"0-99"``, ``"3"`` or ``"0,5,7-9"`` -> list of seeds."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                low, high = (int(x) for x in part.split("-", 1))
                if high < low:
                    raise ValueError
                seeds.extend(range(low, high + 1))
            else:
                seeds.append(int(part))
        except ValueError:
            raise typer.BadParameter(f"bad seed range {part!r}; use e.g. 0-99 or 0,5,7-9") from None
    return seeds


def parse_overrides(items: list[str]) -> dict[str, dict]:
    """``["re.population_size=50"]`` -> ``{"re": {"population_size": 50}}`` (values parsed as JSON)."""
    overrides: dict[str, dict] = {}
    for item in items:
        try:
            key, raw = item.split("=", 1)
            optimizer, setting = key.split(".", 1)
        except ValueError:
            raise typer.BadParameter(f"bad setting {item!r}; use OPTIMIZER.SETTING=VALUE") from None
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        overrides.setdefault(optimizer, {})[setting] = value
    return overrides


def run_command(
    benchmark: str = typer.Option("nb101-lite", help="Benchmark name(s), comma-separated."),
    optimizers: str = typer.Option("rs,re", help="Optimizer names, comma-separated (see `nasarena optimizers`)."),
    seeds: str = typer.Option("0-9", help="Seeds, e.g. 0-99 or 0,5,7-9."),
    budget: float = typer.Option(1e7, help="Budget in simulated seconds of training."),
    max_evaluations: int = typer.Option(None, help="Also stop after this many evaluations."),
    out: Path = typer.Option(Path("results"), help="Results directory (resumes what is there)."),
    jobs: int = typer.Option(0, help="Parallel processes (0: all cores)."),
    backend: str = typer.Option("process", help="process or ray."),
    workers: int = typer.Option(1, help="Asynchronous workers per run in simulated time."),
    caching: bool = typer.Option(False, help="Repeated queries return the first result at no cost."),
    count_optimizer_time: bool = typer.Option(False, help="Add the optimizer's CPU time to the clock."),
    setting: list[str] = typer.Option([], "--set", help="Optimizer setting, e.g. --set re.population_size=50."),
) -> None:
    """Compare NAS optimizers on benchmarks under one protocol; results go to OUT/runs/*.parquet."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..optimizers.base import REGISTRY, available
    from ..runner import Budget, RunSettings
    from ..runner.experiment import grid, load_results, pending, run_experiment, summarize

    available()
    names = [o.strip() for o in optimizers.split(",") if o.strip()]
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise typer.BadParameter(f"unknown optimizer(s) {', '.join(unknown)}; available: {', '.join(sorted(REGISTRY))}")
    specs = grid(
        [b.strip() for b in benchmark.split(",")],
        names,
        parse_seeds(seeds),
        Budget(seconds=budget, evaluations=max_evaluations),
        parse_overrides(setting),
        RunSettings(n_workers=workers, caching=caching, count_optimizer_time=count_optimizer_time),
    )
    todo = pending(specs, out)
    typer.echo(f"{len(specs)} runs, {len(specs) - len(todo)} already in {out}, {len(todo)} to run")
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()) as bar:
        task = bar.add_task("runs", total=len(todo))
        run_experiment(specs, out, jobs=jobs or None, backend=backend, on_finished=lambda spec: bar.advance(task))
    typer.echo(f"{'benchmark':14s} {'optimizer':10s} {'runs':>5s} {'mean regret':>12s} {'median regret':>14s} {'evals':>8s}")
    for s in summarize(load_results(out)):
        typer.echo(f"{s.benchmark:14s} {s.optimizer:10s} {s.runs:5d} {s.mean_final_regret:12.5f} "
                   f"{s.median_final_regret:14.5f} {s.mean_evaluations:8.0f}")


def optimizers_command() -> None:
    """List the available optimizers."""
    from ..optimizers.base import available

    for entry in available():
        typer.echo(f"{entry.name:10s} {entry.summary}")
