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
    from ..analysis.space.sampled import analyze_sampled
    from ..benchmarks.registry import benchmark as load_benchmark
    from ..plots.space_report import EARLIER_OUTPUT, JSON_FILE, write_sampled_report
    from ..plots.staging import owned_output
    from ..spaces.protocol import resolve
    from .benchmarks import path_options
    from .progress import spinner

    if samples < 3:
        raise InvalidSettingError(f"--samples must be at least 3, got {samples}")
    options = path_options(benchmark, path)
    started = time.perf_counter()
    with owned_output(out, "analyze", recognised=EARLIER_OUTPUT):  # before the work, removed if it fails
        loaded = load_benchmark(benchmark, **options)
        if hasattr(loaded, "nb101"):  # an NB-1Shot1 space: its NB101 table, whose report has the 1Shot1 section
            typer.echo(f"{benchmark}: analysing its NB101 table {loaded.nb101.name} (the NB-1Shot1 spaces are a "
                       "section)")
            loaded = loaded.nb101
        study = getattr(getattr(loaded, "space", None), "dataset_study", None)  # NB101's, NB201's
        sampled = hasattr(loaded, "predict") and not hasattr(loaded, "data")
        if not sampled and (study is None or not hasattr(loaded, "data")):
            raise InvalidSettingError(f"analyze supports the tabular NB101 and NB201 benchmarks and surrogate "
                                      f"benchmarks; {benchmark!r} is neither")
        with spinner(f"analysing {benchmark}"):
            if sampled:
                report = write_sampled_report(analyze_sampled(loaded, samples=samples, seed=seed), out,
                                              started=started)
            else:
                report = resolve(study)(loaded, out, seed=seed, locality=locality, started=started)
    typer.echo(f"wrote {report} and {report.parent / JSON_FILE} in {time.perf_counter() - started:.0f} s")


def nb101_study(benchmark, out: Path, *, seed: int, locality: bool, started: float) -> Path:
    """The NB101 paper's dataset study of a tabular NB101 benchmark, written to ``out``: the
    ``dataset_study`` the NB101 space declares (:mod:`nasarena.spaces.protocol`)."""
    from ..analysis.space.nb101 import Settings, analyze_nb101
    from ..plots.space_report import write_space_report

    return write_space_report(analyze_nb101(benchmark, Settings(seed=seed), with_locality=locality), out,
                              started=started)


def nb201_study(benchmark, out: Path, *, seed: int, locality: bool, started: float) -> Path:
    """The dataset study of a tabular NB201 benchmark, written to ``out``: the ``dataset_study``
    the NB201 space declares. ``locality`` belongs to the capability's signature; NB201's study
    has no such switch."""
    from ..analysis.space.nb201 import analyze_nb201
    from ..plots.space_report import write_nb201_report

    return write_nb201_report(analyze_nb201(benchmark, seed=seed), out, started=started)
