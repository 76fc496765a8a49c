"""The anytime paper's comparison across experimental setups (its Table I), for preset experiments.

Every run carries its setup label (``O``, ``C``, ``VS``, ``CVS``; see ``RunSpec.setup``). Table I
scores each (setup, algorithm) by the area between the ECDF of the final regret and the regret
axis (the mean final regret; smaller is better, shown x 10^4 as in the paper) and orders the
algorithms within each setup (top half) and the setups within each algorithm (bottom half). The
best-ranked entries are marked where a Friedman test over seeds at 98 % confidence finds a
difference (Nemenyi post-hoc: the best and those not significantly worse).
"""

from __future__ import annotations

import pandas as pd

from .ecdf import ecdf_area
from .statistics import friedman_nemenyi

#: The paper's Table I (ECDF area x 10^4), for side-by-side comparison.
PAPER_TABLE_I = {
    ("O", "SMAC"): 23, ("O", "irace"): 28, ("O", "RE"): 31,
    ("VS", "SMAC"): 18, ("VS", "irace"): 46, ("VS", "RE"): 47,
    ("C", "SMAC"): 34, ("C", "irace"): 50, ("C", "RE"): 55,
    ("CVS", "SMAC"): 20, ("CVS", "irace"): 42, ("CVS", "RE"): 50,
}
#: nasarena's optimizer names -> the paper's (the presets run ``smac``; ``smac3``, SMAC3 itself, on request).
PAPER_NAMES = {"re": "RE", "smac3": "SMAC", "smac": "SMAC", "irace": "irace"}
CONFIDENCE = 0.98
SCALE = 1e4
#: The paper's order of the setups (its Table I and Fig. 3); other setup codes follow alphabetically.
SETUP_ORDER = ("O", "VS", "C", "CVS")


def paper_table_i_row(by: str, name: str) -> str:
    """The paper's Table I row for a setup (``by="setup"``) or an optimizer (``by="optimizer"``,
    nasarena's name), best first, e.g. ``"SMAC (23)  irace (28)  RE (31)"``; empty where it has none."""
    if by not in ("setup", "optimizer"):
        raise ValueError(f"by must be 'setup' or 'optimizer', got {by!r}")
    wanted = name if by == "setup" else PAPER_NAMES.get(name, name)
    entries = sorted((area, setup, algorithm) for (setup, algorithm), area in PAPER_TABLE_I.items()
                     if (setup if by == "setup" else algorithm) == wanted)
    return "  ".join(f"{algorithm if by == 'setup' else setup} ({area})" for area, setup, algorithm in entries)


def setup_key(setup: str) -> tuple[int, str]:
    """Sort key putting setups in the paper's order (O, VS, C, CVS), any others after them."""
    return (SETUP_ORDER.index(setup) if setup in SETUP_ORDER else len(SETUP_ORDER), setup)


def setup_rank_table(final: pd.DataFrame, by: str = "setup", confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Table I for one benchmark's final results (one row per run, with ``setup``, ``optimizer``,
    ``seed`` and ``incumbent_test_regret``), grouped ``by`` ``"setup"`` or ``"optimizer"``.

    One row per (group, member), members ordered by ECDF area: ``area`` (x 10^4), ``runs``,
    ``best`` (in the best group of a significant Friedman test) and the test's ``p_value`` (NaN
    where fewer than two members or two shared seeds allow no test).
    """
    if by not in ("setup", "optimizer"):
        raise ValueError(f"by must be 'setup' or 'optimizer', got {by!r}")
    if final["benchmark"].nunique() > 1:
        raise ValueError("one benchmark at a time: Table I compares runs on the same benchmark")
    member = "optimizer" if by == "setup" else "setup"
    rows = []
    groups = sorted(final.groupby(by, sort=True), key=lambda item: setup_key(item[0]) if by == "setup" else (0, item[0]))
    for group, runs in groups:
        areas = runs.groupby(member)["incumbent_test_regret"].apply(ecdf_area)
        areas = areas.iloc[sorted(range(len(areas)), key=lambda i: (areas.iloc[i], _key(member, areas.index[i])))]
        counts = runs.groupby(member).size()
        best, p_value = set(areas.index), float("nan")
        scores = runs.pivot_table(index="seed", columns=member, values="incumbent_test_regret")
        if scores.shape[1] >= 2 and len(scores.dropna()) >= 2:
            test = friedman_nemenyi(scores, confidence)
            p_value = test.p_value
            best = set(test.best_group) if test.significant else set()
        for position, (name, area) in enumerate(areas.items(), start=1):
            rows.append((group, position, name, area * SCALE, int(counts[name]), name in best and p_value < 1 - confidence,
                         p_value))
    return pd.DataFrame(rows, columns=[by, "position", member, "area", "runs", "best", "p_value"])


def _key(member: str, name: str) -> tuple:
    """Ties in ECDF area keep the paper's setup order (or alphabetical optimizer names)."""
    return setup_key(name) if member == "setup" else (0, name)


def table_text(table: pd.DataFrame) -> list[str]:
    """The table as the paper prints it: ``group  member (area)  member (area) ...``; * marks best."""
    by, member = table.columns[0], table.columns[2]
    lines = []
    for group, rows in table.groupby(by, sort=False):
        cells = [f"{r[member]}{'*' if r.best else ''} ({r.area:.0f})" for _, r in rows.iterrows()]
        lines.append(f"{group:6s} " + "  ".join(cells))
    return lines
