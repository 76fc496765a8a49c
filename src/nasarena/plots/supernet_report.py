"""The supernet evaluation report: metrics table, figures and one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.supernet import SupernetScores, cluster_architectures, cluster_summary, id_rate, random_baseline
from ..io.packaged import NB201_GDAS_SUPERNET_FILE, load_arrays, read_manifest


def embedded_gdas_scores() -> SupernetScores:
    """One GDAS supernet's one-shot accuracy of every NB201 cell at 25 checkpoints (CIFAR-10)."""
    arrays = load_arrays(NB201_GDAS_SUPERNET_FILE)
    return SupernetScores(tuple(str(c) for c in arrays["checkpoints"]), arrays["scores"].astype(np.float64))


#: Above this many architectures, clusters are drawn from a seeded random subset of this size
#: (the condensed distance matrix of all 24,066 architectures of NB-1Shot1 space 3 needs 2.3 GB).
CLUSTER_LIMIT = 4000


def write_supernet_report(true_scores, supernet: SupernetScores, metrics: pd.DataFrame, bench, out: Path,
                          ks, cluster_threshold: float, encodings=None) -> Path:
    """Write metrics.csv, clusters.csv, figures/ and report.html into ``out``; return the page's path.

    ``encodings``: one row of categorical choices per architecture for the clustering (default:
    the NB201 op per edge of ``bench.space``)."""
    from .staging import staged_folder

    out = Path(out)
    if encodings is None:
        encodings = np.array([bench.space.encode(c, "op_indices") for c in bench.space.enumerate()])
    with staged_folder(out) as staging:  # nothing reaches ``out`` unless every file was written
        _write(true_scores, supernet, metrics, bench, staging, ks, cluster_threshold, encodings)
    return out / "report.html"


def _write(true_scores, supernet: SupernetScores, metrics: pd.DataFrame, bench, out: Path, ks,
           cluster_threshold: float, encodings) -> None:
    from . import html
    from .backend import save_figure
    from .supernet import cluster_plot, correlation_vs_id_rate, id_rate_curves

    metrics.to_csv(out / "metrics.csv", index=False)
    n = len(true_scores)
    true_scores = np.asarray(true_scores, dtype=float)
    shown = _spread(supernet.checkpoints, 5)
    parts = []
    for i, c in enumerate(supernet.checkpoints):
        scored = ~np.isnan(supernet.scores[i])  # a sample (ENAS's) is judged on what it scored
        if c in shown and scored.sum() >= 2:
            grid = np.unique(np.geomspace(1, scored.sum(), 60).astype(int))
            parts.append(pd.DataFrame({"checkpoint": c, "k": grid,
                                       "a1": id_rate(true_scores[scored], supernet.scores[i][scored], grid)}))
    curves = pd.concat(parts)
    last_scored = ~np.isnan(supernet.scores[-1])
    m = int(last_scored.sum())  # a sample is judged against random selection among what it scored
    grid = np.unique(np.geomspace(1, m, 60).astype(int))
    among = f" among the {m:,} scored" if m < n else ""
    figures = {
        "id_rate": (id_rate_curves(curves, pd.DataFrame({"k": grid, "a1": random_baseline(grid, m)})),
                    f"Top-architecture ID rate a1(k) per checkpoint against random selection{among} (dashed)."),
    }
    a1 = metrics[metrics.metric == "a1"]
    every = [k for k in ks if (a1.parameter == k).sum() == len(supernet.checkpoints)]  # k <= what each one scored
    if every:
        figures["correlation_vs_id_rate"] = (
            correlation_vs_id_rate(metrics, every[:7]),
            "Rank correlation over the whole space (left) against a1(k) (right) over training.")
    summary, sampled = clusters(encodings, true_scores, supernet.scores[-1], cluster_threshold)
    summary.to_csv(out / "clusters.csv", index=False)
    figures["clusters"] = (cluster_plot(summary, supernet.checkpoints[-1]),
                           f"Structural clusters{sampled} (average linkage, cut at {cluster_threshold:g} "
                           "differing choices).")
    truth = getattr(bench, "regret_metric", None) or bench.nb101.regret_metric
    body = [html.paragraph(f"Benchmark: {bench.name} ({n:,} architectures); true scores: "
                           f"{truth.replace('_', ' ')} at the highest fidelity; checkpoints: "
                           f"{', '.join(supernet.checkpoints)}.")]
    gaps = missing_checkpoints(supernet.checkpoints)
    if gaps:
        body.append(html.paragraph(f"Note: no checkpoint at epoch {', '.join(gaps)} (the checkpoints are every "
                                   f"{_step(supernet.checkpoints):g} epochs otherwise); the curves join its "
                                   "neighbours.", "muted"))
    if NB201_GDAS_SUPERNET_FILE in read_manifest() and supernet.checkpoints == embedded_gdas_scores().checkpoints:
        body.append(html.paragraph(f"Supernet scores: {read_manifest()[NB201_GDAS_SUPERNET_FILE].provenance}", "muted"))
    final = metrics[metrics["checkpoint"] == supernet.checkpoints[-1]]
    header, rows_html = last_checkpoint_table(final, ks, n)
    scope = f": {m:,} of the {n:,} architectures scored, a1(k) among them" if m < n else ""
    body += [html.heading(f"Last checkpoint ({supernet.checkpoints[-1]}){scope}"),
             html.table(header, rows_html)]
    spearman = metrics[(metrics.metric == "spearman") & (metrics.parameter == "all")]
    kendall = metrics[(metrics.metric == "kendall") & (metrics.parameter == "all")]
    body += [html.heading("Correlations per checkpoint"),
             html.table(["checkpoint", "Spearman", "Kendall"],
                        [(c, format_correlation(s), format_correlation(t))
                         for c, s, t in zip(spearman.checkpoint, spearman.value, kendall.value)])]
    body.append(html.heading("Figures"))
    for stem, (figure, caption) in figures.items():
        saved = save_figure(figure, out / "figures" / stem)
        body.append(html.image(saved.png, caption))
    (out / "report.html").write_text(html.page("Supernet evaluation", body), encoding="utf-8")


def clusters(encodings, true_scores, last_scores, threshold: float) -> tuple[pd.DataFrame, str]:
    """Structural clusters of the architectures the last checkpoint scored (all of them, or a sample
    such as a subset or ENAS's draws; a seeded random ``CLUSTER_LIMIT`` of them above that) and
    the caption's words for what was clustered."""
    n = len(encodings)
    scored = np.flatnonzero(~np.isnan(np.asarray(last_scores, dtype=float)))
    subsample = CLUSTER_LIMIT if len(scored) > CLUSTER_LIMIT else None
    picked, labels = cluster_architectures(np.asarray(encodings)[scored], threshold, subsample=subsample,
                                           rng=np.random.default_rng(0))
    rows = scored[picked]
    summary = cluster_summary(rows, labels, true_scores, last_scores)
    if subsample:
        what = f" of a seeded random {subsample:,} of the {len(scored):,} scored architectures"
    elif len(scored) < n:
        what = f" of the {len(scored):,} scored architectures (of {n:,})"
    else:
        what = ""
    return summary, what


def format_correlation(value: float) -> str:
    """A rank correlation as text; NaN (a checkpoint that scored every architecture alike, whose
    ranking has no correlation) is said in words, not printed as ``+nan``."""
    return f"{value:+.3f}" if np.isfinite(value) else "undefined (constant scores)"


def last_checkpoint_table(final: pd.DataFrame, ks, n: int) -> tuple[list[str], list[tuple]]:
    """Header and rows of a1(k) against its random baseline (k over the architectures scored) and,
    where the checkpoint has architecture weights, a2(k) against its own (k/N); a1 at k above what a
    sample scored is marked "k > scored", not shown as NaN."""
    with_a2 = bool((final.metric == "a2").any())
    header = ["k", "a1(k)", "random a1"] + (["a2(k)", "random a2 (k/N)"] if with_a2 else [])
    rows = []
    for k in ks:
        a1 = _value(final, "a1", k)
        row = [k, f"{a1:.4f}", f"{_value(final, 'a1_baseline', k):.5f}"] if not np.isnan(a1) else \
            [k, "-", "k > scored"]
        if with_a2:
            row += [f"{_value(final, 'a2', k):.5f}", f"{_value(final, 'a2_baseline', k):.5f}"]
        rows.append(tuple(row))
    return header, rows


def missing_checkpoints(checkpoints) -> list[str]:
    """Epochs missing from an otherwise regular series (``..., 210, 230, ...`` at a step of 10 ->
    ``["220"]``); none when the names are not epochs or have no regular step."""
    step = _step(checkpoints)
    if not step:
        return []
    epochs = np.array([float(c) for c in checkpoints])
    missing = []
    for low, high in zip(epochs[:-1], epochs[1:]):
        gap = (high - low) / step
        if gap > 1 and float(gap).is_integer():
            missing += [f"{low + step * i:g}" for i in range(1, int(gap))]
    return missing


def _step(checkpoints) -> float:
    """The most common spacing of numeric checkpoints (0 when they are not all numbers)."""
    try:
        epochs = np.array([float(c) for c in checkpoints])
    except ValueError:
        return 0.0
    if len(epochs) < 3:
        return 0.0
    steps, counts = np.unique(np.diff(epochs), return_counts=True)
    return float(steps[np.argmax(counts)]) if counts.max() >= 2 and steps[np.argmax(counts)] > 0 else 0.0


def _spread(items, count: int) -> set:
    """``count`` items spread evenly from first to last (always including both)."""
    positions = np.unique(np.linspace(0, len(items) - 1, min(count, len(items))).round().astype(int))
    return {items[p] for p in positions}


def _value(metrics: pd.DataFrame, metric: str, parameter) -> float:
    """The metric's value, NaN where it was not computed (k above the architectures a sample scored)."""
    found = metrics[(metrics.metric == metric) & (metrics.parameter == parameter)]["value"]
    return float(found.iloc[0]) if len(found) else float("nan")
