"""How much of each configuration's evaluations a model answered rather than a measurement.

A benchmark may answer a query from a model (nb101-noisy's noise model and donor learning curves,
a fitted surrogate), and its ``Result.modelled`` says so for that one evaluation. A regret table
does not show how much of a search ran on such values, and the share of a space's *cells* that are
real says little about it: an optimizer that spends most evaluations at low fidelities, where the
data holds few real values, sees far more modelled ones than the cell share suggests. The runner
records per evaluation which accuracies were modelled (``valid_modelled``, ``test_modelled``:
:data:`~nasarena.runner.protocol.MODELLED_COLUMNS`); here they become shares per configuration and
fidelity. Run files written before the runner recorded them hold neither column: their shares are
unknown, and are never taken for zero.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..runner.protocol import MODELLED_COLUMNS
from .trajectories import RUN_KEYS, label

#: Per (benchmark, label, fidelity): runs, evaluations, the shares and whether they are known.
SHARE_COLUMNS = ["benchmark", "label", "fidelity", "runs", "evaluations", "valid_modelled", "test_modelled", "known"]


def modelled_shares(results: pd.DataFrame) -> pd.DataFrame:
    """Per benchmark, configuration (``label``, as in the regret tables) and fidelity: the
    finished runs that evaluated there, their evaluations, and the share of those evaluations
    whose validation accuracy (what the optimizer was told) and whose test accuracy (the
    evaluated trial's) were modelled; each share over the evaluations that hold that accuracy,
    NaN where none does (no test accuracy below 108 epochs on nb101-noisy). ``known`` is False,
    and both shares NaN, for a configuration with a run written before the flags were recorded:
    a share over the other runs would pass for the configuration's."""
    if results.empty:
        return pd.DataFrame(columns=SHARE_COLUMNS)
    flags = {name: results[name] if name in results.columns else pd.Series(np.nan, index=results.index)
             for name in MODELLED_COLUMNS}
    valid_held, test_held = results["valid_accuracy"].notna(), results["test_accuracy"].notna()
    table = pd.DataFrame({
        "benchmark": results["benchmark"], "label": label(results), "fidelity": results["fidelity"],
        "run": results.groupby(RUN_KEYS, sort=False, dropna=False).ngroup(),
        "known": flags["valid_modelled"].notna() & flags["test_modelled"].notna(),
        "valid_held": valid_held, "valid": flags["valid_modelled"].eq(True) & valid_held,
        "test_held": test_held, "test": flags["test_modelled"].eq(True) & test_held,
    })
    table["known"] = table.groupby(["benchmark", "label"])["known"].transform("all")
    shares = table.groupby(["benchmark", "label", "fidelity"], sort=True).agg(
        runs=("run", "nunique"), evaluations=("run", "size"), known=("known", "all"), valid=("valid", "sum"),
        valid_held=("valid_held", "sum"), test=("test", "sum"), test_held=("test_held", "sum")).reset_index()
    for name, modelled, held in (("valid_modelled", "valid", "valid_held"), ("test_modelled", "test", "test_held")):
        share = shares[modelled] / shares[held].where(shares[held] > 0)
        shares[name] = share.where(shares["known"])
    return shares[SHARE_COLUMNS]


def with_modelled_values(shares: pd.DataFrame) -> pd.DataFrame:
    """The rows of the configurations that a summary must mention: those with any evaluation
    answered by a modelled accuracy, and those whose shares are unknown."""
    mentioned = (shares[["valid_modelled", "test_modelled"]].fillna(0) > 0).any(axis=1) | ~shares["known"]
    return shares[mentioned.groupby([shares["benchmark"], shares["label"]]).transform("any")]


#: What the shares are, for the tables that print them (``nasarena run`` and ``report``, the HTML report).
MEANING = ("the share of the evaluations whose validation accuracy (what the optimizer was told) and whose test "
           "accuracy (the evaluated trial's; an incumbent's regret is on its benchmark's regret basis, such as the "
           "mean over the trials at the highest fidelity, which may hold modelled trials where the evaluated one was "
           "measured) were modelled rather than measured (the benchmark's Result.modelled); -: no evaluation held "
           "that accuracy; unknown: runs written before nasarena recorded which values were modelled (rerun them "
           "into a new folder to know)")


def share_text(value: float, known: bool) -> str:
    """A share as a percentage, ``-`` where no evaluation held the value, ``unknown`` where runs did not record it."""
    if not known:
        return "unknown"
    return "-" if pd.isna(value) else f"{value:.1%}"
