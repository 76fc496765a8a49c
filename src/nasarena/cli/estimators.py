"""``nasarena estimators``: zero-cost proxies of architectures, computed on their exact networks.

``compute`` writes a Parquet table of proxies (one row per architecture, each proxy's value and
its measured seconds) and resumes it after an interruption; a file of other settings is refused
and kept (see :mod:`nasarena.studies.estimator_table`). ``evaluate`` judges every estimator of a table
(the embedded one by default) against tabular benchmarks with the supernet evaluation's metrics,
beside its cost (:mod:`nasarena.studies.estimator_evaluation`; ``--out``: an HTML report).
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
    unique: bool = typer.Option(False, "--unique", help="One cell per unique architecture of the benchmark's "
                                                       "de-duplication (nb201: 6,466 of the 15,625 cells)."),
    within: str = typer.Option(None, help="Draw the architectures from this benchmark's cells, a subset of the "
                                          "space: nb101-slice (NB101's 30,001 cells with real accuracies at 4, 12, "
                                          "36 and 108 epochs)."),
    jobs: int = typer.Option(1, help=vocabulary.JOBS_HELP + "; each with one torch thread."),
    device: str = typer.Option("auto", help="auto (cuda, then mps, then cpu), cpu, cuda or cuda:N."),
    data: Path = typer.Option(None, help="CIFAR-10: a cifar-10-batches-py folder, a JPEG tree or its tarball "
                                         "(default: $NASARENA_CIFAR10, then the shared tarball)."),
    image_size: int = typer.Option(32, help="Image side (the papers': 32)."),
    scale: list[str] = typer.Option([], "--scale", help="Network scale knob KNOB=VALUE (repeatable; default: the "
                                                        "paper's size), e.g. channels=8."),
    beside: Path = typer.Option(None, help="A table of the same settings computed on another device (e.g. a GPU): "
                                           "leave out the architectures it holds; the two together are the plan."),
) -> None:
    """Compute a table of zero-cost proxies (resumable; seconds per proxy included)."""
    from ..studies.estimator_table import compute_table

    processes = vocabulary.processes(jobs, None)

    def report(done: int, planned: int) -> None:
        typer.echo(f"{done:,} of {planned:,} architectures in {out}", err=True)

    frame = compute_table(space, vocabulary.split(proxies), out, sample=sample, seed=seed, unique=unique,
                          within=within, jobs=processes,
                          device=device, data=data, image_size=image_size, scale=parse_scale(scale),
                          beside=beside, on_chunk=report)
    names = vocabulary.split(proxies)
    typer.echo(f"{len(frame):,} architectures of {space} -> {out}")
    typer.echo(f"{'proxy':10s} {'median':>12s} {'seconds/arch':>13s}")
    for name in names:
        typer.echo(f"{name:10s} {frame[name].median():12.5g} {frame[f'{name}_seconds'].mean():13.4f}")


@app.command()
def evaluate(
    table: Path = typer.Option(None, help="A table of `nasarena estimators compute` (Parquet; default: the embedded "
                                          "table of the benchmarks' space, NB201 or NB101)."),
    benchmark: str = typer.Option("nb201-cifar10", "--benchmarks", help="Tabular benchmarks of the table's space giving the true "
                                                        "accuracies, comma-separated, e.g. nb201-cifar10,nb201-cifar100,"
                                                        "nb201-imagenet16-120 (same proxies, other labels) or "
                                                        "nb101-lite."),
    ks: str = typer.Option("5,10,50", help="Thresholds k of the top-architecture ID rate a1(k), comma-separated."),
    surrogate: bool = typer.Option(True, "--surrogate/--no-surrogate",
                                   help="NB201: include the built-in surrogate (on its held-out architectures)."),
    out: Path = typer.Option(None, help="Folder for an HTML report (report.html, metrics.csv, the figure quality "
                                        "against cost)."),
) -> None:
    """Rank quality of every estimator against its cost: Spearman/Kendall (all, top 10 %), a1(k) vs random.

    On NB201 the table's proxies stand beside the 12-epoch accuracy (short training), the embedded
    GDAS supernet and the built-in surrogate; on other spaces beside the benchmark's accuracy at
    each of its lower fidelities (nb101-slice: 4, 12 and 36 epochs). One table is judged against
    benchmarks of its own space only. A table holding an architecture in more than one row is
    refused (not de-duplicated), as is a k larger than the table. Undefined values (NaN, -inf)
    rank last; how many each estimator has is printed and reported.
    """
    import pandas as pd

    from ..benchmarks import benchmark as load
    from ..errors import InvalidSettingError
    from ..estimators.published import NOTE as PUBLISHED_NOTE
    from ..studies.estimator_evaluation import check_thresholds, compare_with_training, undefined_notes

    thresholds = _thresholds(ks)
    benchmarks = vocabulary.split(benchmark)
    if not benchmarks:
        raise InvalidSettingError("--benchmarks: name at least one benchmark, e.g. nb201-cifar10")
    spaces = {name: load(name).space.name for name in benchmarks}
    frame, settings, origin = _table(table, spaces[benchmarks[0]])
    foreign = [name for name in benchmarks if spaces[name] != settings["space"]]
    if foreign:
        raise InvalidSettingError(
            f"--benchmarks {benchmark}: one table is judged against benchmarks of its own space, and {origin} is a "
            f"table of the {settings['space']} space; "
            + ", ".join(f"{name} is over the {spaces[name]} space" for name in foreign)
            + f": evaluate {'it' if len(foreign) == 1 else 'them'} in a separate call (--benchmarks "
              f"{','.join(foreign)}{'' if table is None else ' and a --table of that space'})")
    check_thresholds(thresholds, len(frame))
    # the space's own comparison (NB201: short training, the embedded supernet, the surrogate), else the proxies alone
    comparison = _estimator_comparison(settings["space"])
    results: dict[str, pd.DataFrame] = {}
    for name in benchmarks:
        if comparison is not None:
            results[name] = comparison(frame, name, thresholds, surrogate=surrogate)
        else:
            results[name] = compare_with_training(frame, name, thresholds, settings["space"])
    notes = [f"{len(frame):,} architectures of {settings['space']} ({origin}, seed {settings['seed']}); the truth: "
             "each benchmark's validation accuracy at its highest fidelity.", f"{PUBLISHED_NOTE}.",
             "The proxies are computed on CIFAR-10 images whatever the labels"
             + ("; the supernet and the surrogate are CIFAR-10 ones too, and the 12-epoch accuracy is the benchmark's "
                "own: on CIFAR-100 and ImageNet16-120 the same scores are judged against other labels."
                if comparison is not None else ".")]
    for name, metrics in results.items():
        typer.echo(f"\n{name}:")
        _print(metrics, thresholds)
        for line in metrics.attrs.get("skipped", []):
            typer.echo(f"left out: {line}")
        for line in undefined_notes(metrics):
            typer.echo(line)
    for note in notes:
        typer.echo(note)
    if out is not None:
        from ..plots.estimators_report import write_estimators_report
        from ..plots.staging import owned_output

        with owned_output(out, "estimators evaluate"):
            report = write_estimators_report(results, thresholds, out, notes)
        typer.echo(f"report: {report}")


def _estimator_comparison(space: str):
    """The function comparing every estimator on a table of ``space`` that the space declares as
    ``estimator_comparison`` (:mod:`nasarena.spaces.protocol`; NB201's
    :func:`nasarena.studies.estimator_evaluation.compare_estimators`), or None: the proxies alone."""
    from ..spaces.protocol import resolve
    from ..spaces.registry import SPACES, spaces_with

    return resolve(SPACES[space].estimator_comparison) if space in spaces_with("estimator_comparison") else None


def _thresholds(ks: str) -> list[int]:
    from ..errors import InvalidSettingError

    try:
        return [int(k) for k in vocabulary.split(ks)]
    except ValueError:
        raise InvalidSettingError(f"--ks {ks!r}: whole numbers, comma-separated, e.g. 5,10,50") from None


def _table(table: Path | None, space: str):
    """The table to evaluate (without ``table``: the embedded one of ``space``), its settings and
    the words for where it comes from; a file that is not a table as compute writes it is refused
    saying what is wrong (:func:`nasarena.studies.estimator_table.read_table`)."""
    from ..estimators.embedded import embedded_table
    from ..studies.estimator_table import read_table

    if table is None:
        frame = embedded_table(space)
        return frame, frame.attrs["settings"], "the embedded table"
    frame, settings = read_table(table)
    return frame, settings, str(table)


def _print(metrics, thresholds: list[int]) -> None:
    """One line per estimator: quality, a1(k) against random, undefined values, seconds per architecture."""
    columns = ["n", "spearman", "published_spearman", "kendall", "spearman_top10", "kendall_top10", "precision_top10",
               *(f"a1@{k}" for k in thresholds), *(f"random@{k}" for k in thresholds), "undefined", "seconds"]
    width = max(12, *(len(name) for name in metrics["estimator"]))
    typer.echo(f"{'estimator':{width}s} " + " ".join(f"{column:>10s}" for column in columns))
    for _, row in metrics.iterrows():
        typer.echo(f"{row['estimator']:{width}s} " + " ".join(f"{row[column]:10.4g}" for column in columns))


@app.command("proxies")
def list_proxies() -> None:
    """List the zero-cost proxies: name, images read, paper and the variant computed."""
    from typing import cast

    from ..estimators import PROXIES, Proxy

    for name in PROXIES:
        proxy = cast(Proxy, PROXIES[name])
        data = f"{proxy.batch} images" if proxy.batch else "no data"
        typer.echo(f"{name:10s} {data:11s} {proxy.paper}: {proxy.variant}")
