"""``nasarena estimators``: zero-cost proxies of architectures, computed on their exact networks.

``compute`` writes a Parquet table of proxies (one row per architecture, each proxy's value and
its measured seconds) and resumes it after an interruption; a file of other settings is refused
and kept (see :mod:`nasarena.estimators.table`). ``evaluate`` judges every proxy of a table against
a tabular benchmark with the supernet evaluation's metrics (:mod:`nasarena.estimators.evaluation`).
``proxies`` lists the proxies and their papers.
"""

from __future__ import annotations

from pathlib import Path

import typer

from . import vocabulary
from .train import parse_scale

app = typer.Typer(help="Zero-cost proxies of architectures on their exact, untrained networks.",
                  no_args_is_help=True)


@app.command()
def compute(
    space: str = typer.Option(..., help="Space: nb101, nb201 or darts."),
    proxies: str = typer.Option(..., help="Proxies, comma-separated (see `nasarena estimators proxies`), e.g. "
                                          "synflow,naswot,params."),
    out: Path = typer.Option(..., help="Parquet file to write, in a writable folder (a second call with the same "
                                       "settings resumes it)."),
    sample: int = typer.Option(None, help="A seeded sample of this many distinct architectures (default: the whole "
                                          "space; required for darts)."),
    seed: int = typer.Option(0, help="Seed of the sample, the minibatch and every network's initial weights."),
    jobs: int = typer.Option(1, help=vocabulary.JOBS_HELP + "; each with one torch thread."),
    device: str = typer.Option("auto", help="auto (cuda, then mps, then cpu), cpu, cuda or cuda:N."),
    data: Path = typer.Option(None, help="CIFAR-10: a cifar-10-batches-py folder, a JPEG tree or its tarball "
                                         "(default: $NASARENA_CIFAR10, then the shared tarball)."),
    image_size: int = typer.Option(32, help="Image side (the papers': 32)."),
    scale: list[str] = typer.Option([], "--scale", help="Network scale knob KNOB=VALUE (repeatable; default: the "
                                                        "paper's size), e.g. channels=8."),
) -> None:
    """Compute a table of zero-cost proxies (resumable; seconds per proxy included)."""
    from ..estimators.table import compute_table

    processes = vocabulary.processes(jobs, None)

    def report(done: int, planned: int) -> None:
        typer.echo(f"{done:,} of {planned:,} architectures in {out}", err=True)

    frame = compute_table(space, vocabulary.split(proxies), out, sample=sample, seed=seed, jobs=processes,
                          device=device, data=data, image_size=image_size, scale=parse_scale(scale),
                          on_chunk=report)
    names = vocabulary.split(proxies)
    typer.echo(f"{len(frame):,} architectures of {space} -> {out}")
    typer.echo(f"{'proxy':10s} {'median':>12s} {'seconds/arch':>13s}")
    for name in names:
        typer.echo(f"{name:10s} {frame[name].median():12.5g} {frame[f'{name}_seconds'].mean():13.4f}")


@app.command()
def evaluate(
    table: Path = typer.Option(..., help="A table of `nasarena estimators compute` (Parquet)."),
    benchmark: str = typer.Option("nb201-cifar10", help="Tabular benchmark of the table's space giving the true "
                                                        "accuracies, e.g. nb201-cifar100 (same proxies, other "
                                                        "labels) or nb101-lite."),
    ks: str = typer.Option("5,10,50", help="Thresholds k of the top-architecture ID rate a1(k), comma-separated."),
) -> None:
    """Rank quality of every proxy of a table: Spearman/Kendall (all, top 10 %), a1(k) vs random, cost."""
    import pandas as pd

    from ..errors import InvalidSettingError
    from ..estimators.evaluation import benchmark_truth, evaluate_proxies
    from ..estimators.table import read_settings

    settings = read_settings(table) if table.is_file() else None
    if settings is None:
        raise InvalidSettingError(f"--table {table} is not a table of `nasarena estimators compute`")
    try:
        thresholds = [int(k) for k in vocabulary.split(ks)]
    except ValueError:
        raise InvalidSettingError(f"--ks {ks!r}: whole numbers, comma-separated, e.g. 5,10,50") from None
    frame = pd.read_parquet(table)
    metrics = evaluate_proxies(frame, benchmark_truth(benchmark, frame, settings["space"]), thresholds)
    note = "" if benchmark.endswith("cifar10") else " (proxies computed on CIFAR-10 images, labels of this benchmark)"
    typer.echo(f"{len(frame):,} architectures of {settings['space']} (seed {settings['seed']}) against {benchmark} "
               f"validation accuracy{note}")
    columns = ["spearman", "kendall", "spearman_top10", "kendall_top10", "precision_top10",
               *(f"a1@{k}" for k in thresholds), "undefined", "seconds"]
    typer.echo(f"{'proxy':10s} " + " ".join(f"{column:>14s}" for column in columns))
    for _, row in metrics.iterrows():
        typer.echo(f"{row['proxy']:10s} " + " ".join(f"{row[column]:14.4g}" for column in columns))
    typer.echo("random     " + " ".join(f"{'':>14s}" for _ in columns[:4]) + f" {0.1:14.4g} "
               + " ".join(f"{row[f'random@{k}']:14.4g}" for k in thresholds))


@app.command("proxies")
def list_proxies() -> None:
    """List the zero-cost proxies: name, images read, paper and the variant computed."""
    from ..estimators import PROXIES

    for name in PROXIES:
        proxy = PROXIES[name]
        data = f"{proxy.batch} images" if proxy.batch else "no data"
        typer.echo(f"{name:10s} {data:11s} {proxy.paper}: {proxy.variant}")
