"""Is a re-implemented optimizer the algorithm it reproduces? Final regrets, anytime curves and cost, side by side.

Run: nice -n 5 .venv/bin/python bench/bench_equivalence.py NEW REFERENCE --benchmark nb201-cifar10
     --seeds 100 --evaluations 300 [--seconds S] [--jobs 1] [--out results/equivalence] [--set KEY=VALUE ...]
     [--only NAME]

NEW and REFERENCE are registry names, optionally with settings that make a variant, e.g.
``bananas:predictor=sklearn`` (the settings after the colon, comma-separated KEY=VALUE). Both
optimizers run seeds 0..S-1 on one benchmark under the same budget (``--evaluations`` and/or
simulated ``--seconds``). Reported: each one's mean and median final incumbent test regret, the
two-sided Mann-Whitney U test of the two final-regret distributions (a small p says they differ),
the mean incumbent regret after 10, 20, 50, 100, ... evaluations (the anytime curves side by side),
and each one's optimizer CPU per evaluation with their ratio. A re-implementation draws its own
random stream, so seeds do not pair up; only distributions are compared. Each finished run is kept
as one line of ``runs.jsonl`` in ``--out`` (named by benchmark and budget), so an interrupted study
resumes where it stopped; ``--set`` settings (``name.key=value``) apply to both optimizers.

Measured (2026-11-25; mean final regret new / reference, Mann-Whitney p, CPU ratio):

    tpe vs tpe-optuna, nb201-cifar10, 100 seeds x 300 evaluations   0.00265 / 0.00219  p 0.17   44x
    tpe vs tpe-optuna, nb101-lite, 100 seeds x 500 evaluations      0.00654 / 0.00616  p 0.13  115x
        (its first 50 seeds alone: p 0.04; the densities are Optuna's to 1e-12, see the tests)
    smac vs smac3 (2026-11-26, smac's trees grown by integer_trees):
        nb201-cifar10, 100 seeds x 150 evaluations                  0.00284 / 0.00248  p 0.42   37x
        nb101-lite, 50 seeds x 200 evaluations                      0.00578 / 0.00598  p 0.92   62x
      both repeated_evaluations=3 (SMAC3's intensifier):
        nb201-cifar10, 100 seeds x 150 evaluations                  0.00305 / 0.00317  p 0.87   37x
        nb101-noisy 1.1, 50 seeds x 200 evaluations                 0.00929 / 0.00919  p 0.79   66x
    bananas vs predictor=sklearn, nb201-cifar10, 100 x 150          0.00097 / 0.00097  p 0.86  4.4x
    bananas vs predictor=sklearn, nb101-lite, 50 x 300              0.00278 / 0.00273  p 0.58  5.5x
      (both training new networks at every retraining, the original's schedule, now warm_steps=null)
    warm retraining (the default, warm_steps=40) vs new networks each time (warm_steps=null), 2026-11-26;
    the two are the same runs up to 200 results, where retraining turns warm:
        nb201-cifar10, 100 seeds x 300 evaluations                  0.00045 / 0.00043  p 0.80  1.3x
          (against predictor=sklearn,warm_steps=null, the library reference: 0.00045 / 0.00046  p 0.99  6.3x)
        nb101-lite, 150 seeds x 1000 evaluations                    0.00190 / 0.00183  p 0.07  4.7x
          (seeds 0-49: 0.00194 / 0.00177, p 0.07; seeds 50-149: 0.00187 / 0.00186, p 0.35;
          quartiles and 90th percentile equal)
        nb101-lite, 1e7 s, 50 seeds (--only bananas) against 20 seeds of warm_steps=null run by
          ``nasarena run`` (whose run of a seed is this script's)   0.00161 / 0.00162  p 0.91   14x

The references' cost grows with the history, which is why the NB101 budgets are short.
"""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy.stats import mannwhitneyu

CHECKPOINTS = (10, 20, 50, 100, 200, 300, 500, 1000, 2000, 5000, 10000)
_BENCHMARKS: dict = {}


def one_run(task: tuple) -> dict:
    """One seed of one optimizer: final regret, the regret at each checkpoint, CPU per evaluation."""
    import nasarena
    from nasarena.optimizers import make
    from nasarena.runner import Budget, run

    benchmark_name, spec, settings, seed, evaluations, seconds = task
    if benchmark_name not in _BENCHMARKS:
        _BENCHMARKS[benchmark_name] = nasarena.benchmark(benchmark_name)
    bench = _BENCHMARKS[benchmark_name]
    name, variant = parse_spec(spec)
    frame = run(bench, make(name, bench.space, seed=seed, **variant, **settings),
                Budget(evaluations=evaluations, seconds=seconds), seed=seed)
    regret = frame.incumbent_test_regret.to_numpy()
    return dict(optimizer=spec, seed=seed, evaluations=len(frame), final=float(regret[-1]),
                curve={str(n): float(regret[min(n, len(regret)) - 1]) for n in CHECKPOINTS},
                cpu_ms=float(frame.optimizer_cpu_time.iloc[-1]) / len(frame) * 1e3)


def parse_spec(spec: str) -> tuple[str, dict]:
    """``name`` or ``name:KEY=VALUE,...``: the registry name and the variant's settings (values
    read as ``nasarena run --set`` reads them)."""
    from nasarena.cli.values import parse_assignments

    name, _, variant = spec.partition(":")
    return name, parse_assignments(list(filter(None, variant.split(","))), "variant", "bananas:predictor=sklearn")


def finished_runs(log: Path) -> list[dict]:
    """The runs recorded in ``log``; a last line cut short by a kill is dropped from the file, so
    that the next run's line starts on a line of its own (every complete line is kept)."""
    if not log.exists():
        return []
    data = log.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) < len(data):
        with log.open("r+b") as out:
            out.truncate(len(complete))
    return [json.loads(line) for line in complete.decode().splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new")
    parser.add_argument("reference")
    parser.add_argument("--benchmark", default="nb201-cifar10")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--evaluations", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("results/equivalence"))
    parser.add_argument("--set", action="append", default=[], help="NAME.KEY=VALUE for one optimizer")
    parser.add_argument("--only", default=None, help="run only this one of the two now (e.g. the slow reference, "
                                                     "started before the new one exists); report when both ran")
    options = parser.parse_args()
    if options.evaluations is None and options.seconds is None:
        parser.error("give --evaluations and/or --seconds")
    from nasarena.cli.run_arguments import parse_overrides
    from nasarena.errors import InvalidSettingError
    from nasarena.optimizers.base import REGISTRY

    try:  # everything read before anything is written
        specs = {spec: parse_spec(spec) for spec in (options.new, options.reference)}
        overrides = parse_overrides(options.set)
    except InvalidSettingError as error:
        parser.error(str(error))
    unknown = [spec for spec, (name, _) in specs.items() if name not in REGISTRY]
    if unknown:
        parser.error(f"unknown optimizer(s) {', '.join(unknown)}; available: {', '.join(sorted(REGISTRY))}")
    budget = f"{options.evaluations or 'all'}evals-{options.seconds or 'inf'}s"
    log = options.out / f"{options.benchmark}-{budget}" / "runs.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    done = finished_runs(log)
    names = (options.new, options.reference)
    have = {(r["optimizer"], r["seed"]) for r in done}
    tasks = [(options.benchmark, name, overrides.get(specs[name][0], {}), seed, options.evaluations, options.seconds)
             for seed in range(options.seeds) for name in names
             if (name, seed) not in have and options.only in (None, name)]
    with ProcessPoolExecutor(options.jobs) as pool, log.open("a") as out:
        for result in pool.map(one_run, tasks):
            out.write(json.dumps(result) + "\n")
            out.flush()
            os.fsync(out.fileno())
            done.append(result)
    if options.only is None:
        report(options, names, [r for r in done if r["seed"] < options.seeds])


def report(options, names: tuple[str, str], results: list[dict]) -> None:
    by_name = {name: [r for r in results if r["optimizer"] == name] for name in names}
    finals = {name: np.array([r["final"] for r in runs]) for name, runs in by_name.items()}
    cpu = {name: np.mean([r["cpu_ms"] for r in runs]) for name, runs in by_name.items()}
    print(f"{options.benchmark}, budget: {options.evaluations or '-'} evaluations, {options.seconds or '-'} s; "
          f"seeds 0..{options.seeds - 1}")
    print(f"{'optimizer':14s} {'runs':>5s} {'evals':>7s} {'mean regret':>12s} {'median':>10s} {'CPU ms/eval':>12s}")
    for name in names:
        runs = by_name[name]
        print(f"{name:14s} {len(runs):5d} {np.mean([r['evaluations'] for r in runs]):7.0f} {finals[name].mean():12.5f} "
              f"{np.median(finals[name]):10.5f} {cpu[name]:12.3f}")
    test = mannwhitneyu(finals[names[0]], finals[names[1]], alternative="two-sided")
    print(f"Mann-Whitney U {test.statistic:.0f}, p = {test.pvalue:.3f}; CPU ratio {names[1]}/{names[0]} = "
          f"{cpu[names[1]] / cpu[names[0]]:.1f}x")
    print(f"mean incumbent regret after n evaluations: {'n':>6s} " + " ".join(f"{name:>14s}" for name in names))
    longest = min(max(r["evaluations"] for r in runs) for runs in by_name.values())
    for n in CHECKPOINTS:
        if n <= longest:
            means = [np.mean([r["curve"][str(n)] for r in by_name[name]])
                     for name in names]
            print(f"{'':43s} {n:6d} " + " ".join(f"{m:14.5f}" for m in means))


if __name__ == "__main__":
    main()
