"""``nasarena run``: a grid of benchmarks x optimizers x seeds, with a progress bar and a summary."""

from __future__ import annotations

from pathlib import Path

import typer

from .run_arguments import parse_overrides, parse_seeds  # noqa: F401  (parse_seeds: also used by `surrogate`)

#: The benchmark of a plain ``nasarena run`` (see ``_default_benchmark``).
DEFAULT_BENCHMARK = "nb101-noisy"


def run_command(
    benchmarks: str = typer.Option(None, help="Benchmark names, comma-separated (see `nasarena benchmarks`); "
                                              "default nb101-noisy (3 trials: the incumbent is scored on its mean, not on the draw that "
                                              "chose it; nb101-lite is the single-draw table, by name only)."),
    old_benchmark: str = typer.Option(None, "--benchmark", hidden=True, help="Old name of --benchmarks."),
    optimizers: str = typer.Option(None, help="Optimizer names, comma-separated (see `nasarena optimizers`); "
                                              "default rs,re, with --preset all of the preset's (or some of them)."),
    seeds: str = typer.Option(None, help="Seeds, e.g. 0-99 or 0,5,7-9 (each once, 0 to 2^63-1); default 0-9, "
                                         "with --preset its 20 seeds (0-19)."),
    budget: float = typer.Option(1e7, help="Budget in simulated seconds of training (finite, > 0)."),
    max_evaluations: int = typer.Option(None, help="Also stop after this many evaluations (>= 1)."),
    out: Path = typer.Option(Path("results"), help="Results directory (resumes what is there)."),
    jobs: int = typer.Option(0, help="Parallel processes (0: all cores)."),
    backend: str = typer.Option("process", help="process or ray."),
    workers: int = typer.Option(1, help="Asynchronous workers of each run's optimizer, in simulated time (>= 1; "
                                        "part of the protocol, so of the results; processes are --jobs)."),
    caching: bool = typer.Option(False, "--caching", help="Each architecture is evaluated once: proposed again, it is answered from the cache "
                                 "at no cost and is no evaluation (the anytime paper's setup C)."),
    count_optimizer_time: bool = typer.Option(False, "--count-optimizer-time",
                                              help="Add the optimizer's CPU time to the clock."),
    setting: list[str] = typer.Option([], "--set", help="Optimizer setting [OPTIMIZER.]KEY=VALUE (repeatable): "
                                      "re.population_size=50 for re only, population_size=50 for every optimizer "
                                      "of --optimizers (each must have it; the named form wins)."),
    path: Path = typer.Option(None, help="Data of benchmarks loaded from files: the store directory of `nasarena "
                                         "nb101 import` for nb101, the artefact file for surrogate."),
    space: str = typer.Option(None, help="Search space of a benchmark that takes one (live: nb101, nb201, darts)."),
    benchmark_option: list[str] = typer.Option([], "--benchmark-option", help="KEY=VALUE for the benchmark's loader "
                                               "(repeatable), e.g. for live: protocol=quick, image_size=16, subset=100, "
                                               "channels=8, data=DIR, store=DIR. Not part of run file names: use one "
                                               "--out per setting."),
    objectives: str = typer.Option(None, help="Two or more minimised objectives, comma-separated, for multi-objective "
                                              "optimizers: error, latency:DEVICE, params, flops (e.g. "
                                              "error,latency:pixel3; devices: `nasarena benchmarks NAME`). Runs are "
                                              "scored against the exact true Pareto front."),
    constraint: str = typer.Option(None, help="A latency bound latency:DEVICE<=MS (e.g. latency:pixel3<=5): the "
                                              "incumbent is the best evaluation within it, and single-objective "
                                              "regret is measured from the best architecture within it."),
    preset: str = typer.Option(None, help="A named experiment (anytime-O, anytime-VS, anytime-C, anytime-CVS) with "
                                          "its optimizers, settings, caching, 20 seeds and 1e7 s; --optimizers and "
                                          "--seeds may choose among them, --budget, --max-evaluations, --caching and "
                                          "--set are refused."),
) -> None:
    """Compare NAS optimizers on benchmarks under one protocol; results go to OUT/runs/*.parquet.

    Every argument is checked before anything is loaded or written.
    """
    from ..runner import Budget, RunSettings
    from ..runner.experiment import RUNS_DIR, grid, load_results, pending, run_experiment
    from . import run_arguments as check
    from .progress import RunProgress
    from .summary import print_final_regret
    from .vocabulary import plural, split

    check.check_numbers(budget, max_evaluations, workers, jobs)
    check.check_backend(backend)
    benchmarks = split(plural(benchmarks, old_benchmark, "--benchmark", "--benchmarks", "benchmarks",
                               "nb201-cifar10,nb201-cifar100")
                       or _default_benchmark(preset))
    names = split(optimizers or "rs,re")
    options = {**check.check_benchmarks(benchmarks, path), **_loader_options(space, benchmark_option)}
    check.check_live_space(benchmarks, options)
    check.check_optimizers(names)
    overrides = parse_overrides(setting, names)
    check.check_overrides(overrides, names, check.plain_settings(setting))
    seed_list = parse_seeds(seeds or "0-9")
    check.check_run_count(len(benchmarks), len(names), len(seed_list))
    labels = check.check_objectives(objectives, constraint, benchmarks, options, names)
    specs = grid(benchmarks, names, seed_list, Budget(seconds=budget, evaluations=max_evaluations), overrides,
                 RunSettings(n_workers=workers, caching=caching, count_optimizer_time=count_optimizer_time,
                             objectives=labels, constraint=constraint), options)
    if preset is not None:  # a named experiment replaces the grid (see runner.presets)
        check.check_preset_fixes(preset, budget, max_evaluations, caching, setting, objectives or constraint)
        specs = _preset_specs(preset, benchmarks, options, names if optimizers else None,
                              seed_list if seeds else None)
    check.check_optimizer_construction(specs)
    todo = pending(specs, out)
    _announce_training(todo, budget)
    typer.echo(f"{len(specs)} runs, {len(specs) - len(todo)} already in {out}, {len(todo)} to run")
    with RunProgress(len(todo)) as progress:
        try:
            run_experiment(specs, out, jobs=jobs or None, backend=backend, on_finished=progress.finish_run,
                           on_progress=progress.advance_run)
        except KeyboardInterrupt:
            typer.echo(f"interrupted: {len(progress.finished)} of {len(todo)} runs finished and are kept in {out}; "
                       "the same command runs the rest", err=True)
            raise typer.Exit(130) from None
    if labels:  # the single-objective table would score only each front's most accurate member
        _print_final_hypervolume_regret(load_results(out, specs))
    else:
        print_final_regret(load_results(out, specs))
    others = len(list((out / RUNS_DIR).glob("[!.]*.parquet"))) - len(specs)
    if others > 0:
        typer.echo(f"{out} also holds {others} run(s) of other commands, not in this table (the report shows every "
                   "finished run)")
    typer.echo(f"figures and statistical tests: nasarena report {out} --out {out}-report")


def _print_final_hypervolume_regret(results) -> None:
    """Per problem (benchmark, objectives and any constraint) and optimizer: the median final
    hypervolume regret and IGD+ of the found fronts against the exact true front (see
    analysis.multiobjective), in the region of interest first (the default score: the whole box
    of an NB201 front is mostly cells no one would deploy), then over the whole front."""
    from ..analysis.multiobjective import PROBLEM, final_scores, front_trajectories
    from ..analysis.pareto import MAX_ERROR_ABOVE_BEST, REFERENCE

    final = final_scores(front_trajectories(results))  # a problem names its constraint (analysis.problem_name)
    typer.echo("final found fronts (test values of the validation front) against the true Pareto front (of the "
               "cells within the bound, for constrained runs), medians over runs:")
    typer.echo(f"hypervolume regret and IGD+ in the region of interest (ROI, the default score: the true front at "
               f"most {MAX_ERROR_ABOVE_BEST:g} error above its best, normalised by that part's ideal and nadir) and "
               f"over the whole front (full); reference point {REFERENCE} in each normalised objective")
    width = max(16, *(len(name) for name in final["label"]))
    problem_width = max(36, *(len(name) for name in final[PROBLEM]))
    typer.echo(f"{'problem':{problem_width}s} {'configuration':{width}s} {'runs':>5s} {'HV regret ROI':>13s} "
               f"{'IGD+ ROI':>8s} {'HV regret full':>14s} {'IGD+ full':>9s} {'front size':>10s}")
    for (problem, name), group in final.groupby([PROBLEM, "label"], sort=True):
        medians = group[["hv_regret_roi", "igd_plus_roi", "hv_regret", "igd_plus", "front_size"]].median()
        typer.echo(f"{problem:{problem_width}s} {name:{width}s} {len(group):5d} {medians['hv_regret_roi']:13.4f} "
                   f"{medians['igd_plus_roi']:8.4f} {medians['hv_regret']:14.4f} {medians['igd_plus']:9.4f} "
                   f"{medians['front_size']:10.1f}")


def _default_benchmark(preset: str | None) -> str:
    """The 3-trial ``nb101-noisy`` for a plain grid, a preset's own benchmark with a preset.

    Not the single-draw ``nb101-lite``: there validation and test accuracy are one draw, so the
    incumbent is scored on the very draw that selected it, and local search, which exploits
    that draw hardest, looks best (issue 38: on nb101-lite LS < RE < REINFORCE < RS in mean final
    regret, on the 3-trial table RE < REINFORCE < LS < RS, Friedman p 0.0006)."""
    from ..studies.anytime_presets import preset as named

    return DEFAULT_BENCHMARK if preset is None else named(preset).benchmark


def _preset_specs(name: str, benchmarks: list[str], options: dict, optimizers: list[str] | None,
                  seeds: list[int] | None):
    from ..studies.anytime_presets import preset

    chosen = preset(name)
    specs = chosen.specs(benchmarks, seeds, options, optimizers)
    typer.echo(f"{chosen.name}: {chosen.summary}")
    if optimizers or seeds:
        typer.echo(f"  chosen: {', '.join(sorted({s.optimizer for s in specs}))}; {len({s.seed for s in specs})} seeds")
    return specs


def _announce_training(todo, budget: float) -> None:
    """Before a live run trains anything: the estimated work of one architecture on this machine,
    and the most a run may take (its budget is measured training time), so days of silent work on
    a CPU are seen before they start."""
    from ..runner.experiment import _benchmark

    for name, options in sorted({(spec.benchmark, spec.benchmark_options) for spec in todo}):
        if name != "live":
            continue
        estimate = _benchmark(name, options).estimate_training()
        typer.echo(f"live ({dict(options).get('space')}): {estimate}; each of {len(todo)} run(s) trains until "
                   f"{budget:,.0f} s of measured training time are spent (--budget)", err=True)


def _loader_options(space: str | None, items: list[str]) -> dict[str, str]:
    """``--space`` and ``--benchmark-option KEY=VALUE`` as the benchmark loader's keyword options."""
    from .values import parse_assignments

    options = {} if space is None else {"space": space}
    options.update(parse_assignments(items, "--benchmark-option", "image_size=16", typed=False))
    return options


def optimizers_command(name: str = typer.Argument(None, help="An optimizer whose settings to list.")) -> None:
    """List the available optimizers, or one optimizer's settings (default, accepted values, meaning)."""
    from ..optimizers.base import available, optimizer_class, setting_defaults

    if name is None:
        for entry in available():
            typer.echo(f"{entry.name:10s} {entry.summary}")
        return
    cls = optimizer_class(name)
    typer.echo(f"{name}: {cls.summary}")
    defaults = setting_defaults(cls)
    if not defaults:
        typer.echo("  (no settings)")
        return
    for setting, default in defaults.items():
        rule = cls.SETTINGS[setting]
        typer.echo(f"  {setting} = {default!r}  ({rule.accepted()})\n      {rule.help}")
    typer.echo(f"set one with: nasarena run --optimizers {name} --set {name}.SETTING=VALUE")
