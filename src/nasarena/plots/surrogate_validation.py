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
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..benchmarks.registry import BenchmarkSpec
from ..errors import InvalidSettingError, UnknownNameError

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


COMMAND = "surrogate validate"
SUMMARY_FILE = "summary.json"
#: A folder a validation wrote before nasarena marked its folders is known by this file.
EARLIER_VALIDATION = "trajectories/settings.json"


def validate(surrogate: str, out: Path, plan: ValidationPlan = ValidationPlan(), table: str | None = None,
             data_file: Path | None = None) -> ValidationSummary:
    """Run the validation of ``surrogate`` (a built-in name or an artefact file) into ``out``.

    ``table`` must be a benchmark of the surrogate's space (default: the one it was fitted from).
    ``out`` must be new, empty or the folder of an earlier validation of the same artefact (whose
    finished optimizer runs are reused); a folder this call creates is removed when it fails."""
    from ..benchmarks.surrogate import open_surrogate
    from .staging import owned_output

    out = Path(out)
    bench = open_surrogate(surrogate)
    compared = Compared.of(surrogate, bench, table)
    reference = _reference(compared.table, bench)
    optimizers, skipped = _available(plan.optimizers)
    budget = plan.budget_seconds or _default_budget(reference)
    with owned_output(out, COMMAND, compared.identity(), recognised=(EARLIER_VALIDATION,)):
        summary = ValidationSummary(bench.name, compared.table, budget, list(plan.seeds), optimizers, skipped)
        if skipped:
            summary.notes.append(f"not registered in this installation, left out: {', '.join(skipped)}")

        results = _trajectories(compared, optimizers, plan.seeds, budget, out / "trajectories", plan.jobs)
        summary.final_mean_regret = _final_mean_regrets(results, compared.label, compared.table)
        summary.kendall_tau_of_optimizer_ranking = optimizer_ranking_tau(summary.final_mean_regret)
        if not math.isfinite(summary.kendall_tau_of_optimizer_ranking):
            summary.notes.append("the Kendall tau of the optimizers' ranking is undefined (null in summary.json): "
                                 "fewer than 2 optimizers, or equal final mean regrets on one benchmark")
        summary.figures += _figures(results, out, "regret_over_time")

        curve_data = _curve_data(surrogate, bench, data_file, summary)
        if curve_data is not None:
            summary.learning_curve = _learning_curve(bench, curve_data, plan)
            summary.figures += _learning_curve_figure(summary.learning_curve, out)
        if plan.case_study:
            summary.case_study = _case_study(compared, plan, budget, out, summary)
        write_summary(summary, out / SUMMARY_FILE)
    return summary


@dataclass(frozen=True)
class Compared:
    """The surrogate and the table as the optimizer runs name them.

    The surrogate is a :class:`~nasarena.benchmarks.registry.BenchmarkSpec` that every worker
    process loads itself: a built-in surrogate by its registered name, an artefact file as the
    registered ``surrogate`` benchmark with its ``path`` (a name registered in this process
    alone would be unknown to the workers). ``label`` is the surrogate's name in the summary
    and figures."""

    surrogate: BenchmarkSpec
    label: str
    table: str
    digest: str

    @classmethod
    def of(cls, surrogate: str, bench, table: str | None) -> Compared:
        from ..benchmarks.surrogate import ARTIFACT_SUFFIX, BUILTIN_DIRECTORY
        from ..io.packaged import data_dir, read_manifest
        from ..surrogates.artifact import read_header

        table = table or bench.artifact.source_benchmark
        if table is None:
            raise InvalidSettingError(f"{bench.name} records no table it was fitted from: name one to compare "
                                      "with (--table)")
        path = Path(surrogate)
        if path.is_file():  # as open_surrogate: a file before a built-in's name
            return cls(BenchmarkSpec.of("surrogate", path=str(path.resolve())), bench.name, table,
                       read_header(path)["sha256"])
        digest = read_manifest(data_dir() / BUILTIN_DIRECTORY)[surrogate + ARTIFACT_SUFFIX].sha256
        return cls(BenchmarkSpec(surrogate), bench.name, table, digest)

    def identity(self) -> dict:
        """What an output folder's runs are of: runs of every artefact file are named ``surrogate``,
        so a folder must not take the runs of another artefact (its digest differs)."""
        return {"surrogate": self.label, "artefact_sha256": self.digest}

    def specs(self, optimizers, seeds, budget) -> list:
        from ..runner.experiment import grid

        return (grid([self.surrogate.name], optimizers, seeds, budget, benchmark_options=dict(self.surrogate.options))
                + grid([self.table], optimizers, seeds, budget))


def _reference(table: str, bench):
    """The table ``table``, loaded; refused unless it is of the surrogate's space (the optimizers
    would search two different spaces, and the comparison would mean nothing)."""
    from ..benchmarks import benchmark as load_benchmark

    reference = load_benchmark(table)
    space = getattr(reference.space, "name", None)
    if space != bench.artifact.space:
        fitted = f" (it was fitted from {bench.artifact.source_benchmark})" if bench.artifact.source_benchmark else ""
        raise InvalidSettingError(f"table {table} is a benchmark of the {space} space, but the surrogate {bench.name} "
                                  f"is of the {bench.artifact.space} space: compare it with a table of its own "
                                  f"space{fitted}")
    return reference


def write_summary(summary: ValidationSummary, path: Path) -> None:
    """``summary.json``: strict JSON, an undefined number (NaN, inf) written as null."""
    from ..io.files import atomic_write_bytes

    text = json.dumps(json_safe(asdict(summary)), indent=2, allow_nan=False) + "\n"
    atomic_write_bytes(path, text.encode())


def json_safe(value):
    """``value`` with every non-finite number as None (JSON has no NaN: a bare ``NaN`` makes the
    file unreadable to strict parsers) and numpy numbers as Python ones."""
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def _default_budget(reference) -> float:
    if not hasattr(reference, "mean_over_trials"):
        raise ValueError(f"{reference.name} is not a table: give the budget in seconds")
    return DEFAULT_BUDGET_EVALUATIONS * float(np.nanmedian(reference.mean_over_trials("cost_seconds")))


def optimizer_ranking_tau(finals: dict[str, dict[str, float]]) -> float:
    """Kendall tau between the optimizers' final mean regrets on the surrogate and on the table;
    NaN (undefined) for fewer than two optimizers or when one side ranks them all equal."""
    from scipy.stats import kendalltau

    names = sorted(finals)
    on_surrogate = np.array([finals[n]["surrogate"] for n in names], dtype=float)
    on_table = np.array([finals[n]["table"] for n in names], dtype=float)
    if len(names) < 2 or not (np.isfinite(on_surrogate).all() and np.isfinite(on_table).all()):
        return float("nan")
    if np.ptp(on_surrogate) == 0 or np.ptp(on_table) == 0:
        return float("nan")  # a constant ranking has no correlation (scipy would warn and say NaN)
    return float(kendalltau(on_surrogate, on_table).statistic)


def _available(wanted: Sequence[str]) -> tuple[list[str], list[str]]:
    from ..optimizers.base import REGISTRY
    chosen = [o for o in wanted if o in REGISTRY]
    if not chosen:
        raise UnknownNameError(f"none of the optimizers {', '.join(wanted)} is registered; "
                         f"available: {', '.join(sorted(REGISTRY))}")
    return chosen, [o for o in wanted if o not in REGISTRY]


def _trajectories(compared: Compared, optimizers, seeds, budget: float, out: Path, jobs: int) -> pd.DataFrame:
    """The runs of both benchmarks (computed where missing), the surrogate's labelled with its name."""
    from ..runner import Budget
    from ..runner.experiment import load_results, run_experiment

    specs = compared.specs(optimizers, seeds, Budget(seconds=budget))
    run_experiment(specs, out, jobs=jobs)
    results = load_results(out)
    hashes = {s.settings_hash for s in specs}
    results = results[results.settings_hash.isin(hashes) & results.seed.isin(list(seeds))]
    return results.assign(benchmark=results.benchmark.replace({compared.surrogate.name: compared.label}))


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
    from ..studies.builtin_surrogates import RECIPES, full_table
    from ..surrogates.data import read_training_data

    if data_file is not None:
        data = read_training_data(data_file, bench.space)
        if data.sha256 != bench.artifact.data.sha256:
            summary.notes.append(f"{data_file} is not the data {bench.name} was fitted on (sha256 differs): the "
                                 f"learning curve is of that file")
        return data
    if surrogate in RECIPES:
        return full_table(surrogate)
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


def _case_study(compared: Compared, plan: ValidationPlan, budget: float, out: Path,
                summary: ValidationSummary) -> dict:
    """Local search for ``factor`` x the budget: its mean regret at the budget and at the end, on both."""
    from ..analysis.curves import incumbent_curves
    from ..optimizers.base import REGISTRY
    if "ls" not in REGISTRY:
        summary.notes.append("no case study: local search (ls) is not registered")
        return {}
    long_budget = budget * plan.case_study_factor
    results = _trajectories(compared, ["ls"], plan.seeds, long_budget, out / "case_study", plan.jobs)
    curves = incumbent_curves(results, axis="time", grid=np.array([budget, long_budget]))
    study = {"optimizer": "ls", "budget_seconds": budget, "long_budget_seconds": long_budget}
    for bench, role in ((compared.label, "surrogate"), (compared.table, "table")):
        at = curves[curves.benchmark == bench].set_index("x")["mean"]
        study[role] = {"mean_regret_at_budget": float(at.iloc[0]), "mean_regret_at_long_budget": float(at.iloc[-1])}
    summary.figures += _figures(results, out, "case_study_ls", marker=budget)
    return study
