"""``nasarena benchmarks [NAME]``: list the benchmarks, or describe one."""

from __future__ import annotations

import typer


def benchmarks(
    name: str = typer.Argument(None, help="Describe this benchmark (provenance, sizes, real vs modelled)."),
    path: str = typer.Option(None, help="Store directory, for benchmarks imported from official files."),
) -> None:
    """List the available benchmarks, or describe one."""
    from ..benchmarks import available, benchmark

    if name is None:
        for entry in available():
            typer.echo(f"{entry.name:24s} {entry.summary}")
        return
    from .progress import spinner

    options = {"path": path} if path else {}
    try:
        with spinner(f"loading {name}"):
            loaded = benchmark(name, **options)
    except (KeyError, ValueError, FileNotFoundError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    typer.echo(loaded.describe().to_text())
