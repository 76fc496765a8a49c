"""The zero-cost warm-up (Abdelfattah et al., ICLR 2021, Sec. 5) of RE and BANANAS on NB201 CIFAR-10,
with the proxy's measured cost charged to the simulated clock.

Each optimizer runs with and without ``zero_cost_warmup=SAMPLES`` on ``nb201-cifar10`` loaded with
``proxy=PROXY`` (the embedded table's values; fidelity 0 costs each architecture's measured
seconds), on the same seeds, up to the largest budget. RE takes the paper's aging-evolution
settings (population 64, tournament 10: the warm-up's top 64 are the initial population);
BANANAS its defaults, the warm-up choosing its initial samples (the paper warms up its own
predictor-based search, whose protocol it does not publish). The same runs are read at every
budget of the study, so the budgets are checkpoints of one run, not separate runs.

:func:`summarise` reads, per optimizer and budget, the median and mean test regret of the
incumbent with and without the warm-up and the Wilcoxon signed-rank p paired by seed (ties
dropped: a budget where every pair is equal has no p), and the trained architectures per run;
:func:`warmup_cost` what the warm-up's scores cost against one training, from the benchmark's
data. ``docs/estimators.md`` prints both (``nasarena reproduce estimators``, block ``warmup``);
``bench/bench_zero_cost_warmup.py`` prints them at any size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon

from ..runner.experiment import RunSpec, grid
from ..runner.protocol import Budget

BENCHMARK = "nb201-cifar10"
#: About 13, 65 and 200 full trainings of an average NB201 cell (modelled).
CHECKPOINTS = (2e4, 1e5, 3e5)
#: Each optimizer's settings besides the warm-up; RE's are the paper's aging evolution.
SETTINGS = {"re": {"population_size": 64, "tournament_size": 10}, "bananas": {}}
NAMES = {"re": "RE (population 64)", "bananas": "BANANAS"}
#: The p below which a difference counts as shown in the verdict under the table.
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class Study:
    """What one warm-up study runs: the optimizers, seeds ``0..seeds-1``, the warm-up's size and
    proxy, and the budgets read (the runs go to the largest)."""

    optimizers: tuple[str, ...] = ("re", "bananas")
    seeds: int = 50
    samples: int = 3000
    proxy: str = "synflow"
    checkpoints: tuple[float, ...] = CHECKPOINTS

    @property
    def budget(self) -> float:
        return max(self.checkpoints)


def specs(study: Study) -> list[RunSpec]:
    """Every run: each optimizer without and with the warm-up, on the same seeds."""
    planned: list[RunSpec] = []
    for warm in (0, study.samples):
        settings = {name: {**SETTINGS[name], **({"zero_cost_warmup": warm} if warm else {})}
                    for name in study.optimizers}
        planned += grid([BENCHMARK], list(study.optimizers), range(study.seeds), Budget(seconds=study.budget),
                        settings, benchmark_options={"proxy": study.proxy})
    return planned


def warmup_of(spec: RunSpec) -> int:
    return int(dict(spec.optimizer_settings).get("zero_cost_warmup", 0))


def regret_at(results: pd.DataFrame, times: Sequence[float]) -> pd.DataFrame:
    """Per run (optimizer, settings hash, seed) the incumbent's test regret at each of ``times``
    (NaN before its first training ends) and its number of trained architectures."""
    rows = []
    for (optimizer, settings, seed), run in results.groupby(["optimizer", "settings_hash", "seed"]):
        run = run.sort_values("sim_time")
        clock, regret = run["sim_time"].to_numpy(), run["incumbent_test_regret"].to_numpy()
        positions = np.searchsorted(clock, times, side="right") - 1
        values = [regret[p] if p >= 0 else np.nan for p in positions]
        rows.append((optimizer, settings, seed, len(run), *values))
    return pd.DataFrame(rows, columns=["optimizer", "settings_hash", "seed", "trained", *times])


def key(time: float) -> str:
    """A budget as the values' keys name it: ``2e4``."""
    return f"{time:.0e}".replace("e+0", "e").replace("e+", "e")


def summarise(results: pd.DataFrame, planned: Sequence[RunSpec], study: Study) -> dict[str, float]:
    """The study's values, keyed ``OPTIMIZER/BUDGET/...`` (regrets in %):

    - ``median/without``, ``median/with``, ``mean/without``, ``mean/with``: over the seeds whose
      runs have trained something by that budget, with and without;
    - ``p``: Wilcoxon signed-rank over those seeds, paired (NaN: every pair equal);
    - ``not_started``: seeds left out there because a run had trained nothing yet;

    and ``OPTIMIZER/trained/without`` and ``/with`` (median architectures trained per run),
    ``OPTIMIZER/seeds`` (seeds with both runs)."""
    warm_of = {spec.settings_hash: warmup_of(spec) for spec in planned}
    table = regret_at(results, study.checkpoints)
    table["warmup"] = table["settings_hash"].map(warm_of)
    values: dict[str, float] = {}
    for optimizer in study.optimizers:
        runs = table[table["optimizer"] == optimizer]
        without = runs[runs["warmup"] == 0].set_index("seed")
        warmed = runs[runs["warmup"] > 0].set_index("seed")
        seeds = without.index.intersection(warmed.index).sort_values()
        values[f"{optimizer}/seeds"] = float(len(seeds))
        values[f"{optimizer}/trained/without"] = float(without.loc[seeds, "trained"].median())
        values[f"{optimizer}/trained/with"] = float(warmed.loc[seeds, "trained"].median())
        for time in study.checkpoints:
            a, b = without.loc[seeds, time].to_numpy(), warmed.loc[seeds, time].to_numpy()
            both = np.isfinite(a) & np.isfinite(b)
            a, b = a[both] * 100, b[both] * 100
            name = f"{optimizer}/{key(time)}"
            values[f"{name}/median/without"], values[f"{name}/median/with"] = float(np.median(a)), float(np.median(b))
            values[f"{name}/mean/without"], values[f"{name}/mean/with"] = float(np.mean(a)), float(np.mean(b))
            values[f"{name}/p"] = float(wilcoxon(a, b).pvalue) if np.any(a != b) else float("nan")
            values[f"{name}/not_started"] = float((~both).sum())
    return values


def warmup_cost(study: Study) -> dict[str, float]:
    """What the warm-up's scores cost in simulated seconds, from the benchmark's data: its
    ``samples`` distinct cells are drawn uniformly from NB201's 15,625, so on average they cost
    ``samples`` times the mean measured seconds of the proxy over all cells; beside it the mean
    over all cells of one 200-epoch training (modelled, as the runs charge it)."""
    from ..benchmarks import benchmark

    bench = benchmark(BENCHMARK, proxy=study.proxy)
    seconds = np.asarray(bench.zero_cost.seconds, dtype=np.float64)
    training = np.asarray(bench.mean_over_trials("cost_seconds"), dtype=np.float64)
    return {"cost/cells": float(len(seconds)), "cost/warmup_seconds": float(study.samples * seconds.mean()),
            "cost/training_seconds": float(training.mean())}


def _pair(without: float, warmed: float) -> str:
    return f"{without:.2f} → {warmed:.2f}"


def _p(p: float) -> str:
    return "no p (every pair equal)" if p != p else f"p {p:.2g}"


def markdown(values: dict[str, float], study: Study) -> str:
    """The caption, the table (median [mean] test regret in %, without → with, and the p per
    budget; trained per run) and a verdict read off the values."""
    budgets = " | ".join(f"{key(time)} s" for time in study.checkpoints)
    lines = [f"{BENCHMARK}, {study.proxy} over {study.samples:,} distinct random cells with its measured cost "
             f"charged, seeds 0-{study.seeds - 1}, the same seeds with and without the warm-up, runs of "
             f"{key(study.budget)} simulated seconds read at each budget; median [mean] test regret in % of the "
             "incumbent, without → with, and the Wilcoxon signed-rank p paired by seed:", "",
             f"| optimizer | {budgets} | trained per run |", "|---|" + "---|" * (len(study.checkpoints) + 1)]
    for optimizer in study.optimizers:
        cells = []
        for time in study.checkpoints:
            name = f"{optimizer}/{key(time)}"
            cell = (f"{_pair(values[f'{name}/median/without'], values[f'{name}/median/with'])} "
                    f"[{_pair(values[f'{name}/mean/without'], values[f'{name}/mean/with'])}], "
                    f"{_p(values[f'{name}/p'])}")
            if values[f"{name}/not_started"]:
                cell += f" ({values[f'{name}/not_started']:.0f} seeds not started, left out)"
            cells.append(cell)
        trained = f"{values[f'{optimizer}/trained/without']:.0f} → {values[f'{optimizer}/trained/with']:.0f}"
        lines.append(f"| {NAMES.get(optimizer, optimizer)} | {' | '.join(cells)} | {trained} |")
    lines += ["", verdict(values, study)]
    return "\n".join(lines)


def helped(values: dict[str, float], optimizer: str, time: float) -> bool:
    """Whether the warm-up shows an improvement there: a lower mean, a median not higher, and
    p below :data:`SIGNIFICANCE`."""
    name = f"{optimizer}/{key(time)}"
    return (values[f"{name}/mean/with"] < values[f"{name}/mean/without"]
            and values[f"{name}/median/with"] <= values[f"{name}/median/without"]
            and values[f"{name}/p"] < SIGNIFICANCE)


def verdict(values: dict[str, float], study: Study) -> str:
    """What the table shows, in words computed from it, and what the warm-up cost."""
    names = {optimizer: NAMES.get(optimizer, optimizer).split(" (")[0] for optimizer in study.optimizers}
    missed = [f"{names[o]} at {key(t)} s" for o in study.optimizers for t in study.checkpoints
              if not helped(values, o, t)]
    shown = f"a lower mean, a median not higher and p < {SIGNIFICANCE:g}"
    if len(missed) == len(study.optimizers) * len(study.checkpoints):
        found = f"The warm-up shows an improvement ({shown}) nowhere."
    elif missed:
        found = f"The warm-up shows an improvement ({shown}) everywhere except for {', '.join(missed)}."
    else:
        found = (f"The warm-up helps {'both' if len(study.optimizers) == 2 else 'each optimizer'} at every budget: "
                 f"{shown} everywhere.")
    fewer = [o for o in study.optimizers if values[f"{o}/trained/with"] < values[f"{o}/trained/without"]]
    if len(fewer) == len(study.optimizers):
        trained = (f"Warmed runs train fewer architectures in the same time: {study.proxy} prefers large networks, "
                   "whose modelled training costs more.")
    else:
        trained = (f"Warmed runs of {', '.join(names[o] for o in fewer) or 'no optimizer'} train fewer "
                   "architectures in the same time.")
    ratio = values["cost/warmup_seconds"] / values["cost/training_seconds"]
    cost = (f"The warm-up's {study.samples:,} scores cost about {values['cost/warmup_seconds']:,.0f} simulated "
            f"seconds on average ({study.samples:,} times the mean measured {study.proxy} seconds over NB201's "
            f"{values['cost/cells']:,.0f} cells), {ratio:.2f} of one average 200-epoch training "
            f"({values['cost/training_seconds']:,.0f} s, modelled, the mean over the same cells).")
    return " ".join((found, trained, cost))
