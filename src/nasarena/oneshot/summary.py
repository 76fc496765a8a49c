"""One-shot runs as tables: every epoch record, and curves over seeds per optimizer (torch-free).

The paper's Fig. 2 and 7 draw, per optimizer and epoch, the median and quartiles over seeds
of the test regret of the discretised architecture and of the one-shot validation error.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import DataFileError
from .records import RECORDS_FILE, read_records


def collect(out_dir: str | Path) -> pd.DataFrame:
    """Every finished epoch of every run under ``out_dir`` (``<optimizer>/seed-<n>/records.jsonl``)."""
    out_dir = Path(out_dir)
    files = sorted(out_dir.glob(f"*/seed-*/{RECORDS_FILE}"))
    if not files:
        raise DataFileError(f"{out_dir}: no one-shot runs (expected <optimizer>/seed-<n>/{RECORDS_FILE}, written by "
                            "'nasarena oneshot run')")
    rows = [record.to_dict() for file in files for record in read_records(file.parent)]
    return pd.DataFrame(rows)


def curves(records: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per optimizer and epoch: median, 25% and 75% quantiles of ``metric`` over seeds, and the run count."""
    grouped = records.groupby(["optimizer", "epoch"])[metric]
    table = grouped.quantile([0.25, 0.5, 0.75]).unstack()
    table.columns = ["q25", "median", "q75"]
    table["runs"] = grouped.size()
    return table.reset_index()


def final_table(records: pd.DataFrame) -> pd.DataFrame:
    """Per optimizer, at each run's last epoch: median and quartiles of test regret, median one-shot
    validation error and seconds per epoch, epochs done and runs."""
    last = records.sort_values("epoch").groupby(["optimizer", "seed"]).tail(1)
    grouped = last.groupby("optimizer")
    table = pd.DataFrame({
        "runs": grouped.size(),
        "epochs": grouped["epoch"].median(),
        "regret_median": grouped["test_regret"].median(),
        "regret_q25": grouped["test_regret"].quantile(0.25),
        "regret_q75": grouped["test_regret"].quantile(0.75),
        "valid_error_median": grouped["valid_error"].median(),
        "seconds_per_epoch": records.groupby("optimizer")["seconds"].median(),
    })
    return table.reset_index().sort_values("regret_median", kind="stable")
