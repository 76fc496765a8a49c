"""The report of 'nasarena oneshot regularise': regret and one-shot validation error per epoch per
regularisation variant (NAS-Bench-1Shot1 Fig. 4, 9-13).

Per optimizer and study (cutout on/off; the weight-decay sweep), the two panels of the one-shot
report (:func:`.oneshot.epoch_curves_figure`) with one line per variant (median over seeds,
25-75% band), and a table of every variant's last epoch.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..errors import DataFileError
from ..oneshot.summary import collect, curves, final_table
from ..studies.oneshot_regularisation import Variant
from . import html
from .backend import require_matplotlib, save_figure
from .oneshot import epoch_curves_figure
from .staging import staged_folder
from .style import Style

REPORT_FILE = "report.html"
FIGURES_DIR = "figures"
STUDIES = {"cutout": "cutout on and off", "weight_decay": "weight decay (no cutout)"}


def _label(variant: Variant, study: str) -> str:
    if study == "cutout":
        return "no cutout" if variant.cutout == 0 else f"cutout {variant.cutout} px"
    return f"weight decay {variant.weight_decay:g}"


def collect_study(out_dir: Path) -> pd.DataFrame:
    """Every epoch record of every variant folder (``cutout-<c>_wd-<w>``), with the variant's values."""
    frames = []
    for folder in sorted(out_dir.iterdir() if out_dir.is_dir() else []):
        found = re.fullmatch(r"cutout-(\d+)_wd-([0-9.e+-]+)", folder.name)
        if found and folder.is_dir():
            frame = collect(folder)
            frames.append(frame.assign(cutout=int(found.group(1)), weight_decay=float(found.group(2))))
    if not frames:
        raise DataFileError(f"{out_dir}: no regularisation variants (cutout-<c>_wd-<w>/ folders written by "
                            "'nasarena oneshot regularise')")
    return pd.concat(frames, ignore_index=True)


def write_regularisation_report(out_dir: str | Path) -> Path:
    """Write ``report.html`` and the figures into ``out_dir``."""
    require_matplotlib()
    out_dir = Path(out_dir)
    records = collect_study(out_dir)
    body = [html.paragraph(f"Regularisation study in {out_dir.resolve()}: one-shot runs per optimizer with cutout "
                           "on/off (default weight decay) and with the weight decays of NAS-Bench-1Shot1 Appendix E "
                           "(no cutout); regret of the discretised architecture by NB101 lookup.", "muted")]
    with staged_folder(out_dir, last=REPORT_FILE) as staging:
        for optimizer, runs in records.groupby("optimizer", sort=True):
            for study, title in STUDIES.items():
                variants = {Variant(int(c), float(w)) for c, w in runs[["cutout", "weight_decay"]].drop_duplicates()
                            .itertuples(index=False)}
                chosen = [v for v in variants if study in v.studies]
                if len(chosen) < 2:
                    continue
                part = pd.concat([runs[(runs.cutout == v.cutout) & (runs.weight_decay == v.weight_decay)]
                                  .assign(optimizer=_label(v, study)) for v in chosen])
                style = Style.for_labels(part["optimizer"])
                space = ", ".join(sorted(part["space"].unique()))
                figure = epoch_curves_figure(curves(part, "test_regret"), curves(part, "valid_error"), style,
                                             f"{optimizer}, {space}")
                saved = save_figure(figure, staging / FIGURES_DIR / f"{optimizer}_{study}")
                final = final_table(part)
                body += [html.heading(f"{optimizer}: {title}"), html.table(
                    ["variant", "runs", "epochs", "regret median", "one-shot valid error", "seconds / epoch"],
                    [[r.optimizer, int(r.runs), int(r.epochs), f"{r.regret_median:.4f}",
                      f"{r.valid_error_median:.4f}", f"{r.seconds_per_epoch:.1f}"] for r in final.itertuples()],
                    caption="Last epoch of each variant: median test regret and one-shot validation error over "
                            "seeds."),
                    html.image(saved.png, f"{optimizer}, {title}: test regret (log) and one-shot validation error "
                                          "per epoch, median over seeds and 25-75% band, as NAS-Bench-1Shot1 "
                                          f"Appendix E. Files: {FIGURES_DIR}/{saved.png.name}, {saved.pdf.name}.")]
        (staging / REPORT_FILE).write_text(html.page(f"nasarena regularisation study: {out_dir.resolve().name}",
                                                     body), encoding="utf-8")
    return out_dir / REPORT_FILE
