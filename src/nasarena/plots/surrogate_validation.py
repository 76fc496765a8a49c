"""Is a surrogate benchmark a faithful stand-in for its table? The NB301 validation experiment.

``nasarena surrogate validate`` composes the layers below it (runner, analysis, figures), so it
lives with the other report writers in ``plots``: it measures

1. learning curves: MAE and sparse Kendall tau on a fixed test split against the number of
   training architectures, up to the whole table the surrogate was fitted from (Fig. 1/4);
2. optimizer trajectories on the surrogate and on the table, with the same optimizers, seeds
   and budget in simulated seconds: mean regret curves side by side (Fig. 2, 27), and the
   Kendall tau between the optimizers' final mean regrets on the two (does the surrogate
   rank the optimizers as the table does?);
3. optionally, the case study of Sec. 4: local search for a budget and for ``factor`` times
   that budget, on both.

Regret on the surrogate is on its noise-free predicted validation accuracy; on the table on
its own regret metric (see each benchmark's ``describe()``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_OPTIMIZERS = ("rs", "re", "ls", "tpe", "smac", "bananas")
#: Default budget: this many evaluations of the table's median training time at its highest fidelity.
DEFAULT_BUDGET_EVALUATIONS = 300


@dataclass(frozen=True)
class ValidationPlan:
    """What to run (see the module docstring); ``budget_seconds=None`` uses the default budget."""

    optimizers: tuple[str, ...] = DEFAULT_OPTIMIZERS
    seeds: tuple[int, ...] = tuple(range(20))
    budget_seconds: float | None = None
    curve_sizes: tuple[int, ...] = (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 1_000_000)
    curve_members: int = 1
    case_study: bool = False
    case_study_factor: float = 10.0
    jobs: int = 1

    def __post_init__(self) -> None:
        if not self.seeds:
            raise ValueError("the validation needs at least one seed")
        if self.budget_seconds is not None and not self.budget_seconds > 0:
            raise ValueError(f"budget_seconds must be positive, got {self.budget_seconds}")
        if not self.case_study_factor > 1:
            raise ValueError(f"case_study_factor must be > 1, got {self.case_study_factor}")


@dataclass
class ValidationSummary:
    """Everything the validation measured (written as ``summary.json``)."""

    surrogate: str
    table: str
    budget_seconds: float
    seeds: list[int]
    optimizers: list[str]
    skipped_optimizers: list[str]
    final_mean_regret: dict[str, dict[str, float]] = field(default_factory=dict)
    kendall_tau_of_optimizer_ranking: float = float("nan")
    learning_curve: list[dict] = field(default_factory=list)
    case_study: dict = field(default_factory=dict)
    figures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def validate(surrogate: str, out: Path, plan: ValidationPlan = ValidationPlan(), table: str | None = None,
             data_file: Path | None = None) -> ValidationSummary:
    """Run the validation of ``surrogate`` (a built-in name or an artefact file) into ``out``."""
    from ..benchmarks import benchmark as load_benchmark
    from ..benchmarks.surrogate import open_surrogate

    out = Path(out)
    bench = open_surrogate(surrogate)
    key = _registered_name(surrogate, bench)
    table = table or bench.artifact.source_benchmark
    if table is None:
        raise ValueError(f"{bench.name} records no table it was fitted from: name one to compare with")
    reference = load_benchmark(table)
    optimizers, skipped = _available(plan.optimizers)
    budget = plan.budget_seconds or _default_budget(reference)
    summary = ValidationSummary(bench.name, table, budget, list(plan.seeds), optimizers, skipped)
    if skipped:
        summary.notes.append(f"not registered in this installation, left out: {', '.join(skipped)}")

    results = _trajectories(key, table, optimizers, plan.seeds, budget, out / "trajectories", plan.jobs)
    finals = _final_mean_regrets(results, key, table)
    summary.final_mean_regret = finals
    summary.kendall_tau_of_optimizer_ranking = optimizer_ranking_tau(finals)
    summary.figures += _figures(results, out, "regret_over_time")

    curve_data = _curve_data(surrogate, bench, data_file, summary)
    if curve_data is not None:
        summary.learning_curve = _learning_curve(bench, curve_data, plan)
        summary.figures += _learning_curve_figure(summary.learning_curve, out)
    if plan.case_study:
        summary.case_study = _case_study(key, table, plan, budget, out, summary)
    (out / "summary.json").write_text(json.dumps(asdict(summary), indent=2, default=float) + "\n")
    return summary


def _default_budget(reference) -> float:
    if not hasattr(reference, "mean_over_trials"):
        raise ValueError(f"{reference.name} is not a table: give the budget in seconds")
    return DEFAULT_BUDGET_EVALUATIONS * float(np.nanmedian(reference.mean_over_trials("cost_seconds")))


def optimizer_ranking_tau(finals: dict[str, dict[str, float]]) -> float:
    """Kendall tau between the optimizers' final mean regrets on the surrogate and on the table."""
    from scipy.stats import kendalltau

    names = sorted(finals)
    if len(names) < 2:
        return float("nan")
    return float(kendalltau([finals[n]["surrogate"] for n in names], [finals[n]["table"] for n in names]).statistic)


def _registered_name(surrogate: str, bench) -> str:
    """The registry name runs use: a built-in's own, or a name registered for an artefact file."""
    from ..benchmarks.registry import REGISTRY, Entry, register
    from ..benchmarks.surrogate import load_surrogate

    if surrogate in REGISTRY:
        return surrogate
    name = f"{bench.name}-file"
    path = Path(surrogate).resolve()
    register(Entry(name, f"surrogate artefact {path}", lambda **options: load_surrogate(path, **options)))
    return name


def _available(wanted: Sequence[str]) -> tuple[list[str], list[str]]:
    from ..optimizers.base import REGISTRY
    chosen = [o for o in wanted if o in REGISTRY]
    if not chosen:
        raise ValueError(f"none of the optimizers {', '.join(wanted)} is registered; "
                         f"available: {', '.join(sorted(REGISTRY))}")
    return chosen, [o for o in wanted if o not in REGISTRY]


def _trajectories(surrogate: str, table: str, optimizers, seeds, budget: float, out: Path, jobs: int) -> pd.DataFrame:
    from ..runner import Budget
    from ..runner.experiment import grid, load_results, run_experiment

    specs = grid([surrogate, table], optimizers, seeds, Budget(seconds=budget))
    run_experiment(specs, out, jobs=jobs)
    results = load_results(out)
    hashes = {s.settings_hash for s in specs}
    return results[results.settings_hash.isin(hashes) & results.seed.isin(list(seeds))]


def _final_mean_regrets(results: pd.DataFrame, surrogate: str, table: str) -> dict[str, dict[str, float]]:
    from ..analysis.trajectories import final_results

    final = final_results(results).groupby(["optimizer", "benchmark"])["incumbent_test_regret"].mean()
    return {optimizer: {"surrogate": float(final[optimizer, surrogate]), "table": float(final[optimizer, table])}
            for optimizer in sorted(final.index.get_level_values(0).unique())}


def _figures(results: pd.DataFrame, out: Path, stem: str, marker: float | None = None) -> list[str]:
    """Mean regret curves over simulated time, one panel per benchmark (nothing without matplotlib)."""
    from ..analysis.curves import incumbent_curves

    try:
        from .backend import save_figure
        from .curves import regret_over_time
    except ImportError:
        return []
    try:
        figure = regret_over_time(incumbent_curves(results, axis="time"), show_mean=True)
    except ImportError:
        return []
    if marker is not None:
        for axis in figure.axes[: len(results.benchmark.unique())]:
            axis.axvline(marker, color="#777777", linewidth=0.8, linestyle=":")
    return [str(save_figure(figure, out / "figures" / stem).png)]


def _curve_data(surrogate: str, bench, data_file: Path | None, summary: ValidationSummary):
    from ..surrogates.builtin import BUILTINS
    from ..surrogates.data import read_training_data

    if data_file is not None:
        data = read_training_data(data_file, bench.space)
        if data.sha256 != bench.artifact.data.sha256:
            summary.notes.append(f"{data_file} is not the data {bench.name} was fitted on (sha256 differs): the "
                                 f"learning curve is of that file")
        return data
    if surrogate in BUILTINS:
        return BUILTINS[surrogate].full_table()
    summary.notes.append("no learning curve: give the data file the surrogate was fitted on")
    return None


def _learning_curve(bench, data, plan: ValidationPlan) -> list[dict]:
    from dataclasses import replace

    from ..surrogates.learning_curves import learning_curve
    from ..surrogates.settings import FitSettings

    settings = replace(bench.artifact.settings or FitSettings(bench.artifact.model), members=plan.curve_members)
    points = learning_curve(data, bench.artifact.space, plan.curve_sizes, settings)
    return [{"training_architectures": p.training_architectures, "fidelity": p.fidelity, **p.metrics.to_dict()}
            for p in points]


def _learning_curve_figure(points: list[dict], out: Path) -> list[str]:
    """MAE and sparse Kendall tau against the number of training architectures, a line per fidelity."""
    try:
        from .backend import new_figure, save_figure
        from .style import publication
    except ImportError:
        return []
    import pandas as pd

    frame = pd.DataFrame(points)
    try:
        with publication():
            figure = new_figure(6.4, 2.6)
            axes = figure.subplots(1, 2)
            for fidelity, curve in frame.groupby("fidelity"):
                for axis, metric in zip(axes, ("mae", "sparse_kendall_tau")):
                    axis.plot(curve.training_architectures, curve[metric], marker="o", markersize=3,
                              label=f"{fidelity} epochs")
            for axis, label in zip(axes, ("MAE (test split)", "sparse Kendall tau (test split)")):
                axis.set_xscale("log")
                axis.set_xlabel("training architectures")
                axis.set_ylabel(label)
            axes[1].legend()
    except ImportError:
        return []
    return [str(save_figure(figure, out / "figures" / "learning_curve").png)]


def _case_study(surrogate: str, table: str, plan: ValidationPlan, budget: float, out: Path,
                summary: ValidationSummary) -> dict:
    """Local search for ``factor`` x the budget: its mean regret at the budget and at the end, on both."""
    from ..analysis.curves import incumbent_curves
    from ..optimizers.base import REGISTRY
    if "ls" not in REGISTRY:
        summary.notes.append("no case study: local search (ls) is not registered")
        return {}
    long_budget = budget * plan.case_study_factor
    results = _trajectories(surrogate, table, ["ls"], plan.seeds, long_budget, out / "case_study", plan.jobs)
    curves = incumbent_curves(results, axis="time", grid=np.array([budget, long_budget]))
    study = {"optimizer": "ls", "budget_seconds": budget, "long_budget_seconds": long_budget}
    for bench, role in ((surrogate, "surrogate"), (table, "table")):
        at = curves[curves.benchmark == bench].set_index("x")["mean"]
        study[role] = {"mean_regret_at_budget": float(at.iloc[0]), "mean_regret_at_long_budget": float(at.iloc[-1])}
    summary.figures += _figures(results, out, "case_study_ls", marker=budget)
    return study
