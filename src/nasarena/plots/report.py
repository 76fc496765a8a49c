"""``write_report``: every figure (PNG and PDF) and one self-contained HTML report of an experiment.

The report answers, for whoever opens it later: what was run (configurations with their exact
settings, budgets, and how many runs each finished, so a partial experiment is visible as
such), how good the final architectures are, how good the search is at any time (curves,
hypervolume, attainment), whether the differences are significant, and with which versions
the report was made.

A report of multi-objective runs opens with what they were run for: the true and found fronts,
the scores of the fronts over time and their statistics. The single-objective views of the same
runs (the accuracy regret of each run's most accurate architecture) come after, headed as such,
and cite no paper: the anytime paper's and NAS-Bench-101's comparisons, Table I with its paper
values and notes among them, are single-objective studies of NB101, nothing to set beside fronts.
A report of single-objective runs shows a paper's values only beside runs of its protocol (the
same benchmark, optimizers, settings and budget: ``compare_with_papers``), elsewhere one line
saying why not.
"""

from __future__ import annotations

import json
import platform
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.anytime import Normalization, run_hypervolumes
from ..analysis.attainment import attainment_surfaces, eaf_difference
from ..analysis.curves import incumbent_curves
from ..analysis.ecdf import final_regret_ecdfs, repetition_subsamples
from ..analysis.multiobjective import multiobjective_rows
from ..analysis.regret_basis import UNITS, regret_basis, regret_meaning, regret_name
from ..analysis.trajectories import RUN_KEYS, final_results, label, monotone_fronts
from ..runner.experiment import RUNS_DIR, load_results
from ..studies.paper_notes import NB1SHOT1, TABLE_I, PaperComparison, compare_with_papers
from . import html
from .attainment import attainment_surfaces_figure, eaf_difference_figure
from .backend import require_matplotlib, save_figure
from .curves import regret_over_evaluations, regret_over_time
from .ecdfs import final_regret_ecdf, repetition_ecdfs
from .experiment_info import ExperimentDescription, describe_experiment, seed_ranges
from .hypervolume import hypervolume_gap_boxplots
from .multiobjective_report import constrained_note, multiobjective_section
from .staging import staged_folder
from .style import Style
from .summary_tables import CONFIDENCE, RankTest, final_regret_table, friedman_tests, hypervolume_table, wilcoxon_tests

REPORT_FILE = "report.html"
REPORT_TITLE = "nasarena report: "
#: The file by which `nasarena report` knows a folder it wrote before it marked its folders, with the
#: check that it is the command's own page (the name alone is anyone's).
EARLIER_OUTPUT = {REPORT_FILE: lambda path: html.is_page(path, REPORT_TITLE)}
SETUP_CODES = ("O: original (no caching, one worker, optimizer time not counted); C: caching (each architecture "
               "is evaluated once; proposed again, it is answered from the cache at no cost and is no evaluation); VS: NB101's variable-size encoding; S3: its continuous encoding; W<n>: n "
               "asynchronous workers; T: optimizer CPU time counted on the clock")
FIGURES_DIR = "figures"
DEFAULT_PAIRS = 3  # the best configuration against this many runners-up
PAPER_SUBSAMPLE = 20  # the anytime paper's Fig. 1 compares 20 repetitions with 500


def write_report(results_dir: Path, out_dir: Path, pairs: Sequence[tuple[str, str]] | None = None,
                 levels: Sequence[float] = (50,), k_subsample: int | None = None, seed: int = 0,
                 command: str | None = None) -> Path:
    """Write ``out_dir/report.html`` and ``out_dir/figures/*.{png,pdf}``; return the HTML's path.

    ``pairs`` are the (A, B) configurations of the EAF difference plots (default: the best by
    mean final regret against each of the next ones, at most three); ``levels`` the attainment
    surfaces drawn (in %); ``k_subsample`` the repetitions of the subsampled ECDF (default: 20
    when every configuration has more, else half the fewest runs; no figure below 2); ``seed``
    draws that subsample; ``command`` is recorded as what generated the report (default: this
    process's command line).
    """
    require_matplotlib()
    results_dir, out_dir = Path(results_dir), Path(out_dir)
    raw = load_results(results_dir)
    if raw.empty:
        raise ValueError(f"no finished runs in {results_dir / RUNS_DIR}")
    experiment = describe_experiment(results_dir, raw)
    _check_pairs(pairs, experiment.labels)
    with staged_folder(out_dir, last=REPORT_FILE, replaces_earlier=True) as staging:
        _write(results_dir, staging, raw, experiment, pairs, levels, k_subsample, seed, command)
    return out_dir / REPORT_FILE


def _write(results_dir: Path, staging: Path, raw: pd.DataFrame, experiment: ExperimentDescription,
           pairs, levels, k_subsample, seed, command) -> None:
    """Draw every figure and the page into ``staging``."""
    results = _with_experiment_labels(raw)
    figures = _Figures(staging / FIGURES_DIR)
    words = regret_name(experiment.benchmarks)  # "test regret", or what else regret is measured on
    scored = with_incumbent(results)
    multi = not multiobjective_rows(results).empty
    single = [
        html.heading(_view("Final quality", multi)),
        *_regret_basis_html(experiment.benchmarks),
        *_modelled_html(results),
        *constrained_note(results),
        *_no_incumbent_note(results, scored, words),
        *(_scored_sections(results[scored], raw[scored], experiment, figures, pairs, levels, k_subsample, seed,
                           words, multi) if scored.any() else []),
    ]
    if multi:  # the fronts first; what regret means belongs to the single-objective views
        body = [*_provenance(command), *multiobjective_section(results, figures.add, _friedman_section),
                *_experiment_section(experiment), *_single_objective_intro(words), *_benchmark_lines(experiment),
                *single]
    else:
        body = [*_provenance(command), *_benchmark_lines(experiment), *_experiment_section(experiment), *single]
    body += _versions_section()
    (staging / REPORT_FILE).write_text(html.page(f"{REPORT_TITLE}{results_dir.resolve().name}", body),
                                       encoding="utf-8")


def _view(title: str, multi: bool) -> str:
    """A single-objective section's heading, marked as a view of the multi-objective runs in their report."""
    return f"{title} (single-objective view)" if multi else title


def _cite(reference: str, papers: bool) -> str:
    """`` (reference)`` where the report compares with the papers; nothing in a report of
    multi-objective runs, whose single-objective views are no paper's study."""
    return f" ({reference})" if papers else ""


def _single_objective_intro(words: str) -> list[str]:
    """What the single-objective views of multi-objective runs show, and that they come second."""
    return [html.heading("Single-objective views of the same runs"),
            html.paragraph(f"Every run keeps a single-objective incumbent, its most accurate feasible evaluation (a "
                           "multi-objective run beside its front). The sections below score that incumbent by "
                           f"{words} alone, as a report of single-objective runs does: they say how accurate the "
                           "fronts' most accurate ends are, not how good the fronts are (that is the section above). "
                           "Their hypervolume is that of each run's (simulated time, regret) trajectory, not of an "
                           "objective front.", "note")]


def with_incumbent(results: pd.DataFrame) -> pd.Series:
    """Which rows belong to runs that ever had an incumbent: a constrained run in which no
    evaluation met the bound has none (its regret is NaN throughout), and so no final regret."""
    if results.empty:  # no runs (not even their columns)
        return pd.Series(True, index=results.index, dtype=bool)
    return results.groupby(RUN_KEYS)["incumbent_test_regret"].transform("count") > 0


def _scored_sections(results: pd.DataFrame, raw: pd.DataFrame, experiment: ExperimentDescription,
                     figures: _Figures, pairs, levels, k_subsample, seed, words: str, multi: bool) -> list[str]:
    """Final quality, anytime performance and the tests of the runs that have an incumbent; in a
    report of multi-objective runs (``multi``) headed as single-objective views, without the
    papers' comparisons."""
    style = Style.for_labels(experiment.labels)
    final = final_results(results)
    regret = final_regret_table(final)
    normalization = Normalization(time_bounds=(0.0, experiment.budget_seconds or float(results["sim_time"].max())))
    fronts = _front_rows(results)
    volumes = run_hypervolumes(fronts, normalization)
    papers = not multi
    comparisons = {bench: compare_with_papers(runs) for bench, runs in raw.groupby("benchmark")} if papers else {}
    return [
        *_lite_note(experiment.benchmarks),
        *_paper_lines(comparisons.values(), NB1SHOT1),
        *_final_regret_html(regret, words, papers),
        *_best_architectures_html(final),
        figures.add(final_regret_ecdf(final_regret_ecdfs(results), style, regret_label=f"final {words}"),
                    "final_regret_ecdf",
                    f"ECDF of the final {words} over runs{_cite('NAS-Bench-101 Fig. 7, right', papers)}: further "
                    "left and higher is better."),
        *_subsample_figure(figures, results, final, style, k_subsample, seed, words, papers),
        html.heading(_view("Anytime performance", multi)),
        figures.add(regret_over_time(incumbent_curves(results, axis="time"), style, regret_label=words),
                    "regret_vs_time",
                    f"{_capital(words)} of the incumbent against simulated training time: median over runs (line) "
                    "and 25-75% of runs (band); both axes logarithmic."),
        figures.add(regret_over_evaluations(incumbent_curves(results, "evaluations", _evaluation_grid(results)), style,
                                            regret_label=words),
                    "regret_vs_evaluations", f"{_capital(words)} of the incumbent against the number of evaluations: "
                    "median and 25-75% of runs."),
        *_hypervolume_html(hypervolume_table(volumes), normalization),
        figures.add(hypervolume_gap_boxplots(volumes, style), "hypervolume_gap_boxplots",
                    f"Hypervolume gap of each run's (time, regret) front to the ideal point"
                    f"{_cite('anytime paper, Fig. 3', papers)}; lower is better. Dots are runs; the number of runs "
                    "is next to each configuration."),
        *_attainment_figures(figures, fronts, style, levels, words),
        *_eaf_figures(figures, fronts, regret, style, pairs, words, papers),
        html.heading(_view("Statistical tests", multi)),
        *_friedman_section(friedman_tests(final, f"final {words}", "incumbent_test_regret")),
        *_friedman_section(friedman_tests(volumes, "hypervolume gap", "hypervolume_gap")),
        *_wilcoxon_section(final, volumes),
        *(_setup_tables(figures, final_results(raw), run_hypervolumes(_front_rows(raw), normalization), comparisons)
          if papers else []),
    ]


def _paper_lines(comparisons, paper: str) -> list[str]:
    """The notes beside ``paper``'s values where it describes the runs, and for each benchmark whose
    runs it would concern but does not describe, the line saying why its values are not shown;
    each text once (NAS-Bench-1Shot1's note covers its three spaces)."""
    texts = []
    for comparison in comparisons:
        texts += comparison.notes.get(paper, [])
        if paper in comparison.reasons:
            texts.append(comparison.reasons[paper])
    return [html.paragraph(text, "note") for text in dict.fromkeys(texts)]


def _no_incumbent_note(results: pd.DataFrame, scored: pd.Series, words: str) -> list[str]:
    """Which runs never had an incumbent (constrained runs in which no evaluation met the bound):
    they have no final regret, no anytime curve and no place in a test, so the sections on those
    leave them out, and the report says so instead of failing on a regret of NaN."""
    runs = results.assign(scored=scored).groupby(RUN_KEYS, sort=True).tail(1)
    if runs["scored"].all():
        return []
    parts = []
    for (bench, name), group in runs.groupby(["benchmark", "optimizer"], sort=True):  # optimizer: the label
        lacking = group[~group["scored"]]
        if len(lacking):
            bounds = ", ".join(sorted(lacking["constraint"].dropna().unique())) if "constraint" in lacking else ""
            parts.append(f"{bench} {name}{f' ({bounds})' if bounds else ''}: {len(lacking)} of "
                         f"{_count(len(group), 'run')}")
    rest = ("so the final quality, anytime performance and statistical tests below leave them out"
            if runs["scored"].any() else f"so there is no final {words}, anytime performance or statistical test "
                                         "to show")
    multi = (" The multi-objective section scores their fronts as empty (hypervolume regret 1)."
             if "objectives" in runs.columns and runs.loc[~runs["scored"], "objectives"].notna().any() else "")
    return [html.paragraph(f"No evaluation met the constraint in these runs, which therefore have no incumbent: "
                           f"{'; '.join(parts)}; {rest}.{multi}", "note")]


@dataclass(frozen=True)
class _Figures:
    """Saves each figure as PNG and PDF under one folder and embeds the PNG in the report."""

    folder: Path

    def add(self, figure, name: str, caption: str) -> str:
        saved = save_figure(figure, self.folder / name)
        return html.image(saved.png, f"{caption} Files: {FIGURES_DIR}/{saved.png.name}, {saved.pdf.name}.")


def _with_experiment_labels(results: pd.DataFrame) -> pd.DataFrame:
    """The table with each configuration's experiment-wide label as its optimizer name.

    ``label`` depends on which configurations a table holds, so a one-benchmark slice could
    label a configuration differently than the whole experiment; afterwards every slice
    labels it the same way.
    """
    return results.assign(optimizer=label(results), settings_hash="")


def _front_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The rows where a run's best regret so far improves: all that (time, regret) fronts are made of.

    Hypervolume and attainment only look at fronts; handing them these rows instead of every
    evaluation gives the same fronts several times faster.
    """
    table = results.sort_values([*RUN_KEYS, "evaluation"], ignore_index=True)
    best = table.groupby(RUN_KEYS)["incumbent_test_regret"].cummin()
    improving = best.groupby([table[k] for k in RUN_KEYS]).diff().fillna(-np.inf) < 0
    return table[improving]


def _evaluation_grid(results: pd.DataFrame, points: int = 400) -> np.ndarray:
    """Log-spaced evaluation counts: the curves are drawn on a log axis, one point per evaluation is wasted."""
    return np.unique(np.geomspace(1, results["evaluation"].max() + 1, points).astype(int))


def _check_pairs(pairs, labels: Sequence[str]) -> None:
    unknown = sorted({name for pair in pairs or () for name in pair} - set(labels))
    if unknown:
        raise ValueError(f"unknown configuration(s) {', '.join(unknown)} in pairs; known: {', '.join(labels)}")


def _lite_note(benchmarks) -> list[str]:
    """Above the first figure: nb101-lite's regret is scored on the draw that selected the incumbent."""
    from ..benchmarks.nb101 import LITE_SAME_DRAW

    return [html.paragraph(LITE_SAME_DRAW, "note")] if "nb101-lite" in benchmarks else []


def _provenance(command: str | None) -> list[str]:
    command = command or shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return [html.paragraph(f"Generated {generated} by: {command}", "muted")]


def _benchmark_lines(experiment: ExperimentDescription) -> list[str]:
    """First of all: which benchmark each result comes from and what its regret means (the same
    search scores several-fold lower regret on the single-draw nb101-lite than on nb101-noisy)."""
    tables = sorted({(c.benchmark, dict(c.benchmark_options).get("nb101")) for c in experiment.configurations},
                    key=lambda pair: (pair[0], str(pair[1])))
    return [html.paragraph("Benchmarks. " + " ".join(regret_meaning(bench, nb101) for bench, nb101 in tables))]


def _experiment_section(experiment: ExperimentDescription) -> list[str]:
    budgets = sorted({_budget(c.budget_seconds, c.budget_evaluations) for c in experiment.configurations})
    parts = [
        html.heading("What was run"),
        html.paragraph(f"Results directory: {experiment.results_dir}. Benchmarks: {', '.join(experiment.benchmarks)}. "
                       f"Budget per run: {'; '.join(budgets)}. {_count(experiment.total_runs, 'finished run')} of "
                       f"{_count(len(experiment.configurations), 'configuration')}."),
    ]
    if not experiment.balanced:
        parts.append(html.paragraph(
            "Partial experiment: configurations finished different seeds (see the runs column). Summary tables and "
            "Wilcoxon tests use every finished run; Friedman tests and EAF differences use the seeds finished by "
            "all configurations compared.", "note"))
    if any(c.optimizer_settings is None for c in experiment.configurations):
        parts.append(html.paragraph("Some settings hashes are missing from settings.json: their settings are shown "
                                    "as unknown.", "note"))
    parts += _capped_note(experiment)
    parts += _smac_repeats_note(experiment)
    rows = [(c.benchmark, c.label, c.optimizer, c.settings_hash, _settings_text(c.optimizer_settings, "defaults"),
             *_run_settings_cells(c.run_settings), _budget(c.budget_seconds, c.budget_evaluations), c.runs,
             seed_ranges(c.seeds), f"{c.mean_evaluations:.1f}", f"{c.mean_seconds:.3g}")
            for c in experiment.configurations]
    parts.append(html.table(
        ["benchmark", "configuration", "optimizer", "settings hash", "optimizer settings", "workers", "caching",
         "optimizer time counted", "budget", "runs", "seeds", "mean evaluations", "mean time spent (s)"], rows,
        code_columns=(3,),
        caption="Configurations with their exact settings (from settings.json) and finished runs. Workers: "
                "asynchronous workers per run in simulated time; caching: each architecture is evaluated once, a "
                "repeated proposal is answered from the cache and is no evaluation; optimizer "
                "time counted: the optimizer's CPU time is added to the simulated clock. Mean evaluations: "
                "evaluations per run, averaged over the configuration's runs; mean time spent: simulated time at "
                "the runs' last evaluation, averaged likewise."))
    return parts


def _capped_note(experiment: ExperimentDescription) -> list[str]:
    """Configurations whose runs stopped on the evaluation cap before spending the time budget: their
    final regret is at an earlier time than the other configurations' (a cap below what the time
    allows, or cached runs made before issue 29, when a cached answer counted as an evaluation)."""
    capped = [c for c in experiment.configurations if c.capped_runs]
    if not capped:
        return []
    each = "; ".join(f"{c.benchmark} {c.label}: {c.capped_runs} of {c.runs} runs (their mean time spent "
                     f"{c.capped_seconds:.3g} s, {c.capped_seconds / c.budget_seconds:.0%} of {c.budget_seconds:.3g} s)"
                     for c in capped)
    return [html.paragraph(
        f"Stopped on the evaluation cap before spending the time budget: {each}. Their final regret is that at the "
        "time they stopped, not at the time budget.", "note")]


def _smac_repeats_note(experiment: ExperimentDescription) -> list[str]:
    """Where SMAC evaluated a configuration several times: the number is a choice (the presets' 3 in
    setups O and VS is nasarena's; the anytime paper says "multiple"), and SMAC's results depend on it."""
    from ..studies.anytime_presets import SMAC_REPEATS

    repeats = sorted({f"{c.benchmark} {c.label}: {json.loads(c.optimizer_settings)['repeated_evaluations']}"
                      for c in experiment.configurations if c.optimizer in ("smac", "smac3") and c.optimizer_settings
                      and json.loads(c.optimizer_settings).get("repeated_evaluations", 1) > 1})
    if not repeats:
        return []
    return [html.paragraph(
        f"SMAC's evaluations per configuration (repeated_evaluations): {'; '.join(repeats)}. The anytime presets' "
        f"{SMAC_REPEATS} in setups O and VS is nasarena's choice (one per NB101 trial): the anytime paper says only "
        "that SMAC evaluates a configuration 'multiple times', and SMAC's results depend on the number.", "note")]


def _settings_text(settings: str | None, empty: str) -> str:
    """``{"population_size": 50, "tournament_size": 10}`` -> ``population_size = 50, tournament_size = 10``."""
    if settings is None:
        return "unknown"
    values = json.loads(settings)
    return ", ".join(f"{key} = {json.dumps(value)}" for key, value in sorted(values.items())) or empty


def _run_settings_cells(settings: str | None) -> tuple[str, str, str]:
    """Workers, caching, optimizer time counted: the run settings as table cells."""
    if settings is None:
        return "unknown", "unknown", "unknown"
    values = json.loads(settings)
    yes_no = {True: "yes", False: "no"}
    return (str(values.get("n_workers", "unknown")), yes_no.get(values.get("caching"), "unknown"),
            yes_no.get(values.get("count_optimizer_time"), "unknown"))


def _regret_basis_html(benchmarks: Sequence[str]) -> list[str]:
    """What regret means on each benchmark: its units and which accuracy the optimum is taken over."""
    bases = "; ".join(f"{bench}: regret on {regret_basis(bench)}" for bench in benchmarks)
    notes = [f"Regret is the optimum minus the accuracy reached, as a {UNITS}. {bases}."]
    if any(regret_basis(b).startswith(("validation", "modelled")) for b in benchmarks):
        notes.append("Where regret is on validation accuracy, the optimum is the best validation accuracy of the "
                     "space (a validation optimum, not a test optimum); on surrogate benchmarks it is the best "
                     "noise-free modelled validation accuracy.")
    return [html.paragraph(" ".join(notes))]


def _modelled_html(results: pd.DataFrame) -> list[str]:
    """Per configuration and fidelity, the share of evaluations answered by modelled accuracies
    (:mod:`nasarena.analysis.modelled`), where any were or where the runs did not record it: the
    regrets below are a model's wherever these shares are high."""
    from ..analysis.modelled import MEANING, modelled_shares, share_text, with_modelled_values

    shares = with_modelled_values(modelled_shares(results))
    if shares.empty:
        return [html.paragraph("No evaluation of these runs was answered by a modelled accuracy.", "muted")]
    rows = [(r.benchmark, r.label, int(r.fidelity), r.runs, r.evaluations, share_text(r.valid_modelled, r.known),
             share_text(r.test_modelled, r.known)) for r in shares.itertuples()]
    return [html.table(["benchmark", "configuration", "fidelity", "runs", "evaluations", "validation accuracy modelled",
                        "test accuracy modelled"], rows,
                       caption=f"Evaluations answered by modelled values, per fidelity: {MEANING}.")]


def _best_architectures_html(final: pd.DataFrame) -> list[str]:
    """Per configuration, the best architecture any of its runs ended with, and how many runs did."""
    rows = []
    for (bench, name), runs in final.groupby(["benchmark", "label"], sort=True):
        best = runs.loc[runs["incumbent_test_regret"].idxmin()]
        found = int((runs["incumbent_id"] == best["incumbent_id"]).sum())
        rows.append((bench, name, str(best["incumbent_id"]), _number(best["incumbent_test_regret"]),
                     f"{best['incumbent_valid_accuracy']:.5f}", f"{found} of {len(runs)}", int(best["seed"])))
    return [html.table(["benchmark", "configuration", "best architecture found", "its regret",
                        "its validation accuracy", "runs ending with it", "seed"], rows, code_columns=(2,),
                       caption="The best final incumbent of each configuration over its runs, with the seed of a run "
                               "that found it (the id as the benchmark names it: NB101 module hash, NB201 cell string, ...). "
                               "Query it with `nasarena query BENCHMARK ID`.")]


def _budget(seconds: float | None, evaluations: int | None) -> str:
    parts = ([f"{seconds:.3g} s simulated"] if seconds is not None else []) + \
            ([f"{evaluations} evaluations"] if evaluations is not None else [])
    return " or ".join(parts) or "unknown"


def _final_regret_html(table: pd.DataFrame, words: str, papers: bool) -> list[str]:
    best = table.groupby("benchmark")["mean"].transform("min") == table["mean"]
    rows = zip(table["benchmark"], table["label"], table["runs"], *(_distinct(table[c]) for c in
                                                                    ("mean", "median", "ecdf_area")))
    area = "is the anytime paper's final-quality score (Table I); it equals" if papers else "equals"
    return [html.table(["benchmark", "configuration", "runs", "mean", "median", "ECDF area"], rows, best,
                       caption=f"Final {words} over runs ({UNITS}; best mean in bold). The ECDF area {area} the "
                               "mean.")]


def _hypervolume_html(table: pd.DataFrame, normalization: Normalization) -> list[str]:
    best = table.groupby("benchmark")["gap_mean"].transform("min") == table["gap_mean"]
    rows = zip(table["benchmark"], table["label"], table["runs"],
               *(_distinct(table[c]) for c in ("hypervolume_mean", "hypervolume_median", "gap_mean", "gap_median")))
    low, high = normalization.time_bounds
    caption = (f"Hypervolume of each run's (time, regret) front (best mean gap in bold): time from "
               f"[{low:g}, {high:g}] s and regret from [0, 1] mapped onto [1, 2], reference point {normalization.reference}; the gap is "
               f"the ideal point's hypervolume ({normalization.ideal_hypervolume:g}) minus the run's.")
    return [html.table(["benchmark", "configuration", "runs", "mean hypervolume", "median hypervolume", "mean gap",
                        "median gap"], rows, best, caption=caption)]


def _subsample_figure(figures: _Figures, results, final: pd.DataFrame, style: Style, k: int | None, seed: int,
                      words: str, papers: bool) -> list[str]:
    fewest = int(final.groupby(["benchmark", "label"]).size().min())  # of the runs drawn, not of all finished
    k = k or (PAPER_SUBSAMPLE if fewest > PAPER_SUBSAMPLE else fewest // 2)
    if k < 2 or k >= fewest:
        return [html.paragraph(f"No ECDF from a subset of repetitions: {k} of the fewest {fewest} runs per "
                               "configuration is no subset worth comparing (it needs at least 2 runs and fewer "
                               "than all).", "muted")]
    subsamples = repetition_subsamples(results, k, np.random.default_rng(seed))
    return [figures.add(repetition_ecdfs(subsamples, style, regret_label=f"final {words}"),
                        f"final_regret_ecdf_k{k}_vs_all", f"ECDF of the final {words} from {k} randomly chosen runs (solid, seed {seed}) and from "
                        f"all runs (dashed), per configuration{_cite('anytime paper, Fig. 1', papers)}: does the "
                        "comparison hold with "
                        f"fewer repetitions?")]


def _attainment_figures(figures: _Figures, results, style: Style, levels: Sequence[float], words: str) -> list[str]:
    parts = []
    for bench in sorted(results["benchmark"].unique()):  # those with a run that has an incumbent
        runs = results[results["benchmark"] == bench]
        surfaces = pd.concat([attainment_surfaces(runs, name, levels).assign(label=name)
                              for name in sorted(label(runs).unique())], ignore_index=True)
        levels_text = ", ".join(f"{level:g}%" for level in sorted(levels))
        parts.append(figures.add(attainment_surfaces_figure(surfaces, style, title=bench, regret_label=words), f"attainment_{_slug(bench)}",
                                 f"{bench}: {levels_text} attainment surfaces: the regret reached by that share of "
                                 f"the runs by each simulated time."))
    return parts


def _eaf_figures(figures: _Figures, results, regret: pd.DataFrame, style: Style, pairs, words: str,
                 papers: bool) -> list[str]:
    parts = []
    for bench, ranking in regret.groupby("benchmark", sort=True):
        names = list(ranking["label"])
        if len(names) < 2:
            parts.append(html.paragraph(f"{bench}: one configuration, no EAF difference plot.", "muted"))
            continue
        chosen = [p for p in pairs if set(p) <= set(names)] if pairs else \
            [(names[0], other) for other in names[1:1 + DEFAULT_PAIRS]]
        runs = results[results["benchmark"] == bench]
        for a, b in chosen:
            common = _seeds(runs, a) & _seeds(runs, b)
            if not common:
                parts.append(html.paragraph(f"{bench}: no EAF difference plot of {a} and {b}: no seed finished by "
                                            "both.", "note"))
                continue
            shared = runs[runs["seed"].isin(common)]
            if _front_sets(shared, a) == _front_sets(shared, b):
                parts.append(html.paragraph(f"{bench}: {a} and {b} have identical (time, regret) fronts on the "
                                            f"{_count(len(common), 'seed')} both ran: their EAFs do not differ.",
                                            "note"))
                continue
            figure = eaf_difference_figure(eaf_difference(shared, a, b), attainment_surfaces(shared, a),
                                           attainment_surfaces(shared, b), a, b, style,
                                           title=f"{bench}: {a} vs {b} ({_count(len(common), 'run')} each)",
                                           regret_label=words)
            parts.append(figures.add(figure, f"eaf_{_slug(bench)}_{_slug(a)}_vs_{_slug(b)}",
                                     f"{bench}: EAF difference of {a} and {b} over the {len(common)} seeds run by "
                                     f"both{_cite('anytime paper, Fig. 4', papers)}. Left: where {a} attains a "
                                     "(time, regret) region "
                                     f"more often than {b}; right: where {b} does; darker is a larger difference. "
                                     f"Dashed: 50% attainment surfaces."))
    return parts


def _seeds(runs: pd.DataFrame, name: str) -> set:
    """Seeds finished by a configuration (after ``_with_experiment_labels``, the optimizer column is its label)."""
    return set(runs.loc[runs["optimizer"] == name, "seed"].unique())


def _front_sets(runs: pd.DataFrame, name: str) -> list:
    """A configuration's runs as a sorted list of fronts: equal lists have equal EAFs (moocore
    cannot compute a difference that is zero everywhere)."""
    fronts = monotone_fronts(runs[runs["optimizer"] == name])
    return sorted(tuple(map(tuple, front[["time", "regret"]].to_numpy())) for _, front in fronts.groupby("seed"))


def _friedman_section(tests: list[RankTest]) -> list[str]:
    parts = []
    for test in tests:
        parts.append(html.heading(f"Friedman test and Nemenyi ranks: {test.metric}, {test.benchmark}", 3))
        if test.result is None:
            parts.append(html.paragraph(f"Not computed: {test.reason}.", "muted"))
            continue
        result = test.result
        verdict = ("significant: the best group (bold) holds the best-ranked configuration and those within the "
                   "critical difference of it" if result.significant else
                   "not significant: no configuration is marked best")
        parts.append(html.paragraph(
            f"Friedman statistic {result.statistic:.4g}, p = {_p(result.p_value)} over {test.blocks} seeds finished "
            f"by every configuration; at {CONFIDENCE:.0%} confidence {verdict}. Nemenyi critical difference of mean "
            f"ranks: {result.critical_difference:.3g}. Rank 1 is best."))
        rows, strong = [], []
        for position, name in enumerate(result.mean_ranks.index, start=1):
            best = result.significant and name in result.best_group
            rows.append((position, name, f"{result.mean_ranks[name]:.3g}", f"{result.rank_sums[name]:.4g}",
                         "best group" if best else ""))
            strong.append(best)
        parts.append(html.table(["position", "configuration", "mean rank", "rank sum", ""], rows, strong))
    return parts


def _wilcoxon_section(final: pd.DataFrame, volumes: pd.DataFrame) -> list[str]:
    parts = []
    threshold = 1 - CONFIDENCE
    for test in wilcoxon_tests(final, volumes):
        parts.append(html.heading(f"Pairwise Wilcoxon rank-sum tests: {test.benchmark}", 3))
        if test.table is None:
            parts.append(html.paragraph(f"Not computed: {test.reason}.", "muted"))
            continue
        rows = []
        for r in test.table.itertuples():
            differ = [name for name, p in (("final regret", r.p_final_regret), ("hypervolume gap", r.p_hypervolume_gap))
                      if p < threshold]
            rows.append((r.a, r.b, _p(r.p_final_regret), _p(r.p_hypervolume_gap), ", ".join(differ) or "-"))
        parts.append(html.table(["A", "B", "p (final regret)", "p (hypervolume gap)", f"differ at {CONFIDENCE:.0%}"],
                                rows, caption="Two-sided p-values over all finished runs, not corrected for multiple "
                                              "comparisons."))
    return parts


def _setup_tables(figures: _Figures, final: pd.DataFrame, volumes: pd.DataFrame,
                  comparisons: dict[str, PaperComparison]) -> list[str]:
    """The anytime paper's Tables I and II and its Fig. 3.

    Table I: per setup (O original, C caching, VS variable-size encoding, ...) the optimizers
    ordered by ECDF area of the final regret, and per optimizer the setups, with the paper's
    values beside where it has them and the runs are the presets' (``comparisons``, per
    benchmark), else a line saying why they are not shown; Table II: the same groupings by
    hypervolume-gap rank sum.
    Fig. 3 (hypervolume-gap boxplots by setup) is drawn when the experiment has several setups.
    A paragraph explains the setup codes."""
    from ..analysis.setups import CONFIDENCE as TABLE_I_CONFIDENCE
    from ..analysis.setups import paper_table_i_row, setup_key, setup_rank_table
    from ..analysis.statistics import rank_sum_table
    from .setups import setup_boxplots

    if "setup" not in final.columns:  # results written before setups were recorded
        return []
    parts = [html.heading("Rank tables by setup and by optimizer (anytime paper, Tables I and II)", 3),
             html.paragraph(f"Setup codes (the anytime paper's): {SETUP_CODES}. An experiment run with one setup "
                            "has one row per table.", "muted")]
    for bench, runs in final.groupby("benchmark", sort=True):
        paper = TABLE_I in comparisons[bench].notes
        for group, member in (("setup", "optimizer"), ("optimizer", "setup")):
            table = setup_rank_table(runs, by=group)
            rows = [(name, "  ".join(f"{r[member]}{'*' if r.best else ''} ({r.area:.0f})"
                                     for _, r in members.iterrows()), *([paper_table_i_row(group, name)] if paper else []))
                    for name, members in table.groupby(group, sort=False)]
            parts.append(html.table(
                [group, f"{member}s by ECDF area of the final regret (x 10^4, smaller is better)",
                 *([TABLE_I] if paper else [])], rows,
                caption=f"{bench}: final quality (Table I) grouped by {group}; *: in the best group of a Friedman "
                        f"test over seeds at {TABLE_I_CONFIDENCE:.0%} (Nemenyi post-hoc)"))
        parts += _paper_lines([comparisons[bench]], TABLE_I)
        gaps = volumes.merge(runs[[*RUN_KEYS, "setup"]], on=RUN_KEYS)
        for group, treatment in (("setup", "optimizer"), ("optimizer", "setup")):
            rows, strong = [], []
            for name, frame in sorted(gaps.groupby(group, sort=True),
                                      key=lambda item: setup_key(item[0]) if group == "setup" else (0, item[0])):
                if frame[treatment].nunique() < 2 or frame["seed"].nunique() < 2:
                    continue
                table = rank_sum_table(frame, group, treatment, "seed", "hypervolume_gap", CONFIDENCE)
                rows.append((name, "  ".join(f"{r[treatment]} ({r.rank_sum:.0f})" for _, r in table.iterrows())))
                strong.append(bool(table["best"].iloc[0]))
            if rows:
                parts.append(html.table([group, f"{treatment}s by hypervolume-gap rank sum (smaller is better)"], rows,
                                        strong, caption=f"{bench}: anytime performance grouped by {group}; bold: "
                                                        f"the Friedman test at {CONFIDENCE:.0%} finds a best group"))
        if gaps["setup"].nunique() > 1:
            parts.append(figures.add(setup_boxplots(gaps, title=bench), f"hypervolume_gap_by_setup_{bench}",
                                     f"{bench}: hypervolume gap of each run's (time, regret) front by setup (anytime "
                                     "paper, Fig. 3); lower is better, dots are runs."))
    return parts


def _versions_section() -> list[str]:
    from importlib.metadata import version

    import matplotlib

    from ..version import __version__

    rows = [("nasarena", __version__), ("numpy", np.__version__), ("pandas", pd.__version__),
            ("moocore", version("moocore")), ("matplotlib", matplotlib.__version__),
            ("python", platform.python_version())]
    return [html.heading("Versions"), html.table(["package", "version"], rows)]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _number(value: float) -> str:
    return f"{value:.4g}"


def _distinct(values: pd.Series, least: int = 4, most: int = 12) -> list[str]:
    """The values with as many significant digits (at least ``least``) as it takes for values that
    differ to print differently: hypervolumes near 2 differ only in the 5th or 6th digit."""
    values = [float(v) for v in values]
    for digits in range(least, most + 1):
        texts = [f"{v:.{digits}g}" for v in values]
        if len(set(texts)) == len(set(values)):
            return texts
    return [f"{v:.{most}g}" for v in values]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _p(value: float) -> str:
    return "n/a" if np.isnan(value) else f"{value:.3g}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")
