"""The report's multi-objective section, present only when the results hold multi-objective runs.

A report of multi-objective runs opens with it. Per problem (benchmark and objectives): the true
front and the median attainment surfaces of the found fronts, zoomed on the accurate region with
the whole front beside it (for three or more objectives, both projected onto each pair of
objectives); each score over simulated time; the final scores, their ECDFs and a
Friedman/Nemenyi test per score; then the cross-device study: Kendall's tau of latency between
every pair of device settings, grouped by kind of device, and the regret of fronts searched on
one device and deployed on another. The region-of-interest hypervolume regret (``hv_regret_roi``)
leads wherever the analysis computes it, the full-box one (``hv_regret``) beside it, and every
caption names its score. All scores as :mod:`nasarena.analysis.multiobjective` computes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

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
    problem_front,
    problem_objectives,
)
from ..analysis.pareto import REFERENCE
from ..analysis.trajectories import RUN_KEYS
from ..benchmarks.objectives import parse_objectives
from . import html
from .curves import regret_over_time
from .ecdfs import final_regret_ecdf
from .fronts import ZOOM_ERROR, front_projections_figure, kendall_heatmap, pareto_fronts_figure
from .style import Style
from .summary_tables import friedman_tests


@dataclass(frozen=True)
class Score:
    """A score of found fronts as the report shows it: its hypervolume regret column in the
    analysis' tables and the IGD+ column of the same box, its name in headings and captions, and
    the box it is of."""

    column: str
    igd: str
    name: str
    box: str

    @property
    def axis(self) -> str:
        return f"HV regret ({self.box})"


#: The scores shown, in order, each where the analysis computes it: the region-of-interest score
#: (the default: hypervolume regret on the accurate part of the true front, where NB201's fronts
#: differ) first, the full-box score (the whole normalised box) beside it.
SCORES = (Score("hv_regret_roi", "igd_plus_roi", "accurate-region hypervolume regret", "accurate region"),
          Score("hv_regret", "igd_plus", "full-box hypervolume regret", "full box"))


def scores_of(table: pd.DataFrame) -> list[Score]:
    """The :data:`SCORES` that ``table`` has a column of (an analysis without the region of
    interest scores the full box only)."""
    return [score for score in SCORES if score.column in table.columns]


def multiobjective_section(results: pd.DataFrame, add_figure: Callable[[object, str, str], str],
                           friedman_html: Callable[[list], list[str]]) -> list[str]:
    """The section's HTML parts ([] without multi-objective runs), in the order a reader of
    multi-objective runs asks: the true and found fronts, the scores over time, the final scores
    and their tests, then the cross-device study. ``add_figure(figure, name, caption)`` saves a
    figure and returns its HTML, ``friedman_html`` renders rank tests. Lines are styled by the
    configurations' labels within a problem (the optimizer's name)."""
    if multiobjective_rows(results).empty:
        return []
    scored = front_trajectories(results)
    style = Style.for_labels(sorted(scored["label"].unique()))
    by_problem = scored.assign(benchmark=scored[PROBLEM])  # the analysis helpers group by "benchmark"
    final = final_scores(by_problem)
    scores = scores_of(final)
    fronts = found_fronts(results)
    truths = {problem: problem_front(problem) for problem in sorted(final[PROBLEM].unique())}
    return [
        html.heading("Multi-objective runs"),
        html.paragraph(_scores_text(scores)),
        html.heading("True and found fronts", 3),
        *_front_figures(truths, fronts, results, style, add_figure),
        html.table(["problem", "true front points", "its points lowest in each objective"],
                   [(problem, len(truth.points), _extremes(problem, truth)) for problem, truth in truths.items()],
                   caption="The exact true front of each problem (test values)."),
        html.heading("Scores over time", 3),
        *[add_figure(regret_over_time(incumbent_curves(by_problem, axis="time", metric=score.column), style,
                                      regret_label=score.axis),
                     f"{score.column}_vs_time",
                     f"Score: {score.name} ({score.column}). {_capital(score.name)} of the incumbent front against "
                     "simulated training time: median over runs (line) and 25-75 % of runs (band).")
          for score in scores],
        html.heading("Final scores and their statistics", 3),
        _final_table(final, scores),
        *[add_figure(final_regret_ecdf(_ecdfs(final, score.column), style, regret_label=f"final {score.axis}"),
                     f"{score.column}_ecdf",
                     f"Score: {score.name} ({score.column}). ECDF of the final {score.name} over runs: further "
                     "left and higher is better.")
          for score in scores],
        *[part for score in scores for part in friedman_html(friedman_tests(final, f"final {score.name}",
                                                                            score.column))],
        *_cross_device(results, fronts, add_figure),
    ]


def _scores_text(scores: list[Score]) -> str:
    """What the section's scores are: the found front, the full-box score and, where the results
    have it, the region-of-interest score that leads."""
    text = ("Each run's incumbent is the non-dominated set of its feasible evaluations by validation objectives; "
            "its found front is the test values of those architectures, scored against the exact true Pareto front "
            "of the table (test error at the highest fidelity). The full-box hypervolume regret (hv_regret) is "
            "(HV(true) - HV(found)) / HV(true) with every objective normalised by the true front's ideal (0) and "
            f"nadir (1) and the reference point {REFERENCE} in each, so that the true front's extreme points count; "
            "0 is the true front, 1 a front that dominates none of the reference box. IGD+ is measured on the same "
            "scale.")
    if scores[0].column != "hv_regret_roi":
        return text
    return (text + " The accurate-region hypervolume regret (hv_regret_roi), the default score and shown first, is "
            "the same ratio on the accurate part of the true front only, its points within "
            "nasarena.analysis.pareto.MAX_ERROR_ABOVE_BEST of its best error, in that part's own box: where the "
            "full box spends most of its volume on inaccurate architectures (NB201's degenerate cell at 90 % "
            "error), it tells optimizers apart where a user would deploy.")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


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
    return problem_objectives(problem)


def _front_figures(truths: dict, fronts: pd.DataFrame, results: pd.DataFrame, style, add_figure) -> list[str]:
    """The fronts of two-objective problems as staircases in one figure; a problem of three or more
    objectives has no staircase in two dimensions, so its true and found fronts are drawn as points
    projected onto each pair of objectives, one figure per problem."""
    pairs = {problem: truth for problem, truth in truths.items() if len(_objective_names(problem)) == 2}
    parts = [add_figure(pareto_fronts_figure(pairs, fronts[fronts[PROBLEM].isin(list(pairs))], style), "pareto_fronts",
                        "True Pareto front (black) and the median attainment surface of each configuration's final "
                        "found fronts over its runs (moocore's EAF at 50 %), one row per problem. Left: zoomed on the "
                        f"accurate region, test error up to {ZOOM_ERROR * 100:g} percentage points above the true "
                        "front's best; right: the whole front (on NB201 it ends in a degenerate cell at about 90 % "
                        "error), the zoom dashed.")] if pairs else []
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
                "so points are drawn; the scores below are computed in all objectives."))
    return parts


def _final_table(final: pd.DataFrame, scores: list[Score]) -> str:
    """Per configuration, each score's median and 25-75 % range over its runs and the median IGD+
    of its box (the leading score first), and the median front size; IGD+ is n/a where no run
    found a feasible evaluation (an empty front has no distance to the true one)."""
    boxes = [score for score in scores if score.igd in final.columns]
    rows = []
    for (problem, name), group in final.groupby([PROBLEM, "label"], sort=True):
        rows.append((problem, name, len(group),
                     *(f"{group[s.column].median():.4f} ({group[s.column].quantile(0.25):.4f}-"
                       f"{group[s.column].quantile(0.75):.4f})" for s in scores),
                     *(_median(group[s.igd]) for s in boxes), f"{group['front_size'].median():.1f}"))
    return html.table(["problem", "configuration", "runs", *(f"final {s.name}: median (25-75 %)" for s in scores),
                       *(f"median IGD+ ({s.box})" for s in boxes), "median front size"], rows,
                      caption=f"Scores: {'; '.join(f'{s.name} ({s.column})' for s in scores)}; lower is better. "
                              "Final scores over each configuration's runs. IGD+ is the median over the runs with "
                              "a non-empty front (n/a: none has one), in the box of each score.")


def _median(values: pd.Series) -> str:
    known = values.dropna()
    return f"{known.median():.4f}" if len(known) else "n/a"


def _ecdfs(final: pd.DataFrame, column: str) -> pd.DataFrame:
    parts = []
    for (problem, name), group in final.groupby([PROBLEM, "label"], sort=True):
        x, y = ecdf(group[column])
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
        parts.append(add_figure(kendall_heatmap(devices, matrix, name, _device_groups(devices)), f"kendall_{name}",
                                f"Kendall's tau between the latencies of every pair of device settings over every "
                                f"architecture of {name}: how alike two devices rank architectures by speed. Devices "
                                "are grouped by kind (desktop GPUs by batch size, server CPUs, phones, ...), the "
                                "groups outlined in white and named at the top."))
    for score in scores_of(deployed):
        table = deployed.pivot_table(index=["benchmark", "searched"], columns="deployed", values=score.column,
                                     aggfunc="median")
        rows = [(*index, *(f"{value:.4f}" for value in values)) for index, values in zip(table.index, table.to_numpy())]
        parts.append(html.table(
            ["benchmark", "searched on", *table.columns], rows, keys=2,
            caption=f"Score: {score.name} ({score.column}). Fronts searched on one device (rows) deployed on another (columns): the "
                    "final found architectures scored by test error and latency on the deployment device against "
                    f"its true front; median {score.name} over every run of every configuration. The diagonal is "
                    "the runs' own score."))
    return parts


def _device_groups(devices: tuple[str, ...]) -> dict[str, list[str]]:
    """The device settings by kind, in the order drawn: desktop GPUs by batch size (a GPU at batch
    1 ranks architectures like another GPU at batch 1, not like itself at batch 256), then CPUs,
    phones, the edge device and the simulators; a kind not listed here comes last."""
    from ..benchmarks.latency import device_setting

    kinds = ("desktop GPU", "server CPU", "phone", "edge device", "ASIC simulator", "FPGA simulator")
    settings = sorted((device_setting(name) for name in devices),
                      key=lambda s: (kinds.index(s.kind) if s.kind in kinds else len(kinds), s.kind,
                                     s.batch_size or 0, s.name))
    groups: dict[str, list[str]] = {}
    for setting in settings:
        kind = f"GPU, batch {setting.batch_size}" if setting.kind == "desktop GPU" else setting.kind
        groups.setdefault(kind, []).append(setting.name)
    return groups
