"""``nasarena report``: figures and a self-contained HTML report of a results directory."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer


def parse_pairs(items: list[str]) -> list[tuple[str, str]]:
    """``["re:rs"]`` -> ``[("re", "rs")]``."""
    pairs = []
    for item in items:
        a, separator, b = item.partition(":")
        if not separator or not a or not b:
            raise typer.BadParameter(f"bad pair {item!r}; use A:B, e.g. re:rs")
        pairs.append((a, b))
    return pairs


def report_command(
    results_dir: Path = typer.Argument(..., help="Results directory of `nasarena run` (with runs/ and settings.json)."),
    out: Path = typer.Option(Path("report"), help="Folder for report.html and figures/."),
    pair: list[str] = typer.Option([], help="EAF difference pair A:B (repeatable; default: the best against the next "
                                            "three)."),
    level: list[float] = typer.Option([50.0], help="Attainment surface level in % (repeatable)."),
    subsample: int = typer.Option(0, help="Runs in the subsampled ECDF (0: 20, or half the runs when fewer)."),
) -> None:
    """Write every figure (PNG and PDF) and one self-contained report.html for an experiment."""
    from ..analysis.trajectories import final_results
    from ..plots.report import write_report
    from ..plots.summary_tables import final_regret_table
    from ..runner.experiment import load_results

    try:
        report = write_report(results_dir, out, pairs=parse_pairs(pair) or None, levels=level,
                              k_subsample=subsample or None, command=shlex.join(["nasarena", *sys.argv[1:]]))
    except (ImportError, ValueError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"report: {report}")
    typer.echo(f"{'benchmark':14s} {'configuration':16s} {'runs':>5s} {'mean regret':>12s} {'median regret':>14s}")
    for row in final_regret_table(final_results(load_results(results_dir))).itertuples():
        typer.echo(f"{row.benchmark:14s} {row.label:16s} {row.runs:5d} {row.mean:12.5f} {row.median:14.5f}")
