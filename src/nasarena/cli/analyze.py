"""``nasarena analyze BENCHMARK --out DIR``: the NB101 paper's dataset study of a search space."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from ..errors import InvalidSettingError


def analyze_command(
    benchmark: str = typer.Argument(..., help="nb101-lite, nb101-slice, nb101-noisy, nb101 (with --path), an NB201 "
                                              "benchmark, an NB-1Shot1 space (its NB101 table), or a surrogate."),
    out: Path = typer.Option(Path("space-analysis"), help="Folder for space_report.html, space_analysis.json and "
                                                          "figures/: new, empty, or one this command wrote."),
    path: Path = typer.Option(None, help="Folder of an imported official NB101 store (benchmark nb101), or an "
                                         "artefact file of `nasarena surrogate fit` (benchmark surrogate)."),
    seed: int = typer.Option(0, help="Seed of the random walks and samples."),
    locality: bool = typer.Option(True, help="Compute the locality section (the slowest: about 1-2 minutes)."),
    samples: int = typer.Option(2_000, help="Surrogate benchmarks: architectures sampled (with --seed)."),
) -> None:
    """Write one self-contained HTML report and a JSON of every number about a benchmark's space.

    Tabular benchmarks are analysed exactly over their whole table; surrogate benchmarks by a
    seeded sample (--samples, --seed), and every number of theirs is modelled.
    """
    from ..analysis.space.nb101 import Settings, analyze_nb101
    from ..analysis.space.nb201 import analyze_nb201
    from ..analysis.space.sampled import analyze_sampled
    from ..benchmarks.registry import benchmark as load_benchmark
    from ..plots.space_report import (
        JSON_FILE,
        REPORT_FILE,
        write_nb201_report,
        write_sampled_report,
        write_space_report,
    )
    from ..plots.staging import owned_output
    from .benchmarks import path_options
    from .progress import spinner

    if samples < 3:
        raise InvalidSettingError(f"--samples must be at least 3, got {samples}")
    options = path_options(benchmark, path)
    started = time.perf_counter()
    with owned_output(out, "analyze", recognised=(REPORT_FILE, JSON_FILE)):  # before the work, removed if it fails
        loaded = load_benchmark(benchmark, **options)
        if hasattr(loaded, "nb101"):  # an NB-1Shot1 space: its NB101 table, whose report has the 1Shot1 section
            typer.echo(f"{benchmark}: analysing its NB101 table {loaded.nb101.name} (the NB-1Shot1 spaces are a "
                       "section)")
            loaded = loaded.nb101
        space_name = getattr(getattr(loaded, "space", None), "name", None)
        sampled = hasattr(loaded, "predict") and not hasattr(loaded, "data")
        if not sampled and (space_name not in ("nb101", "nb201") or not hasattr(loaded, "data")):
            raise InvalidSettingError(f"analyze supports the tabular NB101 and NB201 benchmarks and surrogate "
                                      f"benchmarks; {benchmark!r} is neither")
        with spinner(f"analysing {benchmark}"):
            if sampled:
                report = write_sampled_report(analyze_sampled(loaded, samples=samples, seed=seed), out,
                                              started=started)
            elif space_name == "nb201":
                report = write_nb201_report(analyze_nb201(loaded, seed=seed), out, started=started)
            else:
                analysis = analyze_nb101(loaded, Settings(seed=seed), with_locality=locality)
                report = write_space_report(analysis, out, started=started)
    typer.echo(f"wrote {report} and {report.parent / JSON_FILE} in {time.perf_counter() - started:.0f} s")
