"""The report's multi-objective section, present only when the results hold multi-objective runs.

Per problem (benchmark and objectives): the true front and the median attainment surfaces of
the found fronts (for three or more objectives, both projected onto each pair of objectives),
hypervolume regret over simulated time, the ECDF of final hypervolume regret
and a Friedman/Nemenyi test on it; then the cross-device study: Kendall's tau of latency between
every pair of device settings, and the regret of fronts searched on one device and deployed on
another. All scores as :mod:`nasarena.analysis.multiobjective` computes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd

from ..analysis.curves import incumbent_curves
from ..analysis.ecdf import ecdf
from ..analysis.multiobjective import (
    PROBLEM,
    deployed_regret,
    final_scores,
    found_fronts,
    front_trajectories,
    multiobjective_rows,
    true_front,
)
from ..analysis.pareto import REFERENCE
from ..analysis.trajectories import RUN_KEYS
from ..benchmarks.objectives import parse_objectives
from . import html
from .curves import regret_over_time
from .ecdfs import final_regret_ecdf
from .fronts import front_projections_figure, kendall_heatmap, pareto_fronts_figure
from .style import Style
from .summary_tables import friedman_tests

HV_REGRET = "hypervolume regret"


def multiobjective_section(results: pd.DataFrame, add_figure: Callable[[object, str, str], str],
                           friedman_html: Callable[[list], list[str]]) -> list[str]:
    """The section's HTML parts ([] without multi-objective runs); ``add_figure(figure, name,
    caption)`` saves a figure and returns its HTML, ``friedman_html`` renders rank tests. Lines
    are styled by the configurations' labels within a problem (the optimizer's name)."""
    if multiobjective_rows(results).empty:
        return []
    scored = front_trajectories(results)
    style = Style.for_labels(sorted(scored["label"].unique()))
    by_problem = scored.assign(benchmark=scored[PROBLEM])  # the analysis helpers group by "benchmark"
    final = final_scores(by_problem)
    fronts = found_fronts(results)
    truths = {problem: true_front(*problem.split(" ", 1)) for problem in sorted(final[PROBLEM].unique())}
    parts = [
        html.heading("Multi-objective runs"),
        html.paragraph(
            "Each run's incumbent is the non-dominated set of its feasible evaluations by validation objectives; "
            "its found front is the test values of those architectures, scored against the exact true Pareto front "
            "of the table (test error at the highest fidelity). Hypervolume regret is (HV(true) - HV(found)) / "
            f"HV(true) with every objective normalised by the true front's ideal (0) and nadir (1) and the "
            f"reference point {REFERENCE} in each, so that the true front's extreme points count; 0 is the true "
            "front, 1 a front that dominates none of the reference box. IGD+ is measured on the same scale."),
        html.table(["problem", "true front points", "its points lowest in each objective"],
                   [(problem, len(truth.points), _extremes(problem, truth)) for problem, truth in truths.items()]),
        _final_table(final),
        *_front_figures(truths, fronts, results, style, add_figure),
        add_figure(regret_over_time(incumbent_curves(by_problem, axis="time", metric="hv_regret"), style,
                                    regret_label=HV_REGRET),
                   "hv_regret_vs_time", "Hypervolume regret of the incumbent front against simulated training "
                   "time: median over runs (line) and 25-75 % of runs (band)."),
        add_figure(final_regret_ecdf(_ecdfs(final), style, regret_label=f"final {HV_REGRET}"), "hv_regret_ecdf",
                   "ECDF of the final hypervolume regret over runs: further left and higher is better."),
        *friedman_html(friedman_tests(final, f"final {HV_REGRET}", "hv_regret")),
        *_cross_device(results, fronts, add_figure),
    ]
    return parts


def constrained_note(results: pd.DataFrame) -> list[str]:
    """A note where the results hold constrained runs: their regret has another optimum."""
    if "constraint" not in results.columns or not results["constraint"].notna().any():
        return []
    constrained = results.loc[results["constraint"].notna()]
    runs = constrained.groupby(["benchmark", "optimizer", "settings_hash", "seed"]).ngroups
    share = constrained["feasible"].astype(bool).mean()
    bounds = ", ".join(sorted(constrained["constraint"].unique()))
    return [html.paragraph(
        f"{runs} run(s) ran under a latency constraint ({bounds}): their "
        "incumbent is the most accurate evaluation within the bound, and their regret is measured from the best "
        "architecture of the table within it (benchmarks.objectives.best_under), not from the unconstrained "
        f"optimum. {share:.0%} of their evaluations met the bound; before a run's first feasible evaluation it has "
        "no incumbent and is left out of the curves.", "note")]


def _extremes(problem: str, truth) -> str:
    """Per objective, the true front's point lowest in it: ``error (0.0563, 12.3); latency:pixel3 (...)``."""
    names = _objective_names(problem)
    return "; ".join(f"{name} (" + ", ".join(f"{value:.4g}" for value in truth.points[truth.points[:, k].argmin()])
                     + ")" for k, name in enumerate(names))


def _objective_names(problem: str) -> list[str]:
    return problem.split(" ", 1)[1].split(",")


def _front_figures(truths: dict, fronts: pd.DataFrame, results: pd.DataFrame, style, add_figure) -> list[str]:
    """The fronts of two-objective problems as staircases in one figure; a problem of three or more
    objectives has no staircase in two dimensions, so its true and found fronts are drawn as points
    projected onto each pair of objectives, one figure per problem."""
    pairs = {problem: truth for problem, truth in truths.items() if len(_objective_names(problem)) == 2}
    parts = [add_figure(pareto_fronts_figure(pairs, fronts[fronts[PROBLEM].isin(list(pairs))], style), "pareto_fronts",
                        "True Pareto front (black) and the median attainment surface of each configuration's final "
                        "found fronts over its runs (moocore's EAF at 50 %), per problem.")] if pairs else []
    if len(pairs) == len(truths):
        return parts
    vectors = multiobjective_rows(results).drop_duplicates([*RUN_KEYS, "arch_id"])
    members = fronts.merge(vectors[[*RUN_KEYS, "arch_id", "test_objectives"]], on=[*RUN_KEYS, "arch_id"])
    for problem, truth in truths.items():
        if problem not in pairs:
            parts.append(add_figure(
                front_projections_figure(problem, _objective_names(problem), truth,
                                         members[members[PROBLEM] == problem], style),
                "pareto_projections_" + re.sub(r"[^A-Za-z0-9_.-]+", "-", problem),
                f"{problem}: the true Pareto front (grey) and the final found fronts of every run (one colour and "
                "marker per configuration), test values, projected onto each pair of objectives. A front of more "
                "than two objectives is no staircase in two of them (a point may look dominated in a projection), "
                "so points are drawn; hypervolume regret and IGD+ above are computed in all objectives."))
    return parts


def _final_table(final: pd.DataFrame) -> str:
    """Median final scores per configuration; IGD+ is n/a where no run found a feasible evaluation
    (an empty front has no distance to the true one)."""
    rows = []
    for (problem, name), group in final.groupby([PROBLEM, "label"], sort=True):
        igd = group["igd_plus"].dropna()
        rows.append((problem, name, len(group), f"{group['hv_regret'].median():.4f}",
                     f"{group['hv_regret'].quantile(0.25):.4f}-{group['hv_regret'].quantile(0.75):.4f}",
                     f"{igd.median():.4f}" if len(igd) else "n/a", f"{group['front_size'].median():.1f}"))
    return html.table(["problem", "configuration", "runs", f"median final {HV_REGRET}", "25-75 %", "median IGD+",
                       "median front size"], rows,
                      caption="IGD+ is the median over the runs with a non-empty front (n/a: none has one).")


def _ecdfs(final: pd.DataFrame) -> pd.DataFrame:
    parts = []
    for (problem, name), group in final.groupby([PROBLEM, "label"], sort=True):
        x, y = ecdf(group["hv_regret"])
        parts.append(pd.DataFrame({"benchmark": problem, "label": name, "regret": x, "ecdf": y}))
    return pd.concat(parts, ignore_index=True)


def _cross_device(results: pd.DataFrame, fronts: pd.DataFrame, add_figure) -> list[str]:
    """Kendall matrices of the benchmarks searched with latency, and the deployment table: of the
    found fronts searched for error and one latency (none where every run searched other objectives,
    or no evaluation met a run's constraint, leaving its front empty)."""
    from ..analysis.hardware import latency_kendall_matrix
    from ..benchmarks import benchmark

    if not any([o.kind for o in parse_objectives(text)] == ["error", "latency"] for text in fronts["objectives"]):
        return []
    deployed = deployed_regret(results)
    parts = [html.heading("Cross-device study", 3)]
    for name in sorted(deployed["benchmark"].unique()):
        devices, matrix = latency_kendall_matrix(benchmark(name))
        parts.append(add_figure(kendall_heatmap(devices, matrix, name), f"kendall_{name}",
                                f"Kendall's tau between the latencies of every pair of device settings over every "
                                f"architecture of {name}: how alike two devices rank architectures by speed."))
    table = deployed.pivot_table(index=["benchmark", "searched"], columns="deployed", values="hv_regret",
                                 aggfunc="median")
    rows = [(*index, *(f"{value:.4f}" for value in values)) for index, values in zip(table.index, table.to_numpy())]
    parts += [html.paragraph("Fronts searched on one device (rows) deployed on another (columns): the final found "
                             "architectures scored by test error and latency on the deployment device against its "
                             "true front; median hypervolume regret over every run of every configuration. The "
                             "diagonal is the runs' own regret."),
              html.table(["benchmark", "searched on", *table.columns], rows)]
    return parts
