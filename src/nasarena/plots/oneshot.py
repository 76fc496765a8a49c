"""The one-shot report: regret and one-shot validation error per epoch per optimizer.

NAS-Bench-1Shot1's Fig. 2 and 7: for each optimizer, the median over seeds (line) and the
25-75% band of the test regret of the architecture it would return after each epoch (log
axis) and of its one-shot validation error, plus a final table. Same look as the other reports
(:mod:`.style`, :mod:`.html`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..oneshot.summary import collect, curves, final_table
from . import html
from .axes import (
    LEGEND_WIDTH,
    PANEL_HEIGHT,
    PANEL_WIDTH,
    REGRET_LABEL,
    log_limits,
    outside_legend,
    set_log,
)
from .backend import new_figure, require_matplotlib, save_figure
from .staging import staged_folder
from .style import Style, publication

REPORT_FILE = "report.html"
FIGURES_DIR = "figures"


def epoch_curves_figure(regret: pd.DataFrame, valid_error: pd.DataFrame, style: Style, space: str):
    """Two panels: test regret (log) and one-shot validation error against the epoch."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    with publication():
        figure = new_figure(2 * PANEL_WIDTH + LEGEND_WIDTH, PANEL_HEIGHT)
        axes = list(figure.subplots(1, 2))  # own y axes: regret and error differ in scale
        for axis, table in zip(axes, (regret, valid_error)):
            for name, curve in table.groupby("optimizer", sort=True):
                line = style.of(name)
                axis.fill_between(curve["epoch"], curve["q25"], curve["q75"], color=line.colour, alpha=0.13,
                                  linewidth=0)
                axis.plot(curve["epoch"], curve["median"], **line.line())
            axis.set_xlabel("epoch")
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        set_log(axes[0], "y", log_limits(regret["q25"], regret["q75"], regret["median"], margin=1.1))
        axes[0].set_ylabel(REGRET_LABEL)
        axes[0].set_title(f"{space}: regret of the discretised architecture")
        axes[1].set_title("one-shot validation error")
        names = [n for n in style.labels if n in set(regret["optimizer"])]
        handles = [Line2D([], [], **style.of(n).line()) for n in names]
        handles += [Line2D([], [], color="#777777"), Patch(color="#777777", alpha=0.3, linewidth=0)]
        outside_legend(figure, handles, [*names, "median", "25–75% of seeds"])
    return figure


def correlation_figure(table: pd.DataFrame, style: Style, space: str):
    """Spearman of one-shot against NB101 ranks per epoch per optimizer (median over seeds, band:
    their range), NAS-Bench-1Shot1 Fig. 3."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    with publication():
        figure = new_figure(PANEL_WIDTH + LEGEND_WIDTH, PANEL_HEIGHT)
        axis = figure.add_subplot()
        for name, part in table.groupby("optimizer", sort=True):
            grouped = part.groupby("epoch")["spearman"]
            line = style.of(name)
            epochs = grouped.median().index
            axis.fill_between(epochs, grouped.min(), grouped.max(), color=line.colour, alpha=0.13, linewidth=0)
            axis.plot(epochs, grouped.median(), **line.line())
        axis.axhline(0, color="#999999", linewidth=0.6)
        axis.set_xlabel("epoch")
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_ylabel("Spearman (one-shot vs NB101)")
        axis.set_title(f"{space}: correlation of the rankings")
        names = [n for n in style.labels if n in set(table["optimizer"])]
        outside_legend(figure, [Line2D([], [], **style.of(n).line()) for n in names], names)
    return figure


def _correlation_section(results_dir: Path, records: pd.DataFrame, style: Style, staging: Path) -> list[str]:
    """The table and figure of ``oneshot correlate``'s results, or nothing where no run was scored."""
    from ..studies.oneshot_correlation import spearman_table

    runs = sorted(p.parent for p in results_dir.glob("*/seed-*/correlation.csv"))
    table = spearman_table(runs)
    if table.empty:
        return []
    spaces = records.groupby(["optimizer", "seed"])["space"].first().reset_index()
    table = table.merge(spaces, on=["optimizer", "seed"])
    body = [html.heading("Correlation of one-shot and true rankings"), html.table(
        ["optimizer", "seed", "epoch", "Spearman", "Kendall", "architectures", "ms / architecture"],
        [[r.optimizer, int(r.seed), int(r.epoch), f"{r.spearman:+.3f}", f"{r.kendall:+.3f}", f"{int(r.scored):,}",
          f"{1000 * r.seconds_per_architecture:.1f}"] for r in table.itertuples()],
        caption="Every architecture without loose ends (or the subset given to 'oneshot correlate'; ENAS: its "
                "controller's samples) scored by one-shot validation accuracy with the epoch's shared weights, "
                "ranked against the NB101 test accuracy; time to score one architecture on one worker.")]
    for space, part in table.groupby("space"):
        saved = save_figure(correlation_figure(part, style, space), staging / FIGURES_DIR / f"correlation_{space}")
        body.append(html.image(saved.png, f"{space}: Spearman rank correlation per epoch, median over seeds (line) "
                                          "and their range (band), as NAS-Bench-1Shot1 Fig. 3. Files: "
                                          f"{FIGURES_DIR}/{saved.png.name}, {saved.pdf.name}."))
    return body


def write_oneshot_report(results_dir: str | Path, out_dir: str | Path | None = None) -> Path:
    """Write ``report.html`` and ``figures/epoch_curves.{png,pdf}`` (default: into ``results_dir``)."""
    require_matplotlib()
    results_dir = Path(results_dir)
    out_dir = Path(out_dir) if out_dir is not None else results_dir
    records = collect(results_dir)
    spaces = sorted(records["space"].unique())
    style = Style.for_labels(records["optimizer"])
    body = [html.paragraph(f"Runs in {results_dir.resolve()}: {records.groupby(['optimizer', 'seed']).ngroups} "
                           f"(optimizer, seed) pairs on {', '.join(spaces)}.", "muted")]
    final = final_table(records)
    body += [html.heading("Final epoch"), html.table(
        ["optimizer", "runs", "epochs", "regret median", "regret 25%", "regret 75%", "one-shot valid error",
         "seconds / epoch"],
        [[r.optimizer, int(r.runs), int(r.epochs), f"{r.regret_median:.4f}", f"{r.regret_q25:.4f}",
          f"{r.regret_q75:.4f}", f"{r.valid_error_median:.4f}", f"{r.seconds_per_epoch:.1f}"]
         for r in final.itertuples()],
        strong=[i == 0 for i in range(len(final))],
        caption="Test regret (best test accuracy of the space minus the returned architecture's, NB101 lookup) "
                "after each run's last epoch, over seeds; medians of the one-shot validation error and epoch time.")]
    body.append(html.heading("Over the epochs"))
    with staged_folder(out_dir, last=REPORT_FILE) as staging:  # a failure leaves the output as it was
        for space in spaces:
            part = records[records["space"] == space]
            figure = epoch_curves_figure(curves(part, "test_regret"), curves(part, "valid_error"), style, space)
            saved = save_figure(figure, staging / FIGURES_DIR / f"epoch_curves_{space}")
            body.append(html.image(saved.png, f"{space}: test regret (log axis) and one-shot validation error per "
                                              "epoch; median over seeds (line), 25-75% (band), as NAS-Bench-1Shot1 "
                                              f"Fig. 2. Files: {FIGURES_DIR}/{saved.png.name}, {saved.pdf.name}."))
        body += _correlation_section(results_dir, records, style, staging)
        title = f"nasarena one-shot report: {results_dir.resolve().name}"
        (staging / REPORT_FILE).write_text(html.page(title, body), encoding="utf-8")
    return out_dir / REPORT_FILE
