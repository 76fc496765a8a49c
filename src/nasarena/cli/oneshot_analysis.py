"""``nasarena oneshot correlate`` and ``nasarena oneshot tune``: the analyses of one-shot runs
(NAS-Bench-1Shot1 Sec. 5.2 and 5.3), registered on the ``oneshot`` command group."""

from __future__ import annotations

from pathlib import Path

import typer

from ..errors import InvalidSettingError
from . import vocabulary


def correlate(
    results: Path = typer.Argument(..., help="Directory written by 'nasarena oneshot run' with --set snapshot_every=N."),
    batches: int = typer.Option(1, help="Validation batches (of the run's batch size) each architecture is scored on; "
                                       "the first ones of a fixed class-mixed order of the split (those the run "
                                       "measures its one-shot error on), the same for every architecture."),
    architectures: int = typer.Option(None, help="Score a seeded random subset of this many architectures of the "
                                                 "space (default: all without loose ends, as the paper; ENAS: its "
                                                 "controller's samples)."),
    seed: int = typer.Option(0, help="Seed of the --architectures subset."),
    data: Path = typer.Option(None, help="CIFAR-10 as for 'oneshot run' (default: $NASARENA_CIFAR10, then the shared "
                                         "tarball)."),
    jobs: int = typer.Option(0, help="Parallel processes scoring at once (0: all cores)."),
    old_workers: int = typer.Option(None, "--workers", hidden=True, help="Old name of --jobs."),
    device: str = typer.Option("auto", help="Where the supernets score: auto (cuda, then mps, then cpu), cpu, cuda, "
                                            "cuda:N or mps; every process uses it."),
) -> None:
    """Correlation of one-shot and NB101 rankings per kept epoch (NAS-Bench-1Shot1 Fig. 3): scores.csv and
    correlation.csv per run; 'nasarena supernet evaluate --benchmark <space> --scores RUN/scores.csv' reads them."""
    from ..oneshot.run import SETTINGS_FILE
    from ..studies.oneshot_correlation import Scoring, score_runs, spearman_table

    processes = vocabulary.processes(jobs, old_workers)
    if seed < 0:
        raise InvalidSettingError(f"--seed must be >= 0, got {seed}")
    scoring = Scoring(batches=batches, architectures=architectures, seed=seed)
    run_dirs = sorted(p.parent for p in results.glob(f"*/seed-*/{SETTINGS_FILE}"))
    if not run_dirs:
        raise InvalidSettingError(f"{results}: no one-shot runs (<optimizer>/seed-<n>/{SETTINGS_FILE})")

    def progress(run_dir: Path, epoch: int, count: int, seconds: float) -> None:
        typer.echo(f"{run_dir.parent.name} {run_dir.name} epoch {epoch}: {count:,} architectures, "
                   f"{seconds * 1000:.1f} ms each on one process")

    count, wall = score_runs(run_dirs, scoring, data_path=str(data) if data else None, workers=processes,
                             device=device, progress=progress)
    if count:
        typer.echo(f"scored {count:,} architectures in {wall:.1f} s on {processes} process(es): "
                   f"{count / wall:.1f} architectures/s")
    table = spearman_table(run_dirs)
    typer.echo("optimizer   seed  epoch  Spearman  Kendall  scored  s/architecture")
    for row in table.itertuples():
        typer.echo(f"{row.optimizer:<10} {row.seed:>5} {row.epoch:>6}  {row.spearman:+.3f}   {row.kendall:+.3f} "
                   f"{int(row.scored):>7,}  {row.seconds_per_architecture:.4f}")
    typer.echo(f"'nasarena oneshot report {results}' draws the correlation per epoch")


def tune(
    optimizers: str = typer.Option("darts", help="One-shot optimizers, comma-separated: darts, darts-2nd, gdas, "
                                                 "pc-darts; each is tuned in <out>/<optimizer>."),
    old_optimizer: list[str] = typer.Option([], "--optimizer", hidden=True, help="Old name of --optimizers."),
    space: str = typer.Option("nb1shot1-3", help="nb1shot1-1, nb1shot1-2 or nb1shot1-3."),
    budget: int = typer.Option(..., help="Search epochs BOHB may spend per optimizer (the trials' epochs summed; "
                                         "the last group of --workers trials may pass it); rerun with a larger "
                                         "one to continue."),
    min_epochs: int = typer.Option(None, help="Smallest budget of a trial in search epochs (default 25; 1 with "
                                              "--quick)."),
    max_epochs: int = typer.Option(None, help="Largest budget (default 100; 4 with --quick)."),
    eta: int = typer.Option(2, help="BOHB's halving rate (the paper: 2)."),
    quick: bool = typer.Option(False, help="Trials in the CPU configuration of 'oneshot run --quick'."),
    set_: list[str] = typer.Option([], "--set", help="Fixed (untuned) setting [OPTIMIZER.]KEY=VALUE (repeatable): "
                                                     "channels=8 for every optimizer, gdas.channels=8 for gdas only."),
    seed: int = typer.Option(0, help="Seed of BOHB and of every search."),
    workers: int = typer.Option(1, help="BOHB's parallel workers: trials asked per round and run at once, each on "
                                        "its own process (the paper: 16). Part of the tuning setup, so of its "
                                        "result, and therefore not --jobs (0 would make it the core count)."),
    data: Path = typer.Option(None, help="CIFAR-10 as for 'oneshot run'."),
    out: Path = typer.Option(..., help="Results directory (resumable: rerun the same command)."),
) -> None:
    """BOHB over a one-shot optimizer's hyperparameters, objective the NB101 validation error (Sec. 5.4).
    The default nb101-noisy separates validation and test; with --set benchmark=nb101-lite they are one draw."""
    from ..oneshot.settings import paper_settings, quick_settings
    from ..plots.oneshot_tuning import write_tune_report
    from ..studies.oneshot_tuning import TuneSetup
    from ..studies.oneshot_tuning import tune as run_tuning
    from .oneshot_options import optimizer_names, settings_per_optimizer

    names = optimizer_names(optimizers, old_optimizer)
    if budget < 1:
        raise InvalidSettingError(f"--budget must be a positive number of search epochs, got {budget}")
    if workers < 1:
        raise InvalidSettingError(f"--workers must be at least 1, got {workers}")
    if seed < 0:
        raise InvalidSettingError(f"--seed must be >= 0, got {seed}")
    low = min_epochs if min_epochs is not None else (1 if quick else 25)
    high = max_epochs if max_epochs is not None else (4 if quick else 100)
    make = quick_settings if quick else paper_settings
    changes = settings_per_optimizer(set_, names)
    for name in names:
        base = make(name, space, **changes[name])

        def progress(result, name=name) -> None:
            typer.echo(f"{name} trial {result.number} ({result.epochs} epochs): NB101 valid accuracy "
                       f"{result.valid_accuracy:.4f}, test regret {result.test_regret:.4f}, {result.seconds:.0f} s")

        setup = TuneSetup(base, low, high, eta, seed, workers)
        results = run_tuning(setup, out / name, budget, data_path=str(data) if data else None, progress=progress)
        best = max(results, key=lambda r: (r.valid_accuracy, r.epochs))
        typer.echo(f"{name}: {len(results)} trials, incumbent trial {best.number}: valid accuracy "
                   f"{best.valid_accuracy:.4f}, test regret {best.test_regret:.4f}")
    typer.echo(f"report: {write_tune_report(out)}")


def regularise(
    optimizers: str = typer.Option("darts,gdas", help="One-shot optimizers, comma-separated."),
    old_optimizer: list[str] = typer.Option([], "--optimizer", hidden=True, help="Old name of --optimizers."),
    space: str = typer.Option("nb1shot1-3", help="nb1shot1-1, nb1shot1-2 or nb1shot1-3."),
    epochs: int = typer.Option(None, help="Epochs (default: 50; 2 with --quick)."),
    seeds: str = typer.Option("0", help="Seeds, e.g. 0-2."),
    quick: bool = typer.Option(False, help="The CPU configuration of 'oneshot run --quick'."),
    set_: list[str] = typer.Option([], "--set", help="Search setting [OPTIMIZER.]KEY=VALUE (repeatable): channels=8 "
                                                     "for every optimizer, gdas.channels=8 for gdas only (the "
                                                     "named form wins)."),
    jobs: int = typer.Option(1, help="Searches run at once: parallel processes (0: all cores)."),
    old_workers: int = typer.Option(None, "--workers", hidden=True, help="Old name of --jobs."),
    data: Path = typer.Option(None, help="CIFAR-10 as for 'oneshot run'."),
    out: Path = typer.Option(..., help="Results directory: <variant>/<optimizer>/seed-<n>/; rerun to resume."),
) -> None:
    """Cutout on/off and a weight-decay sweep (NAS-Bench-1Shot1 Appendix E): runs, then report.html."""
    from ..oneshot.settings import paper_settings, quick_settings
    from ..plots.oneshot_regularisation import write_regularisation_report
    from ..studies.oneshot_experiment import run_jobs
    from ..studies.oneshot_regularisation import plan_study
    from .oneshot_options import optimizer_names, settings_per_optimizer
    from .run_arguments import parse_seeds

    names = optimizer_names(optimizers, old_optimizer)
    processes = vocabulary.processes(jobs, old_workers)
    changes = settings_per_optimizer(set_, names)
    for name in names:
        for fixed in ("cutout", "weight_decay"):
            if fixed in changes[name]:
                raise InvalidSettingError(f"--set {fixed}=...: the study varies {fixed} itself")
        if epochs is not None:
            changes[name]["epochs"] = epochs
    make = quick_settings if quick else paper_settings
    searches = plan_study([make(name, space, **changes[name]) for name in names], parse_seeds(seeds), out)

    def progress(job, record) -> None:
        typer.echo(f"{job.run_dir.parent.parent.name} {record.optimizer} seed {record.seed} epoch {record.epoch}: "
                   f"regret {record.test_regret:.4f}, one-shot valid error {record.valid_error:.3f}")

    run_jobs(searches, data_path=str(data) if data else None, workers=processes, threads=1, progress=progress)
    typer.echo(f"report: {write_regularisation_report(out)}")
