"""One leaderboard across benchmark families: the question NAS-Bench-Suite (Mehta et al., ICLR
2022) asked, whether optimizer rankings carry over from one benchmark to another.

A set of optimizers runs on every single-objective benchmark family nasarena has (NB101's 3-trial
table, NB201 on its three datasets, the three NAS-Bench-1Shot1 spaces, ``nb301`` and the
NAS-Bench-Graph datasets, each where installed) under one protocol. Then:

* **per benchmark**: each optimizer's mean final test regret and its mean rank over seeds (rank 1
  the lowest regret of that seed), with a Friedman test over seeds;
* **across benchmarks** (Demšar 2006): each benchmark ranks the optimizers by their mean rank
  there; the mean of those ranks over benchmarks, a Friedman test with N = the benchmarks and
  Nemenyi's critical difference (the critical-difference diagram), and Kendall's W, how
  concordant the benchmarks' rankings are (1: every benchmark orders the optimizers alike).

**Budgets** make benchmarks comparable by counting full trainings, not seconds: a run gets the
simulated time of ``evaluations`` full-fidelity trainings of a median architecture of its
benchmark (the median cost at the highest fidelity over 1,000 architectures sampled with seed 0).
Simulated seconds keep the protocol's clock (multi-fidelity methods spend it as they choose),
and counting trainings puts NB101 (tens of minutes a training) and a GNN benchmark (seconds) on
one footing. The budget is part of each run's settings hash, so a leaderboard resumes.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.regret_basis import TEST, regret_basis
from ..analysis.statistics import Concordance, FriedmanNemenyi, friedman_nemenyi, kendall_w
from ..analysis.trajectories import final_results
from ..benchmarks.registry import ONESHOT, available
from ..benchmarks.registry import benchmark as load_benchmark
from ..errors import InvalidSettingError
from ..runner.experiment import RunSpec, grid, load_results, run_experiment
from ..runner.protocol import Budget
from .leaderboard_scales import Scale

#: Architectures sampled to set a benchmark's budget (seed ``BUDGET_SEED``).
BUDGET_SAMPLE = 1_000
BUDGET_SEED = 0
#: Confidence of the tests (the per-benchmark ones and the critical-difference diagram's).
CONFIDENCE = 0.95


def families() -> dict[str, tuple[str, ...]]:
    """Benchmark families and their registered benchmarks, in the leaderboard's order."""
    names = [entry.name for entry in available()]
    return {
        "NB101 (3 trials)": ("nb101-noisy",),
        "NB201": ("nb201-cifar10", "nb201-cifar100", "nb201-imagenet16-120"),
        "NAS-Bench-1Shot1": ONESHOT,
        "NB301 (YAHPO surrogate)": tuple(name for name in names if name == "nb301"),
        "NAS-Bench-Graph": tuple(sorted(name for name in names if name.startswith("nbgraph-"))),
    }


#: Python packages a benchmark needs beyond the core install (it is left out of the default set
#: when they are missing, and refused with the extra to install when named).
NEEDS = {"nb301": ("onnxruntime", "nb301")}


def default_benchmarks() -> tuple[list[str], dict[str, str]]:
    """Every family's benchmarks that can run here, and why each other one is left out."""
    chosen, left_out = [], {}
    for members in families().values():
        for name in members:
            missing = _missing(name)
            if missing:
                left_out[name] = missing
            else:
                chosen.append(name)
    return chosen, left_out


def _missing(name: str) -> str | None:
    need = NEEDS.get(name)
    if need and importlib.util.find_spec(need[0]) is None:
        return f"needs {need[0]}: pip install 'nasarena[{need[1]}]'"
    return None


def check_benchmarks(names: Sequence[str]) -> None:
    known = {name for members in families().values() for name in members}
    for name in names:
        if name not in known:
            raise InvalidSettingError(f"the leaderboard has no benchmark {name!r}; its benchmarks: "
                                      f"{', '.join(sorted(known))}")
        if missing := _missing(name):
            raise InvalidSettingError(f"benchmark {name} {missing}")


def budget_seconds(name: str, evaluations: int) -> float:
    """``evaluations`` times the median full-fidelity training cost of ``name``'s architectures."""
    loaded = load_benchmark(name)
    rng = np.random.default_rng(BUDGET_SEED)
    archs = [loaded.space.sample(rng) for _ in range(BUDGET_SAMPLE)]
    archs = [arch for arch in archs if loaded.space.violation(arch) is None]
    costs = np.asarray(loaded.query_batch(archs, rng=np.random.default_rng(BUDGET_SEED)).cost_seconds, dtype=float)
    median = float(np.nanmedian(costs)) if len(costs) else float("nan")
    if not np.isfinite(median) or median <= 0:
        raise InvalidSettingError(f"benchmark {name} reports no positive training cost, so no budget of "
                                  f"{evaluations} trainings can be set for it")
    return round(evaluations * median, 3)


def specs(benchmarks: Sequence[str], scale: Scale, optimizers: Sequence[str] | None = None,
          seeds: Sequence[int] | None = None) -> list[RunSpec]:
    """The leaderboard's runs: per benchmark, the scale's optimizers and seeds on its budget."""
    check_benchmarks(benchmarks)
    chosen = list(scale.optimizers if optimizers is None else optimizers)
    runs = []
    for name in benchmarks:
        budget = Budget(seconds=budget_seconds(name, scale.evaluations))
        runs += grid([name], chosen, scale.seeds if seeds is None else seeds, budget)
    return sorted(runs, key=lambda spec: (spec.seed, spec.benchmark, spec.optimizer))


@dataclass(frozen=True)
class Leaderboard:
    """The leaderboard of a set of runs (see the module docstring)."""

    #: benchmark, optimizer, mean_regret, mean_rank, runs, simulated_seconds (the budget)
    per_benchmark: pd.DataFrame
    #: per benchmark: its Friedman test over seeds (NaN p where a test is impossible)
    benchmark_p: pd.Series
    #: rows benchmarks, columns optimizers: each benchmark's rank of the optimizers
    ranks: pd.DataFrame
    across: FriedmanNemenyi | None
    concordance: Concordance | None


def leaderboard(results: pd.DataFrame, budgets: dict[str, float], confidence: float = CONFIDENCE) -> Leaderboard:
    """The leaderboard of ``results`` (every run's trajectory, as ``load_results`` gives them),
    whose runs had ``budgets`` (simulated seconds per benchmark)."""
    final = final_results(results)
    if final.empty:
        raise InvalidSettingError("no finished runs to rank")
    rows, p_values, scores = [], {}, {}
    for name, runs in final.groupby("benchmark", sort=False):
        table = runs.pivot_table(index="seed", columns="optimizer", values="incumbent_test_regret")
        seed_ranks = table.rank(axis=1, method="average")
        mean_ranks = seed_ranks.mean()
        scores[name] = mean_ranks
        try:
            p_values[name] = friedman_nemenyi(table, confidence).p_value
        except ValueError:  # one seed or one optimizer: no test
            p_values[name] = float("nan")
        for optimizer in table.columns:
            rows.append((name, optimizer, float(table[optimizer].mean()), float(mean_ranks[optimizer]),
                         int(table[optimizer].notna().sum()), float(budgets[name])))
    per_benchmark = pd.DataFrame(rows, columns=["benchmark", "optimizer", "mean_regret", "mean_rank", "runs",
                                                "simulated_seconds"])
    by_benchmark = pd.DataFrame(scores).T
    ranks = by_benchmark.rank(axis=1, method="average")
    across = concordance = None
    if len(by_benchmark.dropna()) >= 2 and by_benchmark.shape[1] >= 2:
        across = friedman_nemenyi(by_benchmark, confidence)
        concordance = kendall_w(by_benchmark)
    return Leaderboard(per_benchmark, pd.Series(p_values), ranks, across, concordance)


def run_leaderboard(benchmarks: Sequence[str], scale: Scale, out: Path, jobs: int = 1,
                    optimizers: Sequence[str] | None = None, seeds: Sequence[int] | None = None,
                    backend: str = "process") -> Leaderboard:
    """Run (or resume) the leaderboard's runs into ``out`` and rank them."""
    return run_planned(specs(benchmarks, scale, optimizers, seeds), out, jobs, backend)


def run_planned(planned: Sequence[RunSpec], out: Path, jobs: int = 1, backend: str = "process") -> Leaderboard:
    """Run (or resume) the runs :func:`specs` planned into ``out`` and rank them."""
    run_experiment(planned, out, jobs=jobs, backend=backend)
    return leaderboard(load_results(out, planned), {spec.benchmark: spec.budget.seconds for spec in planned})


def markdown(board: Leaderboard, left_out: dict[str, str] | None = None) -> str:
    """The leaderboard as markdown: the ranking across benchmarks with its tests, then each
    benchmark's mean ranks (mean final test regret x 10^3 beside)."""
    lines = []
    if board.across is not None:
        across, w = board.across, board.concordance
        lines += ["| optimizer | mean rank over benchmarks |", "|---|---|"]
        lines += [f"| {name}{' *' if name in across.best_group and across.significant else ''} | {rank:.2f} |"
                  for name, rank in across.mean_ranks.items()]
        lines += ["", f"Over {w.rankings} benchmarks: Friedman p {across.p_value:.2g}; Nemenyi critical difference "
                      f"{across.critical_difference:.2f} at {across.confidence:.0%} (`*`: the best and those within it, "
                      "shown where the test is significant); Kendall's W "
                      f"{w.w:.2f} (p {w.p_value:.2g}; 1 = every benchmark orders the optimizers alike).", ""]
    else:
        lines += ["One benchmark: no ranking across benchmarks.", ""]
    optimizers = list(board.across.mean_ranks.index) if board.across is not None else \
        sorted(board.per_benchmark["optimizer"].unique())
    lines += ["| benchmark | budget (s) | runs | " + " | ".join(optimizers) + " | Friedman p |",
              "|---|---|---|" + "---|" * (len(optimizers) + 1)]
    for name, rows in board.per_benchmark.groupby("benchmark", sort=False):
        rows = rows.set_index("optimizer")
        cells = [f"{rows.loc[o, 'mean_rank']:.2f} ({rows.loc[o, 'mean_regret'] * 1e3:.2f})" if o in rows.index else "–"
                 for o in optimizers]
        p = board.benchmark_p.get(name, float("nan"))
        lines.append(f"| {name} | {rows['simulated_seconds'].iloc[0]:.3g} | {int(rows['runs'].min())} | "
                     + " | ".join(cells) + f" | {'–' if np.isnan(p) else f'{p:.2g}'} |")
    bases = {name: regret_basis(name) for name in board.per_benchmark["benchmark"].unique()}
    others = "; ".join(f"{name}: {basis}" for name, basis in bases.items() if basis != TEST)
    lines += ["", "Cells: the optimizer's mean rank over seeds on that benchmark (1 = best), its mean final regret "
                  f"x 10^3 in brackets, on {TEST}" + (f", except on these benchmarks ({others})" if others else "")
              + "."]
    if left_out:
        lines += ["", "Left out: " + "; ".join(f"{name} ({why})" for name, why in left_out.items()) + "."]
    return "\n".join(lines)
