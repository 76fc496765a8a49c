"""The speed claims of ``docs/speed.md`` that regenerate in minutes, each with its baseline measured
in the same run.

- **Queries** (``bench/bench_queries.py``): ``nb101-lite`` answering single queries by row and by
  cell, and ``query_batch``, against the original NB101 API's in-memory layout (a dict from hash
  to Python dicts, a random trial and dict copies per query) built for the same rows.
- **Cheap optimizers** (``bench/bench_cheap_optimizers.py``): RS, RE, NRE and LS on ``nb101-lite``
  for the NB101 paper's 1e7 simulated seconds, the CPU time per evaluation in all (protocol,
  look-up and optimizer), after one unmeasured run that warms the process; and many seeds of RE
  through ``run_experiment`` (the command's path: processes, run files).
- **Re-implementations against their libraries** (``bench/bench_optimizer_cpu.py``): ``tpe`` and
  ``smac`` beside ``tpe-optuna`` and ``smac3`` over the same number of evaluations, on
  ``nb201-cifar10`` and ``nb101-lite``: the optimizer CPU per evaluation the runner records. A
  library reference refits on its whole history, so the ratio grows with the evaluations; the
  table says at how many it was measured.
- **BANANAS' warm retraining** (``bench/bench_optimizer_cpu.py --optimizers bananas``): a whole
  1e7 s ``nb101-lite`` run with the default ``warm_steps`` beside one that trains new networks at
  every retraining (``warm_steps=None``, the original's schedule), optimizer CPU per evaluation.
  Its numpy networks' float rounding may differ between CPUs, and with it the run, so the runs'
  evaluation counts are timings too.
- **Multi-objective optimizers** (``bench/bench_multiobjective_speed.py``): each on
  ``nb201-cifar10`` with error and pixel3 latency over the same evaluations, beside Optuna's
  NSGA-II, optimizer CPU per evaluation.

Times are the measuring process's CPU time, which other processes on a shared machine move far less
than wall time, except the many seeds of RE, whose wall time is what a user waits for. Every time
and ratio goes into ``Generated.timings`` (recorded, never compared: they depend on
the machine and its load); the values are only what does not: the number of evaluations each
measurement spans (fixed by the simulated budgets and seeds). Full scale: about 10 CPU
minutes, most of it the library references and BANANAS training new networks at every
retraining. Cheap scale: fewer rows, seeds and evaluations, no ``smac3`` (its import alone takes
seconds) and no BANANAS.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...benchmarks.registry import benchmark
from ...optimizers import make
from ...runner.experiment import grid, load_results, run_experiment
from ...runner.protocol import Budget, RunSettings, run
from .pages import Generated
from .recorded import CHEAP


@dataclass(frozen=True)
class Scale:
    """How much each measurement runs."""

    query_rows: int  # single queries timed, and rows of the baseline layout
    batch_queries: int  # rows of one query_batch call
    cheap_seeds: int  # full 1e7 s runs per cheap optimizer
    re_seeds: int  # seeds of RE through run_experiment
    #: (re-implementation, reference, benchmark, evaluations)
    pairs: tuple[tuple[str, str, str, int], ...]
    #: (benchmark, simulated seconds) of BANANAS warm against new networks; None: not measured
    warm_retraining: tuple[str, float] | None
    #: (optimizers, their reference, benchmark, evaluations) of the multi-objective comparison
    multi_objective: tuple[tuple[str, ...], str, str, int]


FULL_SCALE = Scale(20_000, 2_000_000, 10, 500, (
    ("tpe", "tpe-optuna", "nb201-cifar10", 300), ("smac", "smac3", "nb201-cifar10", 300),
    ("tpe", "tpe-optuna", "nb101-lite", 300), ("smac", "smac3", "nb101-lite", 300)), ("nb101-lite", 1e7),
    (("mo-rs", "nsga2", "mo-re", "parego-tpe", "parego-smac", "parego-bananas"), "nsga2-optuna", "nb201-cifar10", 300))
CHEAP_SCALE = Scale(2_000, 200_000, 1, 10, (("tpe", "tpe-optuna", "nb201-cifar10", 20),), None,
                    (("mo-rs",), "nsga2", "nb201-cifar10", 20))
#: The objectives of the multi-objective comparison (those of ``bench/bench_multiobjective_speed.py``).
OBJECTIVES = ("error", "latency:pixel3")
CHEAP_OPTIMIZERS = ("rs", "re", "nre", "ls")
SECONDS = 1e7
SEED = 0


def baseline_layout(bench, rows: np.ndarray) -> dict:
    """The original NB101 API's in-memory layout for ``rows``: hash -> {"fixed": {...},
    "computed": {epochs: [one dict per trial]}} of Python objects."""
    from ...spaces.nb101 import unique_cells

    table = unique_cells()
    data = {}
    for row in rows.tolist():
        result = bench.query(row)
        trial = {"final_training_time": result.cost_seconds, "final_train_accuracy": result.train_accuracy,
                 "final_validation_accuracy": result.valid_accuracy, "final_test_accuracy": result.test_accuracy}
        data[table.hashes.item(row)] = {
            "fixed": {"module_adjacency": table.matrix(row), "module_operations": table.ops(row),
                      "trainable_parameters": result.trainable_parameters},
            "computed": {108: [dict(trial), dict(trial), dict(trial)]},
        }
    return data


def baseline_query(data: dict, module_hash: str, stream: random.Random, epochs: int = 108) -> dict:
    """A query as the original API answers it: a random trial, the fixed and computed dicts copied."""
    fixed, computed = data[module_hash]["fixed"], data[module_hash]["computed"]
    sampled = computed[epochs][stream.randint(0, 2)]
    result = {key: fixed[key] for key in ("module_adjacency", "module_operations", "trainable_parameters")}
    result.update({key[len("final_"):]: value for key, value in sampled.items()})
    return result


def query_speed(rows: int, batch: int, seed: int = SEED) -> dict[str, float]:
    """CPU microseconds per query (the baseline layout, ``query`` by cell before and after its hash is
    cached, by row index) and ``query_batch``'s millions of queries per second, on ``nb101-lite``."""
    from ...spaces.nb101 import unique_cells

    lite = benchmark("nb101-lite")
    table = unique_cells()
    table.cell(0).row  # build the one-time hashing look-up before timing
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(table), size=rows, replace=False)
    cells = [table.cell(int(r)) for r in chosen]
    hashes = [table.hashes.item(int(r)) for r in chosen]
    data = baseline_layout(lite, chosen)
    stream = random.Random(seed)
    timings = {}
    start = time.process_time()
    for module_hash in hashes:
        baseline_query(data, module_hash, stream)
    timings["baseline_us"] = (time.process_time() - start) / rows * 1e6
    for key in ("cell_us", "cached_cell_us"):  # the first pass computes each cell's hash, the second reuses it
        start = time.process_time()
        for cell in cells:
            lite.query(cell, rng=rng)
        timings[key] = (time.process_time() - start) / rows * 1e6
    start = time.process_time()
    for row in chosen.tolist():
        lite.query(row, rng=rng)
    timings["row_us"] = (time.process_time() - start) / rows * 1e6
    many = rng.integers(0, len(table), size=batch)
    start = time.process_time()
    lite.query_batch(many, rng=rng)
    timings["batch_million_per_s"] = batch / (time.process_time() - start) / 1e6
    return timings


def evaluation_cost(names: tuple[str, ...], seeds: int) -> tuple[dict[str, float], dict[str, float]]:
    """(evaluations, CPU us per evaluation) of each optimizer's full 1e7 s ``nb101-lite`` runs
    (seeds 0..S-1), each after one unmeasured run (seed S) that warms the process."""
    lite = benchmark("nb101-lite")
    evaluations, cost = {}, {}
    for name in names:
        run(lite, make(name, lite.space, seed=seeds), Budget(seconds=SECONDS), seed=seeds)
        count, cpu = 0, 0.0
        for seed in range(seeds):
            optimizer = make(name, lite.space, seed=seed)
            start = time.process_time()
            count += len(run(lite, optimizer, Budget(seconds=SECONDS), seed=seed))
            cpu += time.process_time() - start
        evaluations[name], cost[name] = count, cpu / count * 1e6
    return evaluations, cost


def many_seeds_of_re(seeds: int, jobs: int) -> tuple[int, float]:
    """(evaluations, wall seconds) of ``seeds`` seeds of RE at 1e7 s through ``run_experiment``."""
    with tempfile.TemporaryDirectory(prefix="nasarena-speed-") as folder:
        specs = grid(["nb101-lite"], ["re"], range(seeds), Budget(seconds=SECONDS))
        start = time.perf_counter()
        run_experiment(specs, Path(folder), jobs=jobs)
        elapsed = time.perf_counter() - start
        return len(load_results(Path(folder), specs)), elapsed


def optimizer_cpu(name: str, bench_name: str, budget: Budget, seed: int = SEED, objectives: tuple[str, ...] = (),
                  **settings) -> tuple[float, int]:
    """The optimizer's CPU milliseconds per evaluation over one run within ``budget``, and the
    run's evaluations (the runner's ``optimizer_cpu_time``, recorded without being charged, so the
    run itself does not depend on the machine's speed)."""
    bench = benchmark(bench_name)
    frame = run(bench, make(name, bench.space, seed=seed, **settings), budget, seed=seed,
                settings=RunSettings(objectives=objectives))
    return float(frame.optimizer_cpu_time.iloc[-1]) / len(frame) * 1e3, len(frame)


def measure(scale: Scale, jobs: int) -> tuple[dict[str, float], dict[str, float]]:
    """(values, timings) of every measurement at ``scale``."""
    load = os.getloadavg()[0]
    values = {"queries/rows": float(scale.query_rows), "queries/batch": float(scale.batch_queries)}
    timings = {f"queries/{key}": value for key, value in query_speed(scale.query_rows, scale.batch_queries).items()}
    evaluations, cost = evaluation_cost(CHEAP_OPTIMIZERS, scale.cheap_seeds)
    for name in CHEAP_OPTIMIZERS:
        values[f"cheap/{name}/evaluations"] = float(evaluations[name])
        timings[f"cheap/{name}/cpu_us_per_evaluation"] = cost[name]
    count, seconds = many_seeds_of_re(scale.re_seeds, jobs)
    values.update({"re_seeds/seeds": float(scale.re_seeds), "re_seeds/evaluations": float(count)})
    timings.update({"re_seeds/wall_seconds": seconds, "re_seeds/jobs": float(jobs)})
    for new, reference, bench_name, count in scale.pairs:
        key = f"pairs/{bench_name}/{new}"
        values[f"{key}/evaluations"] = float(count)
        timings[f"{key}/new_ms"], _ = optimizer_cpu(new, bench_name, Budget(evaluations=count))
        timings[f"{key}/reference_ms"], _ = optimizer_cpu(reference, bench_name, Budget(evaluations=count))
        timings[f"{key}/ratio"] = timings[f"{key}/reference_ms"] / timings[f"{key}/new_ms"]
    if scale.warm_retraining is not None:
        bench_name, seconds = scale.warm_retraining
        for variant, settings in (("warm", {}), ("new", {"warm_steps": None})):
            cost, count = optimizer_cpu("bananas", bench_name, Budget(seconds=seconds), **settings)
            timings[f"bananas/{variant}_ms"], timings[f"bananas/{variant}_evaluations"] = cost, float(count)
    names, reference, bench_name, count = scale.multi_objective
    values[f"multi_objective/{bench_name}/evaluations"] = float(count)
    for name in (*names, reference):
        options = {"n_objectives": len(OBJECTIVES)} if name.endswith("-optuna") else {}
        timings[f"multi_objective/{name}_ms"], _ = optimizer_cpu(name, bench_name, Budget(evaluations=count),
                                                                 objectives=OBJECTIVES, **options)
    timings.update({"load_average/start": load, "load_average/end": os.getloadavg()[0], "cores": float(os.cpu_count())})
    return values, timings


def generate(scale: str, results: Path, jobs: int) -> Generated:
    chosen = CHEAP_SCALE if scale == CHEAP else FULL_SCALE
    values, timings = measure(chosen, jobs)
    mo_names, mo_reference, mo_bench, mo_count = chosen.multi_objective
    configurations = (f"queries/nb101-lite/{chosen.query_rows}/{chosen.batch_queries}",
                      *(f"nb101-lite/{name}/1e7 s/{chosen.cheap_seeds} seeds" for name in CHEAP_OPTIMIZERS),
                      f"nb101-lite/re/1e7 s/{chosen.re_seeds} seeds/run_experiment",
                      *(f"{bench}/{new},{reference}/{count} evaluations"
                        for new, reference, bench, count in chosen.pairs),
                      *((f"{chosen.warm_retraining[0]}/bananas,bananas:warm_steps=None/{chosen.warm_retraining[1]:g} s",)
                        if chosen.warm_retraining else ()),
                      f"{mo_bench}/{','.join((*mo_names, mo_reference))}/{mo_count} evaluations/{','.join(OBJECTIVES)}")
    used_seeds = tuple(range(max(chosen.cheap_seeds + 1, chosen.re_seeds)))  # with the warm-up seed
    return Generated(table(values, timings, chosen), values, configurations, used_seeds, timings)


def _times(ratio: float) -> str:
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"


def table(values: dict[str, float], timings: dict[str, float], scale: Scale) -> str:
    """One row per claim: what was measured, the number, and the baseline of the same run."""
    q = {key.split("/", 1)[1]: value for key, value in timings.items() if key.startswith("queries/")}
    lines = [f"Load average {timings['load_average/start']:.1f} at the start and "
             f"{timings['load_average/end']:.1f} at the end, on {timings['cores']:.0f} cores (the machine is named "
             "below); times are the measuring process's CPU time except where wall time is said:", "",
             "| claim | measured | baseline in the same run | bench |", "|---|---|---|---|",
             f"| `query_batch` on nb101-lite ({values['queries/batch']:,.0f} rows in one call) | "
             f"{q['batch_million_per_s']:.1f} million queries/s | the original API's dict-of-objects layout: "
             f"{q['baseline_us']:.2f} us per query ({_times(q['batch_million_per_s'] * q['baseline_us'])} fewer "
             f"queries/s) | `bench/bench_queries.py` |",
             f"| single queries on nb101-lite ({values['queries/rows']:,.0f} random cells) | by row index "
             f"{q['row_us']:.2f} us, by cell {q['cell_us']:.2f} us ({q['cached_cell_us']:.2f} us with its hash "
             f"cached) | the dict-of-objects layout: {q['baseline_us']:.2f} us | `bench/bench_queries.py` |"]
    costs = ", ".join(f"{name.upper()} {timings[f'cheap/{name}/cpu_us_per_evaluation']:.1f} us "
                      f"({values[f'cheap/{name}/evaluations'] / scale.cheap_seeds:,.0f} evaluations a run)"
                      for name in CHEAP_OPTIMIZERS)
    lines.append(f"| a whole nb101-lite evaluation (optimizer, protocol and look-up), {scale.cheap_seeds} "
                 f"run{'s' if scale.cheap_seeds != 1 else ''} of 1e7 s each | {costs} | (`--baseline DIR` compares "
                 "with another commit) | `bench/bench_cheap_optimizers.py` |")
    jobs = int(timings["re_seeds/jobs"])
    lines.append(f"| {values['re_seeds/seeds']:.0f} seeds of RE at 1e7 s through `run_experiment`, {jobs} "
                 f"process{'es' if jobs != 1 else ''} | {timings['re_seeds/wall_seconds']:.1f} s wall for "
                 f"{values['re_seeds/evaluations']:,.0f} evaluations | | "
                 "`bench/bench_cheap_optimizers.py --re-seeds` |")
    for new, reference, bench_name, count in scale.pairs:
        key = f"pairs/{bench_name}/{new}"
        lines.append(f"| `{new}` against `{reference}`, optimizer CPU per evaluation, {bench_name}, "
                     f"{values[f'{key}/evaluations']:.0f} evaluations, seed {SEED} | {timings[f'{key}/new_ms']:.2f} ms "
                     f"({_times(timings[f'{key}/ratio'])} less) | `{reference}`: "
                     f"{timings[f'{key}/reference_ms']:.1f} ms | `bench/bench_optimizer_cpu.py` |")
    if scale.warm_retraining is not None:
        bench_name, seconds = scale.warm_retraining
        lines.append(f"| `bananas` (warm retraining, the default), optimizer CPU per evaluation, {bench_name}, one "
                     f"{_power_of_ten(seconds)} s run, seed {SEED} | {timings['bananas/warm_ms']:.1f} ms over "
                     f"{timings['bananas/warm_evaluations']:,.0f} evaluations "
                     f"({_times(timings['bananas/new_ms'] / timings['bananas/warm_ms'])} less) | new networks at "
                     f"every retraining (`warm_steps=None`): {timings['bananas/new_ms']:.1f} ms over "
                     f"{timings['bananas/new_evaluations']:,.0f} | `bench/bench_optimizer_cpu.py --optimizers bananas` |")
    names, reference, bench_name, count = scale.multi_objective
    costs = ", ".join(f"`{name}` {_milliseconds(timings[f'multi_objective/{name}_ms'])}" for name in names)
    lines.append(f"| multi-objective optimizers, optimizer CPU per evaluation, {bench_name} with "
                 f"{' and '.join(OBJECTIVES)}, {values[f'multi_objective/{bench_name}/evaluations']:.0f} evaluations, "
                 f"seed {SEED} | {costs} | `{reference}`: {_milliseconds(timings[f'multi_objective/{reference}_ms'])} | "
                 "`bench/bench_multiobjective_speed.py` |")
    return "\n".join(lines)


def _power_of_ten(value: float) -> str:
    """``1e7`` as the pages write budgets (Python's ``1e+07``)."""
    mantissa, exponent = f"{value:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _milliseconds(value: float) -> str:
    """A CPU time in ms with three significant digits at most (times from 0.01 to 1,000 ms sit side by side)."""
    return f"{value:.3g} ms" if value < 100 else f"{value:,.0f} ms"
