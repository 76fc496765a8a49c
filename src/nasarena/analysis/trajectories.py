"""Reading trajectory tables: runs, final results and the monotone anytime fronts.

A trajectory table has one row per evaluation (see ``nasarena.runner.protocol``). A *run*
is identified by (benchmark, optimizer, settings_hash, seed); a *configuration* by the same
without the seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

RUN_KEYS = ["benchmark", "optimizer", "settings_hash", "seed"]
CONFIG_KEYS = ["benchmark", "optimizer", "settings_hash"]
REQUIRED = [*RUN_KEYS, "evaluation", "sim_time", "incumbent_test_regret", "incumbent_valid_accuracy"]


def check_table(results: pd.DataFrame) -> pd.DataFrame:
    """The table sorted by run and evaluation, after checking it has the columns analysis needs."""
    missing = [c for c in REQUIRED if c not in results.columns]
    if missing:
        raise ValueError(f"not a trajectory table: missing column(s) {', '.join(missing)}")
    if results.empty:
        raise ValueError("the trajectory table is empty: no finished runs")
    return results.sort_values([*RUN_KEYS, "evaluation"], ignore_index=True)


def label(frame: pd.DataFrame) -> pd.Series:
    """A readable configuration label: the optimizer name, plus the settings hash where an
    optimizer appears with several settings."""
    variants = frame.groupby("optimizer")["settings_hash"].transform("nunique")
    return frame["optimizer"].where(variants == 1, frame["optimizer"] + "[" + frame["settings_hash"] + "]")


def final_results(results: pd.DataFrame) -> pd.DataFrame:
    """One row per run: its last evaluation (final incumbent regret, time, evaluations)."""
    table = check_table(results)
    final = table.groupby(RUN_KEYS, sort=True).tail(1).reset_index(drop=True)
    final["evaluations"] = final["evaluation"] + 1
    final["label"] = label(final)
    return final


def monotone_fronts(results: pd.DataFrame) -> pd.DataFrame:
    """Per run, the (time, regret) staircase with regret made non-increasing (cumulative minimum).

    The anytime paper's choice: every best-so-far architecture is assumed tested, so the
    test regret of the incumbent can only improve; points that do not improve are dropped, and
    so are the evaluations of a constrained run before its first feasible one (no incumbent, NaN).
    """
    table = check_table(results)
    table = table.assign(regret=table.groupby(RUN_KEYS)["incumbent_test_regret"].cummin())
    improving = (table.groupby(RUN_KEYS)["regret"].diff().fillna(-np.inf) < 0) & table["regret"].notna()
    fronts = table.loc[improving, [*RUN_KEYS, "sim_time", "regret"]].rename(columns={"sim_time": "time"})
    fronts = fronts.reset_index(drop=True)
    fronts["label"] = label(fronts)
    return fronts


def runs_per_configuration(results: pd.DataFrame) -> pd.DataFrame:
    """How many finished runs each (benchmark, configuration) has (reports of partial experiments)."""
    final = final_results(results)
    return final.groupby(["benchmark", "label"]).size().rename("runs").reset_index()
