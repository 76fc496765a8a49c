"""Checks of ``nasarena run``'s arguments, all made before anything is loaded, run or written.

A bad argument is a :class:`~nasarena.errors.NasarenaError` naming the option, the value and
what is accepted; the root command group reports it as ``error: ...`` with exit status 2.
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path

from ..errors import DataFileError, InvalidSettingError, unknown_name
from .values import parse_assignment, parse_assignments

#: Seeds are stored in int64 columns and seed numpy's SeedSequence, which refuses negatives.
MAX_SEED = 2**63 - 1
#: At most this many runs in one experiment: the grid is a list in memory and one file per run.
MAX_RUNS = 1_000_000
#: At most this many simulated workers per run: each starts an evaluation at time 0.
MAX_WORKERS = 10_000
BACKENDS = ("process", "ray")


def parse_seeds(text: str, max_seeds: int = MAX_RUNS) -> list[int]:
    """``"0-99"``, ``"3"`` or ``"0,5,7-9"`` -> list of seeds, each in 0..2^63-1, none twice.

    The number of seeds is counted from the ranges before any list is built, so
    ``0-99999999`` is refused at once instead of filling memory first. A seed given twice is
    refused rather than silently dropped: ``0,0`` is almost certainly a typing error, and
    running it twice would only repeat the same run.
    """
    ranges = []
    for part in text.split(","):
        part = part.strip()
        low_text, dash, high_text = part.partition("-")
        try:
            low = int(low_text)
            high = int(high_text) if dash else low
        except ValueError:
            raise InvalidSettingError(f"bad seed range {part!r} in --seeds {text!r}; use e.g. 0-99 or 0,5,7-9 "
                                      "(seeds are integers from 0)") from None
        for seed in (low, high):
            if not 0 <= seed <= MAX_SEED:
                raise InvalidSettingError(f"seed {seed} in --seeds {text!r} is outside 0..2^63-1 ({MAX_SEED})")
        if high < low:
            raise InvalidSettingError(f"bad seed range {part!r} in --seeds {text!r}: the end is below the start")
        ranges.append((low, high))
    count = sum(high - low + 1 for low, high in ranges)
    if count > max_seeds:
        raise InvalidSettingError(f"--seeds {text!r} asks for {count:,} seeds; at most {max_seeds:,} per experiment")
    seeds = [seed for low, high in ranges for seed in range(low, high + 1)]
    if len(set(seeds)) != len(seeds):
        seen, repeated = set(), []
        for seed in seeds:
            if seed in seen and seed not in repeated:
                repeated.append(seed)
            seen.add(seed)
        shown = ", ".join(map(str, repeated[:5])) + (", ..." if len(repeated) > 5 else "")
        raise InvalidSettingError(f"--seeds {text!r} names seed(s) {shown} more than once; give each seed once")
    return seeds


def parse_overrides(items: list[str], optimizers: list[str] | None = None) -> dict[str, dict]:
    """``--set [OPTIMIZER.]KEY=VALUE`` items -> ``{"re": {"population_size": 50}}`` (values parsed as JSON).

    ``OPTIMIZER.KEY=VALUE`` is for that optimizer; a plain ``KEY=VALUE`` is for every one of
    ``optimizers`` (each must have the setting), and the named form wins over it. Without
    ``optimizers`` (a caller that knows none) every item must name its optimizer."""
    form, example = "OPTIMIZER.KEY=VALUE", "re.population_size=50"
    if optimizers is not None:
        from .vocabulary import scoped_settings

        scoped = scoped_settings(items, optimizers, "optimizer", f"in --optimizers ({', '.join(optimizers)})",
                                 example)
        return {name: parse_assignments(given, "--set", example) for name, given in scoped.items() if given}
    overrides: dict[str, dict] = {}
    for item in items:
        key, value = parse_assignment(item, "--set", example, form=form)
        optimizer, dot, setting = key.partition(".")
        if not dot or not optimizer or not setting:
            raise InvalidSettingError(f"bad --set {item!r}; use {form}, e.g. {example}")
        overrides.setdefault(optimizer, {})[setting] = value
    return overrides


def plain_settings(items: list[str]) -> set[str]:
    """The settings that ``--set`` gives without an optimizer's name (for every optimizer)."""
    keys = (item.partition("=")[0].strip() for item in items)
    return {key for key in keys if "." not in key}


def check_numbers(budget: float, max_evaluations: int | None, workers: int, jobs: int) -> None:
    """The numeric options of ``run``: a finite positive budget, at least one evaluation and worker."""
    if not math.isfinite(budget) or budget <= 0:
        raise InvalidSettingError(f"--budget must be a finite number of simulated seconds > 0, got {budget}")
    if max_evaluations is not None and max_evaluations < 1:
        raise InvalidSettingError(f"--max-evaluations must be at least 1, got {max_evaluations}")
    if not 1 <= workers <= MAX_WORKERS:
        raise InvalidSettingError(f"--workers must be in 1..{MAX_WORKERS:,} (simulated workers per run), "
                                  f"got {workers}")
    if jobs < 0:
        raise InvalidSettingError(f"--jobs must be 0 (all cores) or a number of processes >= 1, got {jobs}")


def check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise unknown_name("backend", backend, BACKENDS)


def check_run_count(benchmarks: int, optimizers: int, seeds: int) -> None:
    runs = benchmarks * optimizers * seeds
    if runs > MAX_RUNS:
        raise InvalidSettingError(f"{benchmarks} benchmark(s) x {optimizers} optimizer(s) x {seeds:,} seeds is "
                                  f"{runs:,} runs; at most {MAX_RUNS:,} per experiment")


def check_benchmarks(names: list[str], path: Path | None) -> dict[str, object]:
    """Every name registered; ``--path`` given (and existing) when a benchmark needs one.

    Returns the loader options (``{"path": ...}`` or none). Nothing is loaded here.
    """
    from ..benchmarks.registry import REGISTRY

    if not names:
        raise InvalidSettingError("--benchmarks names no benchmark")
    for name in names:
        if name not in REGISTRY:
            raise unknown_name("benchmark", name, REGISTRY)
    needing = [n for n in names if _needs_path(REGISTRY[n].load)]
    if needing and path is None:
        raise InvalidSettingError(f"benchmark {needing[0]!r} needs --path: {REGISTRY[needing[0]].summary}")
    refusing = [n for n in names if not _takes_path(REGISTRY[n].load)]
    if path is not None and refusing:
        raise InvalidSettingError(f"--path is only for benchmarks loaded from files "
                                  f"({', '.join(n for n, e in sorted(REGISTRY.items()) if _takes_path(e.load))}), "
                                  f"not {', '.join(refusing)}")
    if path is not None and not path.exists():
        raise DataFileError(f"--path {path} does not exist")
    return {"path": str(path)} if path is not None else {}


def check_live_space(names: list[str], options: dict) -> None:
    """The live benchmark trains networks, so its space is named, never a silent default (NB201's
    200-epoch protocol on full CIFAR-10 would be days of work on a CPU)."""
    if "live" in names and "space" not in options:
        raise InvalidSettingError("--benchmarks live trains every queried architecture: name its space with "
                                  "--space nb101, nb201 or darts (and shrink it with --benchmark-option, e.g. "
                                  "protocol=quick image_size=16 subset=100)")


def _needs_path(loader) -> bool:
    parameter = inspect.signature(loader).parameters.get("path")
    return parameter is not None and parameter.default is inspect.Parameter.empty


def _takes_path(loader) -> bool:
    """Loaders with a ``path`` parameter: required (an artefact, the official store) or optional
    (NB-1Shot1 over an imported official NB101 store instead of the embedded one)."""
    return "path" in inspect.signature(loader).parameters


def check_preset_fixes(preset: str, budget: float, max_evaluations: int | None, caching: bool,
                       settings: list[str], objectives: str | None = None) -> None:
    """A preset fixes the budget, caching and settings (they define its setup); an option that
    would change them is refused rather than silently replaced."""
    from ..studies.anytime_presets import BUDGET

    given = [name for name, value in (("--budget", budget != BUDGET.seconds), ("--max-evaluations", max_evaluations),
                                      ("--caching", caching), ("--set", settings),
                                      ("--objectives/--constraint", objectives)) if value]
    if given:
        raise InvalidSettingError(f"--preset {preset} fixes the budget ({BUDGET.seconds:.0e} s, at most "
                                  f"{BUDGET.evaluations:,} queries), caching and the optimizers' settings; leave out "
                                  f"{', '.join(given)} or run without --preset")


def check_objectives(objectives: str | None, constraint: str | None, benchmarks: list[str], options: dict,
                     optimizers: list[str]) -> tuple[str, ...]:
    """``--objectives`` and ``--constraint``: each objective one every benchmark can give (a known
    device), a bound some architecture of each benchmark meets, and optimizers of the right kind
    (multi-objective ones with two or more objectives, single-objective ones without). Returns
    the objectives' labels (none for a single-objective run)."""
    from ..benchmarks.objectives import parse_objectives
    from ..optimizers.base import REGISTRY
    from ..runner.experiment import _benchmark
    from ..runner.objectives import RunObjectives, check_optimizer_objectives

    labels = tuple(objective.label for objective in parse_objectives(objectives)) if objectives is not None else ()
    for name in optimizers:
        check_optimizer_objectives(name, REGISTRY[name].multi_objective, labels)
    if labels or constraint is not None:
        loader_options = tuple(sorted(options.items()))
        for name in benchmarks:
            RunObjectives(_benchmark(name, loader_options), labels, constraint)
    return labels


def check_optimizers(names: list[str]) -> None:
    from ..optimizers.base import REGISTRY
    if not names:
        raise InvalidSettingError("--optimizers names no optimizer")
    for name in names:
        if name not in REGISTRY:
            raise unknown_name("optimizer", name, REGISTRY)
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InvalidSettingError(f"--optimizers names {', '.join(repeated)} more than once")


def check_overrides(overrides: dict[str, dict], optimizers: list[str], plain: set[str] = frozenset()) -> None:
    """Each ``--set`` names an optimizer of the grid, one of its settings and a value the
    optimizer's declared ``SETTINGS`` accept (type and range). ``plain``: the settings given
    for every optimizer (``SETTING=VALUE``), which every optimizer of the grid must have.

    Rules that tie settings together (``tournament_size <= population_size``) stay with the
    optimizer, which checks them when it is made (:func:`check_optimizer_construction`).
    """
    from ..errors import UnknownNameError
    from ..optimizers.base import REGISTRY, check_settings

    for optimizer, settings in overrides.items():
        if optimizer not in optimizers:
            raise InvalidSettingError(f"--set {optimizer}.{next(iter(settings))}=... is for optimizer {optimizer!r}, "
                                      f"which is not in --optimizers ({', '.join(optimizers)})")
        try:
            check_settings(REGISTRY[optimizer], settings)
        except UnknownNameError as error:
            key = next((k for k in settings if k in plain and k not in _setting_names(optimizer)), None)
            if key is None:
                raise
            error.args = (f"{error.args[0]}; a plain --set {key}=... is for every optimizer of --optimizers, "
                          f"--set OPTIMIZER.{key}=... for one",)
            raise
        except InvalidSettingError as error:
            hint = _exponent_hint(REGISTRY[optimizer], settings)
            if hint is not None:
                error.args = (f"{error.args[0]}; {hint}",)
            raise


def _exponent_hint(cls, settings: dict) -> str | None:
    """What to write instead of a whole number given with an exponent (``1e6``): JSON reads it as
    the decimal number 1000000.0, which a whole-number setting refuses as that, a value the user
    never typed."""
    for key, value in settings.items():
        rule = cls.SETTINGS.get(key)
        if rule is not None and rule.kind is int and isinstance(value, float) and math.isfinite(value) \
                and value.is_integer():
            return (f"a number with an exponent (such as 1e6) or a decimal point is read as a decimal number "
                    f"({value!r}): write the whole number in digits, {key}={int(value)}")
    return None


def _setting_names(optimizer: str) -> set[str]:
    from ..optimizers.base import REGISTRY, setting_names

    return set(setting_names(REGISTRY[optimizer]))


def check_optimizer_construction(specs) -> None:
    """Make each optimizer with its settings once on each benchmark's space, so that rules tying
    settings together, rules tying them to the space (a zero-cost warm-up of at most the space's
    size), a warm-up on a benchmark without a proxy and a missing extra (SMAC3, Optuna,
    scikit-learn) fail here, before anything is written, and not in a worker after
    ``settings.json`` is."""
    from ..optimizers.base import REGISTRY, make
    from ..runner.experiment import _benchmark

    checked = set()
    for spec in specs:
        key = (spec.benchmark, spec.benchmark_options, spec.optimizer, repr(spec.optimizer_settings))
        if key in checked:
            continue
        checked.add(key)
        bench = _benchmark(spec.benchmark, spec.benchmark_options)
        _check_zero_cost_fidelity(spec, bench)
        settings = dict(spec.optimizer_settings)
        if REGISTRY[spec.optimizer].multi_fidelity:
            settings.setdefault("fidelities", bench.fidelities)
        try:
            make(spec.optimizer, bench.space, seed=0, **settings)
        except (TypeError, ValueError) as error:
            given = ", ".join(f"{spec.optimizer}.{k}={v!r}" for k, v in spec.optimizer_settings)
            reason = str(error).removeprefix(f"optimizer {spec.optimizer!r}: ")  # make's prefix: named here already
            raise InvalidSettingError(f"optimizer {spec.optimizer!r} refuses --set {given} on {spec.benchmark}: "
                                      f"{reason}") from None


def _check_zero_cost_fidelity(spec, bench) -> None:
    """A zero-cost warm-up (``zero_cost_warmup`` of RE, NRE, BANANAS) asks the benchmark for
    fidelity 0, which it answers only when loaded with a proxy. Refused here, before the optimizer
    draws its warm-up and before the output folder is made: the run itself would refuse it only
    at its first proxy, after the experiment had written its folder and settings."""
    from ..benchmarks.protocol import ZERO_COST

    samples = dict(spec.optimizer_settings).get("zero_cost_warmup")
    if not samples or ZERO_COST in bench.describe().fidelities:
        return
    remedy = (f"{spec.benchmark} has one only when loaded with it: add --benchmark-option proxy=NAME (e.g. "
              "proxy=synflow) or leave the warm-up out" if getattr(bench, "offers_zero_cost", False) else
              f"{spec.benchmark} has none: leave the warm-up out or use a benchmark with one (the nb201 benchmarks "
              "load one with --benchmark-option proxy=NAME)")
    raise InvalidSettingError(f"--set {spec.optimizer}.zero_cost_warmup={samples} scores architectures with the "
                              f"benchmark's zero-cost proxy (fidelity 0); {remedy}")
