"""The report of 'nasarena oneshot tune': the incumbent over time and tuned against default settings.

NAS-Bench-1Shot1's Fig. 5: for each tuned optimizer, the test regret of BOHB's incumbent (the
trial with the best NB101 validation accuracy so far: what BOHB optimises) against the search
time spent, with the paper's default settings (at the largest budget) as a dashed line; and one
table of default and tuned settings with their validation accuracy and test regret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..errors import DataFileError
from ..oneshot.records import read_records
from ..studies.oneshot_tuning import TUNE_FILE, read_trials
from . import html
from .axes import LEGEND_WIDTH, PANEL_HEIGHT, PANEL_WIDTH, REGRET_LABEL, log_limits, outside_legend, set_log
from .backend import new_figure, require_matplotlib, save_figure
from .staging import staged_folder
from .style import Style, publication

REPORT_FILE = "report.html"
FIGURES_DIR = "figures"


def incumbent_trace(trials: pd.DataFrame) -> pd.DataFrame:
    """After each trial (tell order): search seconds spent so far and the incumbent's numbers (best
    validation accuracy so far; on a tie the larger budget, then the earlier trial)."""
    rows, best = [], None
    spent = 0.0
    for trial in trials.itertuples():
        spent += trial.seconds
        if best is None or (trial.valid_accuracy, trial.epochs) > (best.valid_accuracy, best.epochs):
            best = trial
        rows.append({"seconds": spent, "number": best.number, "valid_accuracy": best.valid_accuracy,
                     "test_regret": best.test_regret})
    return pd.DataFrame(rows)


def collect(results_dir: Path) -> dict[str, tuple[dict, pd.DataFrame, object]]:
    """Per tuned optimizer: its setup, its trials, and the default settings' last record (or None)."""
    found = {}
    for file in sorted(results_dir.glob(f"*/{TUNE_FILE}")):
        trials = pd.DataFrame([t.__dict__ for t in read_trials(file.parent)])
        if trials.empty:
            continue
        default = file.parent / "default"
        records = read_records(default) if (default / "records.jsonl").exists() else []
        found[file.parent.name] = (json.loads(file.read_text()), trials, records[-1] if records else None)
    if not found:
        raise DataFileError(f"{results_dir}: no tuning runs (<optimizer>/{TUNE_FILE} with trials)")
    return found


def incumbent_figure(runs: dict, style: Style):
    from matplotlib.lines import Line2D

    with publication():
        figure = new_figure(PANEL_WIDTH + LEGEND_WIDTH, PANEL_HEIGHT)
        axis = figure.add_subplot()
        values = []
        for name, (_, trials, default) in runs.items():
            trace = incumbent_trace(trials)
            line = style.of(name)
            axis.step(trace["seconds"], trace["test_regret"], where="post", color=line.colour, linewidth=1.6)
            values.append(trace["test_regret"])
            if default is not None:
                axis.axhline(default.test_regret, color=line.colour, linestyle=(0, (4, 2)), linewidth=1.0)
                values.append(pd.Series([default.test_regret]))
        set_log(axis, "y", log_limits(*values, margin=1.3))
        axis.set_xlabel("search time spent by the trials [s]")
        axis.set_ylabel(REGRET_LABEL)
        axis.set_title("BOHB incumbent (by NB101 validation)")
        names = list(runs)
        handles = [Line2D([], [], color=style.of(n).colour, linewidth=1.6) for n in names]
        handles.append(Line2D([], [], color="#777777", linestyle=(0, (4, 2))))
        outside_legend(figure, handles, [*names, "default settings"])
    return figure


def write_tune_report(results_dir: str | Path) -> Path:
    """Write ``report.html`` and ``figures/incumbent.{png,pdf}`` into ``results_dir``."""
    require_matplotlib()
    results_dir = Path(results_dir)
    runs = collect(results_dir)
    style = Style.for_labels(list(runs))
    rows = []
    for name, (setup, trials, default) in runs.items():
        best = incumbent_trace(trials).iloc[-1]
        tuned = trials[trials["number"] == best["number"]].iloc[0]
        settings = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in tuned["config"].items())
        if default is not None:
            rows.append([name, "default", f"{setup['max_epochs']}", f"{default.nb101_valid_accuracy:.4f}",
                         f"{default.test_regret:.4f}", "the paper's (Appendix C)"])
        rows.append([name, f"tuned (trial {int(tuned['number'])} of {len(trials)})", f"{int(tuned['epochs'])}",
                     f"{tuned['valid_accuracy']:.4f}", f"{tuned['test_regret']:.4f}", settings])
    body = [html.paragraph(f"Tuning runs in {results_dir.resolve()}: BOHB over each optimizer's search "
                           "hyperparameters, search epochs as the fidelity, the NB101 validation accuracy of the "
                           "returned architecture as the objective (test regret shown here, never told to BOHB).",
                           "muted"),
            html.table(["optimizer", "settings", "epochs", "NB101 valid accuracy", "test regret", "hyperparameters"],
                       rows, caption="Default against tuned settings (the incumbent: the best validation accuracy "
                                     "of all trials), as NAS-Bench-1Shot1 Fig. 5.")]
    with staged_folder(results_dir / "report", last=REPORT_FILE) as staging:
        saved = save_figure(incumbent_figure(runs, style), staging / FIGURES_DIR / "incumbent")
        body.append(html.image(saved.png, "Test regret of the incumbent over the search time of the trials (solid) "
                                          "and of the default settings (dashed). Files: "
                                          f"{FIGURES_DIR}/{saved.png.name}, {saved.pdf.name}."))
        (staging / REPORT_FILE).write_text(html.page(f"nasarena one-shot tuning: {results_dir.resolve().name}", body),
                                           encoding="utf-8")
    return results_dir / "report" / REPORT_FILE
