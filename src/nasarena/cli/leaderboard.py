"""``nasarena leaderboard``: optimizers ranked on every single-objective benchmark family, one page."""

from __future__ import annotations

from pathlib import Path

import typer

from ..errors import InvalidSettingError
from ..studies.leaderboard_scales import SCALES
from .run_arguments import check_optimizers, parse_seeds
from .vocabulary import split


def leaderboard_command(
    benchmarks: str = typer.Option(None, help="Comma-separated benchmarks (default: every family's that can run "
                                              "here: NB101 3-trial, NB201 x 3, NB-1Shot1 x 3, nb301, NAS-Bench-Graph)."),
    optimizers: str = typer.Option(None, help="Comma-separated optimizers (default: the scale's)."),
    seeds: str = typer.Option(None, help="Seeds, e.g. 0-4 (default: the scale's)."),
    scale: str = typer.Option("small", help="; ".join(s.describe() for s in SCALES.values())
                              + " (small: minutes on a laptop; full: a paper's setting)."),
    jobs: int = typer.Option(1, help="Processes (0: all cores)."),
    out: Path = typer.Option(Path("leaderboard"), help="Folder of the runs (resumed) and leaderboard.md."),
) -> None:
    """Run a set of optimizers on every benchmark family under one protocol and write one page:
    per-benchmark mean ranks, the ranking across benchmarks with its critical-difference diagram
    (Friedman/Nemenyi, Demšar 2006) and Kendall's W of the benchmarks' rankings. Budgets count
    full trainings: each run gets the simulated time of N trainings of a median architecture of
    its benchmark."""
    import os

    from ..io.files import atomic_write_bytes
    from ..studies.leaderboard import check_benchmarks, default_benchmarks, markdown, run_leaderboard

    if scale not in SCALES:
        raise InvalidSettingError(f"--scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if jobs < 0:
        raise InvalidSettingError(f"--jobs must be 0 (all cores) or more, got {jobs}")
    if benchmarks:
        chosen, left_out = split(benchmarks), {}
        check_benchmarks(chosen)
    else:
        chosen, left_out = default_benchmarks()
    names = split(optimizers) if optimizers else None
    if names is not None:
        check_optimizers(names)
    board = run_leaderboard(chosen, SCALES[scale], out, jobs=jobs or os.cpu_count() or 1, optimizers=names,
                            seeds=parse_seeds(seeds) if seeds else None)
    page = out / "leaderboard.md"
    text = f"# Leaderboard ({scale} scale)\n\n" + markdown(board, left_out) + "\n"
    if board.across is not None:
        try:
            from ..plots.backend import save_figure
            from ..plots.critical_difference import critical_difference_figure
        except ImportError:
            text += "\n(The critical-difference diagram needs matplotlib: pip install 'nasarena[plots]'.)\n"
        else:
            save_figure(critical_difference_figure(board.across, title="mean rank over benchmarks"),
                        out / "critical_difference")
            text += "\n![critical-difference diagram](critical_difference.png)\n"
    atomic_write_bytes(page, text.encode("utf-8"))
    typer.echo(markdown(board, left_out))
    typer.echo(f"\nwrote {page}")
