"""``nasarena surrogate fit | evaluate | info | validate``: surrogate benchmarks from data files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer

from ..errors import InvalidSettingError, OutputError
from ..io.files import atomic_write_bytes
from ..plots.surrogate_validation import DEFAULT_OPTIMIZERS
from .run import parse_seeds
from .values import parse_assignments

app = typer.Typer(help="Fit, evaluate, describe and validate surrogate benchmarks.", no_args_is_help=True)


def parse_settings(items: list[str], model: str | None = None) -> tuple[tuple[str, object], ...]:
    """``["n_estimators=300", "xgb.max_depth=6"]`` -> model settings (values parsed as JSON); a
    ``MODEL.`` prefix may name ``model``, and no other."""
    from .vocabulary import own_settings

    if model is not None:
        items = own_settings(items, model, "model", "n_estimators=300")
    return tuple(parse_assignments(items, "--set", "n_estimators=300").items())


def _fail(error: Exception) -> None:
    typer.echo(f"error: {error}", err=True)
    raise typer.Exit(2)


@app.command()
def fit(
    data: Path = typer.Argument(..., help="CSV or Parquet of training runs: arch, valid_accuracy [, cost_seconds, "
                                          "source, fidelity, test_accuracy]."),
    space: str = typer.Option(..., help="Search space of the architectures: nb101, nb201, darts or fbnet."),
    name: str = typer.Option(..., help="Artefact name <space>-<model>-v<major>.<minor>, e.g. nb101-xgb-v1.0."),
    out: Path = typer.Option(..., help="Artefact file to write."),
    model: str = typer.Option("xgb", help="Surrogate model: xgb, lgb, rf, svr, nu-svr, ngb, mlp, gin."),
    members: int = typer.Option(5, help="Ensemble members (seeded learners; their spread is the noise model)."),
    seed: int = typer.Option(0, help="Seed of the split and of the members."),
    encoding: str = typer.Option(None, help="Architecture encoding (default: the space's fixed-size one)."),
    fidelity: int = typer.Option(None, help="Epochs of the runs when the data has no fidelity column."),
    setting: list[str] = typer.Option([], "--set", help="Model setting [MODEL.]KEY=VALUE (repeatable), e.g. "
                                                        "n_estimators=300 (MODEL. may name --model)."),
    no_runtime: bool = typer.Option(False, "--no-runtime", help="Fit no runtime model (cost: 1 simulated second per "
                                                                 "epoch)."),
) -> None:
    """Fit a surrogate benchmark on a data file and save it as a versioned, checksummed artefact.

    ``--out`` may name a new file or an earlier artefact, never a file nasarena did not write;
    it is checked before the (long) fit, and held against a second writer with other settings."""
    from dataclasses import asdict

    from ..io.outputs import writer_lock
    from ..surrogates.artifact import check_replaceable, save
    from ..surrogates.data import read_training_data
    from ..surrogates.fitting import fit_surrogate
    from ..surrogates.settings import FitSettings
    from ..surrogates.spaces import space_by_name
    from .progress import spinner

    check_replaceable(out, "--out")
    try:
        settings = FitSettings(model, members, seed, encoding, parse_settings(setting, model), runtime=not no_runtime)
        fingerprint = {"data": str(data.resolve()), "space": space, "name": name, "fidelity": fidelity,
                       "settings": asdict(settings)}
        with writer_lock(out, fingerprint):
            training = read_training_data(data, space_by_name(space), fidelity)
            for note in training.notes:
                typer.echo(f"data: {note}")
            with spinner(f"fitting {settings.members} {model} member(s) on {len(training):,} runs"):
                artifact = fit_surrogate(training, space, name, settings)
            path = save(artifact, out)
    except (ValueError, KeyError, ImportError, FileNotFoundError) as error:
        _fail(error)
    typer.echo(f"{artifact.name}: {len(training):,} runs, fidelities {list(artifact.fidelities)}, "
               f"{path.stat().st_size / 1e6:.2f} MB -> {path}")
    for validation in artifact.validations:
        typer.echo("  " + validation.to_text())
    typer.echo(f"optimum {artifact.optimum.value:.5f} over {artifact.optimum.over}")


@app.command()
def evaluate(
    artefact: str = typer.Argument(..., help="Artefact file, or the name of a built-in surrogate."),
    data: Path = typer.Argument(..., help="CSV or Parquet of runs to predict (the columns of `fit`)."),
    fidelity: int = typer.Option(None, help="Epochs of the runs when the data has no fidelity column."),
    json_out: Path = typer.Option(None, "--json", help="Also write the metrics as JSON here."),
) -> None:
    """Fit metrics of a surrogate on every run of a data file (R2, MAE, Kendall, sparse Kendall, Spearman, KL)."""
    from ..benchmarks.surrogate import open_surrogate
    from ..surrogates.data import read_training_data
    from ..surrogates.encoding import ArchitectureEncoder
    from ..surrogates.evaluation import evaluate as evaluate_runs
    from .progress import spinner

    if json_out is not None and not json_out.parent.is_dir():
        raise OutputError(f"--json {json_out}: its folder {json_out.parent} does not exist")
    try:
        with spinner(f"loading {artefact}"):
            bench = open_surrogate(artefact)
        runs = read_training_data(data, bench.space, fidelity)
        validations = evaluate_runs(bench.artifact, runs, range(len(runs)), f"file {data.name}",
                                    ArchitectureEncoder(bench.space, bench.artifact.encoding))
    except (ValueError, KeyError, ImportError, FileNotFoundError) as error:
        _fail(error)
    if not validations:
        _fail(ValueError(f"{data} holds fewer than 2 runs at any fidelity of {bench.name} "
                         f"({list(bench.fidelities)})"))
    for validation in validations:
        typer.echo(validation.to_text())
    if json_out is not None:
        records = [{"data": v.data, "fidelity": v.fidelity, "target": v.target, **v.metrics.to_dict(),
                    "kl_divergence": v.kl_divergence, "repeated_architectures": v.repeated_architectures}
                   for v in validations]
        try:
            atomic_write_bytes(json_out, (json.dumps(records, indent=2) + "\n").encode())
        except OSError as error:
            raise OutputError(f"--json {json_out}: cannot write it ({error.strerror or error})") from None


@app.command()
def info(artefact: str = typer.Argument(..., help="Artefact file, or the name of a built-in surrogate.")) -> None:
    """What a surrogate benchmark is: space, fidelities, data manifest, validation metrics, semantics."""
    from ..benchmarks.surrogate import open_surrogate
    from .progress import spinner

    try:
        with spinner(f"loading {artefact}"):
            bench = open_surrogate(artefact)
    except (ValueError, KeyError, ImportError, FileNotFoundError) as error:
        _fail(error)
    typer.echo(bench.describe().to_text())


@app.command()
def validate(
    surrogate: str = typer.Argument(..., help="Built-in surrogate name, or an artefact file."),
    out: Path = typer.Option(Path("surrogate-validation"), help="Folder for summary.json, runs and figures: new, "
                                                                "empty, or an earlier validation of the surrogate."),
    table: str = typer.Option(None, help="Benchmark to compare with (default: the table the surrogate was fitted "
                                         "from)."),
    optimizers: str = typer.Option(",".join(DEFAULT_OPTIMIZERS), help="Optimizers, comma-separated; those not "
                                   "registered are left out (and listed)."),
    seeds: str = typer.Option("0-19", help="Seeds, e.g. 0-19."),
    budget: float = typer.Option(None, help="Budget in simulated seconds (default: 300 median training times of "
                                            "the table)."),
    sizes: str = typer.Option("100,300,1000,3000,10000,30000,100000,1000000",
                              help="Learning-curve training sizes (architectures; clipped to the training split)."),
    curve_members: int = typer.Option(1, help="Ensemble members of the learning-curve fits."),
    data: Path = typer.Option(None, help="Data file of the learning curve (default for built-ins: their table)."),
    case_study: bool = typer.Option(False, "--case-study", help="Also run local search for 10x the budget (NB301 "
                                                                "Sec. 4)."),
    factor: float = typer.Option(10.0, help="Budget factor of the case study."),
    jobs: int = typer.Option(1, help="Parallel processes for the optimizer runs (0: all cores)."),
) -> None:
    """Learning curves and optimizer trajectories on the surrogate vs the table (NB301 Sec. 3, 4)."""
    from ..plots.surrogate_validation import ValidationPlan
    from ..plots.surrogate_validation import validate as run_validation
    from .benchmarks import required_path
    from .progress import spinner
    from .vocabulary import processes

    _check_validation_numbers(budget, sizes, curve_members, factor)
    jobs = processes(jobs, None)
    needed = required_path(table) if table is not None else None
    if needed:
        raise InvalidSettingError(f"--table {table} is read from files ({needed}), which `surrogate validate` cannot "
                                  "pass: compare with an embedded table of the same space")
    try:
        plan = ValidationPlan(
            optimizers=tuple(o.strip() for o in optimizers.split(",") if o.strip()), seeds=tuple(parse_seeds(seeds)),
            budget_seconds=budget, curve_sizes=tuple(int(s) for s in sizes.split(",") if s.strip()),
            curve_members=curve_members, case_study=case_study, case_study_factor=factor, jobs=jobs)
        with spinner(f"validating {surrogate}: learning curves and {len(plan.seeds)} seeds per optimizer"):
            summary = run_validation(surrogate, out, plan, table=table, data_file=data)
    except (ValueError, KeyError, ImportError, FileNotFoundError) as error:
        _fail(error)
    typer.echo(f"{summary.surrogate} vs {summary.table}: {len(summary.seeds)} seeds, budget "
               f"{summary.budget_seconds:.4g} s")
    typer.echo(f"{'optimizer':10s} {'surrogate':>12s} {'table':>12s}   (final mean regret)")
    for name, regrets in summary.final_mean_regret.items():
        typer.echo(f"{name:10s} {regrets['surrogate']:12.5f} {regrets['table']:12.5f}")
    tau = summary.kendall_tau_of_optimizer_ranking
    typer.echo(f"Kendall tau of the optimizers' ranking, surrogate vs table: "
               f"{f'{tau:.3f}' if math.isfinite(tau) else 'undefined (see the note below)'}")
    for point in summary.learning_curve:
        typer.echo(f"learning curve: {point['training_architectures']:>8,} architectures, {point['fidelity']} "
                   f"epochs: MAE {point['mae']:.5f}, sparse Kendall {point['sparse_kendall_tau']:.4f}")
    if summary.case_study:
        study = summary.case_study
        for role in ("surrogate", "table"):
            typer.echo(f"case study (ls) on the {role}: mean regret {study[role]['mean_regret_at_budget']:.5f} at "
                       f"{study['budget_seconds']:.4g} s, {study[role]['mean_regret_at_long_budget']:.5f} at "
                       f"{study['long_budget_seconds']:.4g} s")
    for note in summary.notes:
        typer.echo(f"note: {note}")
    typer.echo(f"summary: {out / 'summary.json'}")


def _check_validation_numbers(budget: float | None, sizes: str, curve_members: int, factor: float) -> None:
    """``validate``'s numbers, checked before the (long) learning curves start."""
    if budget is not None and not (math.isfinite(budget) and budget > 0):
        raise InvalidSettingError(f"--budget must be a finite number of simulated seconds > 0, got {budget}")
    try:
        values = [int(s) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise InvalidSettingError(f"--sizes {sizes!r}: use comma-separated whole numbers, e.g. 100,1000") from None
    if not values or min(values) < 2:
        raise InvalidSettingError(f"--sizes {sizes!r}: every training size must be at least 2 architectures")
    if curve_members < 1:
        raise InvalidSettingError(f"--curve-members must be at least 1, got {curve_members}")
    if not (math.isfinite(factor) and factor > 1):
        raise InvalidSettingError(f"--factor must be a finite number > 1, got {factor}")
