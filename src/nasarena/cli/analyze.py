"""``nasarena analyze BENCHMARK --out DIR``: the NB101 paper's dataset study of a search space."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from ..errors import InvalidSettingError


def analyze_command(
    benchmark: str = typer.Argument(..., help="nb101-lite, nb101-slice, nb101-noisy, nb101 (with --path), or an "
                                              "NB201 benchmark (nb201-cifar10, ...)."),
    out: Path = typer.Option(Path("space-analysis"), help="Folder for space_report.html, space_analysis.json and "
                                                          "figures/."),
    path: Path = typer.Option(None, help="Folder of an imported official NB101 store (benchmark nb101)."),
    seed: int = typer.Option(0, help="Seed of the random walks and samples."),
    locality: bool = typer.Option(True, help="Compute the locality section (the slowest: about 1-2 minutes)."),
) -> None:
    """Write one self-contained HTML report and a JSON of every number about a benchmark's space."""
    from ..analysis.space.nb101 import Settings, analyze_nb101
    from ..benchmarks.registry import benchmark as load_benchmark
    from ..analysis.space.nb201 import analyze_nb201
    from ..plots.space_report import write_nb201_report, write_space_report
    from .progress import spinner

    started = time.perf_counter()
    options = {} if path is None else {"path": str(path)}
    loaded = load_benchmark(benchmark, **options)
    space_name = getattr(getattr(loaded, "space", None), "name", None)
    if space_name not in ("nb101", "nb201") or not hasattr(loaded, "data"):
        raise InvalidSettingError(f"analyze supports the tabular NB101 and NB201 benchmarks; {benchmark!r} is not one")
    with spinner(f"analysing {benchmark}"):
        if space_name == "nb201":
            report = write_nb201_report(analyze_nb201(loaded, seed=seed), out, started=started)
        else:
            analysis = analyze_nb101(loaded, Settings(seed=seed), with_locality=locality)
            report = write_space_report(analysis, out, started=started)
    typer.echo(f"wrote {report} and {report.parent / 'space_analysis.json'} "
               f"in {time.perf_counter() - started:.0f} s")
