"""The report of ``nasarena estimators evaluate --out``: every cheap estimator's quality beside its cost.

One table per label set (the rows of :func:`nasarena.studies.estimator_evaluation.compare_estimators`)
and one figure, "quality against cost": per label set, Kendall's tau over all architectures and
the top-10 % precision against the seconds an estimator costs per architecture (log scale). An
estimator whose cost is not known (the supernet: the data holds no training time) is left out
of the figure and says so in its table row. Each row counts the architectures the estimator
leaves undefined (ranked last), and a sentence under the table names every estimator with any.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

#: The table's columns: (header, column of the comparison).
COLUMNS = (("estimator", "estimator"), ("kind", "kind"), ("n", "n"), ("Spearman", "spearman"),
           ("Kendall", "kendall"), ("Spearman top 10 %", "spearman_top10"), ("Kendall top 10 %", "kendall_top10"),
           ("precision top 10 %", "precision_top10"))
QUALITY = (("kendall", "Kendall tau (all)"), ("precision_top10", "top-10 % precision"))


def comparison_rows(metrics: pd.DataFrame, ks: Sequence[int]) -> tuple[list[str], list[list[object]]]:
    """Header and rows of one comparison as text (a1(k) beside its random baseline, undefined
    values, seconds, cost)."""
    header = [name for name, _ in COLUMNS] + [f"a1({k}) / random" for k in ks] + [
        "undefined (ranked last)", "s / architecture", "cost", "published |Spearman|"]
    rows = []
    for _, row in metrics.iterrows():
        cells: list[object] = [row["estimator"], row["kind"], int(row["n"])]
        cells += [f"{row[column]:+.3f}" for _, column in COLUMNS[3:7]] + [f"{row['precision_top10']:.3f}"]
        cells += [f"{row[f'a1@{k}']:.2f} / {row[f'random@{k}']:.3f}" for k in ks] + [int(row["undefined"])]
        published = row.get("published_spearman", float("nan"))
        cells += [format_seconds(row["seconds"]), row["cost"], "" if not np.isfinite(published) else f"{published:.3f}"]
        rows.append(cells)
    return header, rows


def format_seconds(seconds: float) -> str:
    return "not known" if not np.isfinite(seconds) else f"{seconds:.3g}"


def quality_against_cost(results: Mapping[str, pd.DataFrame]):
    """The figure: one column per label set, one row per quality metric, estimators as labelled points."""
    from .backend import new_figure

    figure = new_figure(4.2 * len(results), 6.4)
    axes = figure.subplots(len(QUALITY), len(results), squeeze=False)
    for column, (benchmark, metrics) in enumerate(results.items()):
        known = metrics[np.isfinite(metrics["seconds"].to_numpy(dtype=float))]
        for line, (metric, label) in enumerate(QUALITY):
            ax = axes[line][column]
            ax.scatter(known["seconds"], known[metric], s=22, color="tab:blue", zorder=3)
            for i, (_, row) in enumerate(known.iterrows()):  # alternate sides: params and flops coincide
                ax.annotate(row["estimator"], (row["seconds"], row[metric]), textcoords="offset points",
                            xytext=(4, 3 if i % 2 == 0 else -10), fontsize=7)
            ax.set_xscale("log")
            ax.grid(True, alpha=0.3)
            ax.set_ylabel(label)
            if line == 0:
                ax.set_title(f"labels: {benchmark}", fontsize=9)
            if line == len(QUALITY) - 1:
                ax.set_xlabel("seconds per architecture")
    return figure


def write_estimators_report(results: Mapping[str, pd.DataFrame], ks: Sequence[int], out: Path, notes: Sequence[str]
                            ) -> Path:
    """Write metrics.csv, figures/quality-vs-cost.{png,pdf} and report.html into ``out``; the page's path."""
    from ..studies.estimator_evaluation import undefined_notes
    from . import html
    from .backend import save_figure
    from .staging import staged_folder

    out = Path(out)
    with staged_folder(out) as staging:
        pd.concat([metrics.assign(benchmark=name) for name, metrics in results.items()]).to_csv(
            staging / "metrics.csv", index=False)
        body = [html.paragraph(note) for note in notes]
        for benchmark, metrics in results.items():
            header, rows = comparison_rows(metrics, ks)
            body += [html.heading(f"Labels: {benchmark} validation accuracy at 200 epochs"), html.table(header, rows),
                     *(html.paragraph(note) for note in undefined_notes(metrics))]
        saved = save_figure(quality_against_cost(results), staging / "figures" / "quality-vs-cost")
        body += [html.heading("Quality against cost"),
                 html.image(saved.png, "Each estimator's rank quality against its seconds per architecture (log "
                                       "scale); estimators of unknown cost are not drawn.")]
        (staging / "report.html").write_text(html.page("Cheap estimators side by side", body), encoding="utf-8")
    return out / "report.html"
