"""``nasarena oneshot run`` and ``nasarena oneshot report``: NAS-Bench-1Shot1's one-shot searches."""

from __future__ import annotations

from pathlib import Path

import typer

from ..errors import InvalidSettingError
from . import vocabulary
from .oneshot_options import SET_HELP, optimizer_names, settings_per_optimizer

app = typer.Typer(help="One-shot NAS (DARTS, GDAS, PC-DARTS, Random-WS, ENAS) on the NAS-Bench-1Shot1 spaces.",
                  no_args_is_help=True)

@app.command()
def run(
    space: str = typer.Option("nb1shot1-3", help="nb1shot1-1, nb1shot1-2 or nb1shot1-3."),
    optimizers: str = typer.Option("darts", help="One-shot optimizers, comma-separated: darts, darts-2nd, gdas, "
                                                 "pc-darts, random-ws, enas."),
    old_optimizer: list[str] = typer.Option([], "--optimizer", hidden=True, help="Old name of --optimizers."),
    epochs: int = typer.Option(None, help="Epochs (default: 50; 2 with --quick)."),
    seeds: str = typer.Option("0", help="Seeds, e.g. 0-2 or 0,5,7-9."),
    data: Path = typer.Option(None, help="CIFAR-10: a cifar-10-batches-py folder or a JPEG tree/tarball "
                                         "(default: $NASARENA_CIFAR10, then the shared tarball)."),
    out: Path = typer.Option(..., help="Results directory (new, empty or an earlier 'oneshot run' one): "
                                       "<optimizer>/seed-<n>/ per run; rerun to resume."),
    quick: bool = typer.Option(False, help="The CPU configuration: 4 channels, 16x16 images, 50 images per "
                                           "class, 2 epochs."),
    set_: list[str] = typer.Option([], "--set", help=SET_HELP),
    benchmark: str = typer.Option("nb101-noisy", help="NB101 benchmark to look architectures up in (3 trials; "
                                                    "nb101-lite: one draw as validation and test)."),
    benchmark_path: Path = typer.Option(None, help="Directory of the imported official NB101 (--benchmark nb101)."),
    jobs: int = typer.Option(1, help="Searches run at once: parallel processes, or Ray CPUs when Ray starts here "
                                     "(0: all cores)."),
    old_workers: int = typer.Option(None, "--workers", hidden=True, help="Old name of --jobs."),
    threads: int = typer.Option(1, help="Torch threads per search. On CPUs the result depends on it (the "
                                        "order of floating-point sums), so the default 1 gives the same result "
                                        "for a seed on every backend, --jobs and machine."),
    device: str = typer.Option("auto", help="auto, cpu, cuda, cuda:N or mps."),
    backend: str = typer.Option("process", help="process or ray (a search per task, a GPU each where Ray "
                                                "sees GPUs)."),
) -> None:
    """Run (or resume) one-shot searches: every optimizer x seed, each epoch looked up in NB101."""
    from ..oneshot.settings import paper_settings, quick_settings
    from ..studies.oneshot_experiment import BACKENDS, plan, run_jobs
    from .run_arguments import parse_seeds

    names = optimizer_names(optimizers, old_optimizer)
    if len(set(names)) != len(names):
        raise InvalidSettingError(f"--optimizers names an optimizer twice: {', '.join(names)}")
    processes = vocabulary.processes(jobs, old_workers)
    if backend not in BACKENDS:
        raise InvalidSettingError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if threads < 1:
        raise InvalidSettingError(f"--threads must be at least 1, got {threads}")
    changes = settings_per_optimizer(set_, names)
    for name in names:
        if epochs is not None:
            changes[name]["epochs"] = epochs
        changes[name]["benchmark"] = benchmark
        changes[name]["benchmark_path"] = str(benchmark_path) if benchmark_path else None
    make = quick_settings if quick else paper_settings
    settings = [make(name, space, **changes[name]) for name in names]
    searches = plan(settings, parse_seeds(seeds), out)

    def progress(job, record) -> None:
        typer.echo(f"{record.optimizer} seed {record.seed} epoch {record.epoch}/{job.settings.epochs}: "
                   f"regret {record.test_regret:.4f}, one-shot valid error {record.valid_error:.3f}, "
                   f"{record.seconds:.1f} s")

    run_jobs(searches, data_path=str(data) if data else None, workers=processes, threads=threads,
             device=None if device == "auto" else device, progress=progress, backend=backend)
    typer.echo(f"{len(searches)} run(s) finished in {out}; 'nasarena oneshot report {out}' draws them")


@app.command()
def report(
    results: Path = typer.Argument(..., help="Directory written by 'nasarena oneshot run'."),
    out: Path = typer.Option(None, help="Where report.html and figures/ go (default: the results directory)."),
) -> None:
    """Regret and one-shot validation error per epoch per optimizer (median, quartiles over seeds)."""
    from ..plots.oneshot import write_oneshot_report

    typer.echo(f"wrote {write_oneshot_report(results, out)}")


from .oneshot_analysis import correlate, regularise, tune  # noqa: E402  (the analyses of runs live in their own module)

app.command()(correlate)
app.command()(tune)
app.command()(regularise)
