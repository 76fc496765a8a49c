"""``nasarena nb101 ...``: the NAS-Bench-101 space from the command line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer

app = typer.Typer(help="The NAS-Bench-101 cell space.", no_args_is_help=True)


@app.command()
def describe(file: Path = typer.Argument(..., help='JSON list of {"matrix": [[...]], "ops": [...]}')) -> None:
    """Describe cells: validity, pruned form, official hash, trainable parameters (JSON out)."""
    from ..spaces.nb101.describe import describe_entry

    try:
        entries = json.loads(file.read_text())
    except (OSError, json.JSONDecodeError) as error:
        typer.echo(f"error: cannot read {file}: {error}", err=True)
        raise typer.Exit(2) from None
    if not isinstance(entries, list):
        typer.echo(f"error: {file} must hold a JSON list of cells", err=True)
        raise typer.Exit(2)
    lines = [json.dumps(describe_entry(entry)) for entry in entries]
    typer.echo("[\n  " + ",\n  ".join(lines) + "\n]")


@app.command()
def stats() -> None:
    """Statistics of the space: unique cells by vertices and edges, parameter range."""
    import numpy as np

    from ..benchmarks import benchmark as load_benchmark
    from ..spaces.nb101 import unique_cells

    table = unique_cells()
    typer.echo(f"unique cells: {len(table):,}")
    vertices, counts = np.unique(table.num_vertices, return_counts=True)
    typer.echo("by vertices:  " + ", ".join(f"{v}: {c:,}" for v, c in zip(vertices, counts)))
    edges, counts = np.unique(table.num_edges, return_counts=True)
    typer.echo("by edges:     " + ", ".join(f"{e}: {c:,}" for e, c in zip(edges, counts)))
    parameters = load_benchmark("nb101-lite").data.trainable_parameters  # exact counts of every cell
    low, high = int(np.argmin(parameters)), int(np.argmax(parameters))
    typer.echo(f"parameters:   {parameters[low]:,} (cell {table.hashes[low]}) to {parameters[high]:,} "
               f"(cell {table.hashes[high]}), median {int(np.median(parameters)):,}")


@app.command("import")
def import_command(
    source: Path = typer.Argument(..., help="nasbench_full.tfrecord or nasbench_only108.tfrecord"),
    out: Path = typer.Option(..., help="Directory of the converted store (replaced only when complete)."),
) -> None:
    """Convert an official NAS-Bench-101 TFRecord file into nasarena's columnar store."""
    from ..benchmarks.nb101_store import convert
    from ..io.nb101_records import RecordError
    from ..io.tfrecord import TFRecordError

    try:
        summary = convert(source, out)
    except (OSError, ValueError, RecordError, TFRecordError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"imported {summary.records:,} records of {summary.cells:,} cells in {summary.seconds:.1f} s "
               f"({summary.records / max(summary.seconds, 1e-9):,.0f} records/s) into {summary.out}")
    if summary.missing:
        typer.echo(f"warning: incomplete file: {summary.missing}; describe() says so", err=True)
    typer.echo(f"use it with nasarena.benchmark('nb101', path='{summary.out}')")


@app.command("enumerate")
def enumerate_command(
    out: Path = typer.Option(None, help="Directory to write the space table to (default: print a summary only)."),
    jobs: int = typer.Option(0, help="Parallel processes for md5 (0: all cores)."),
    old_workers: int = typer.Option(None, "--workers", hidden=True, help="Old name of --jobs."),
) -> None:
    """Rebuild the table of unique cells from scratch and check it against the shipped one."""
    import numpy as np

    from ..spaces.nb101 import unique_cells
    from ..spaces.nb101.enumeration import enumerate_space
    from ..spaces.nb101.lookup import save_enumeration
    from .vocabulary import processes

    count = processes(jobs, old_workers)
    start = time.perf_counter()
    enumeration = enumerate_space(count)
    elapsed = time.perf_counter() - start
    typer.echo(f"enumerated {len(enumeration.row_of_labelled):,} labelled graphs, "
               f"{len(enumeration.hashes):,} unique cells in {elapsed:.1f} s")
    shipped = unique_cells().hashes
    same = np.array_equal(enumeration.hashes.astype("U32"), shipped)
    typer.echo(f"identical to the shipped table: {same}")
    if out is not None:
        save_enumeration(enumeration, out)
        typer.echo(f"wrote {out}")
    if not same:
        raise typer.Exit(1)
