"""``nasarena estimators``: zero-cost proxies of architectures, computed on their exact networks.

``compute`` writes a Parquet table of proxies (one row per architecture, each proxy's value and
its measured seconds) and resumes it after an interruption; a file of other settings is refused
and kept (see :mod:`nasarena.estimators.table`). ``proxies`` lists the proxies and their papers.
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


@app.command("proxies")
def list_proxies() -> None:
    """List the zero-cost proxies: name, images read, paper and the variant computed."""
    from ..estimators import PROXIES

    for name in PROXIES:
        proxy = PROXIES[name]
        data = f"{proxy.batch} images" if proxy.batch else "no data"
        typer.echo(f"{name:10s} {data:11s} {proxy.paper}: {proxy.variant}")
