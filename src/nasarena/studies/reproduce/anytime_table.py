"""The anytime paper's Table I (Vieira et al., Sec. V) from the four presets, beside the paper's.

Full scale: every run of the presets ``anytime-O/VS/C/CVS`` (RE, SMAC and irace, 20 seeds, 1e7
simulated seconds on ``nb101-noisy``). The page prints, per setup, the algorithms by ECDF area of
the final regret (x 10^4, * the best group of a significant Friedman test over seeds, 98 %) with
the paper's row beside, then the setups per algorithm. Cheap scale: RE and irace in the four setups
on ``nb101-lite``, two seeds, 2e5 s (table look-ups; irace's races compare accuracies exactly).

The full scale's runs cost tens of CPU hours, so their final rows are saved in the repository as
they finish (:mod:`.saved_runs`, ``docs/reproduce/data/anytime-table-i-runs.csv``) and a
regeneration makes only the runs without a saved row; the cheap scale runs everything each time.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from ...analysis.setups import PAPER_NAMES, PAPER_TABLE_I, SETUP_ORDER, setup_rank_table
from ...analysis.trajectories import final_results
from ...runner.protocol import Budget
from ..anytime_presets import PRESETS
from .common import configurations, p_value, run_specs, seeds
from .pages import Generated
from .recorded import CHEAP
from .saved_runs import commits, final_rows, machines, saved_path

CHEAP_BUDGET = Budget(seconds=2e5)
#: The full scale's saved final rows (shared with the differences block, which reads the same runs).
SAVED = saved_path("anytime-table-i")


def specs(scale: str):
    if scale == CHEAP:
        return [dataclasses.replace(spec, budget=CHEAP_BUDGET)
                for preset in PRESETS.values()
                for spec in preset.specs(["nb101-lite"], seeds=range(2), optimizers=["re", "irace"])]
    return [spec for preset in PRESETS.values() for spec in preset.specs()]


def generate(scale: str, results: Path, jobs: int) -> Generated:
    chosen = specs(scale)
    if scale == CHEAP:
        final, saved = final_results(run_specs(chosen, results, jobs)), ""
    else:
        rows = final_rows(chosen, results, jobs, SAVED)
        final, makers = final_results(rows), commits(rows)
        saved = (f"\n\nThe {len(rows)} runs' final rows are saved in `docs/reproduce/data/{SAVED.name}`, by "
                 f"nasarena at commit{'s' if len(makers) > 1 else ''} {', '.join(makers)}, on {machines(rows)}; "
                 "regenerating makes only the runs without a saved row.")
    final = final.assign(optimizer=final["optimizer"].map(PAPER_NAMES).fillna(final["optimizer"]))
    values = summarise(final)
    return Generated(table(values) + saved, values, configurations(chosen), seeds(chosen))


def summarise(final: pd.DataFrame) -> dict[str, float]:
    """``setup/ALGORITHM/area`` (x 10^4), ``setup/ALGORITHM/best``, ``setup/friedman_p``, the same
    per algorithm (``ALGORITHM/setup/...``, ``ALGORITHM/friedman_p``) and run counts."""
    values: dict[str, float] = {}
    for by in ("setup", "optimizer"):
        member = "optimizer" if by == "setup" else "setup"
        for _, row in setup_rank_table(final, by=by).iterrows():
            values[f"{row[by]}/{row[member]}/area"] = float(row["area"])
            values[f"{row[by]}/{row[member]}/best"] = float(row["best"])
            values[f"{row[by]}/{row[member]}/runs"] = float(row["runs"])
            values[f"{row[by]}/friedman_p"] = float(row["p_value"])
    return values


def members(values: dict[str, float], group: str) -> list[str]:
    """The members of a setup (algorithms) or an algorithm (setups), smallest area first."""
    names = {key.split("/")[1] for key in values if key.startswith(f"{group}/") and key.endswith("/area")}
    return sorted(names, key=lambda name: values[f"{group}/{name}/area"])


def _row(values: dict[str, float], group: str) -> str:
    return "  ".join(f"{name}{'*' if values[f'{group}/{name}/best'] else ''} {values[f'{group}/{name}/area']:.0f}"
                     for name in members(values, group))


def _paper(group: str, by: str) -> str:
    entries = sorted((area, setup, algorithm) for (setup, algorithm), area in PAPER_TABLE_I.items()
                     if (setup if by == "setup" else algorithm) == group)
    return "  ".join(f"{algorithm if by == 'setup' else setup} {area}" for area, setup, algorithm in entries)


def algorithms(values: dict[str, float]) -> list[str]:
    return sorted({key.split("/")[1] for key in values if key.split("/")[0] in SETUP_ORDER and key.endswith("/area")})


def table(values: dict[str, float]) -> str:
    lines = ["| setup | nasarena: ECDF area x 10^4, best first | Friedman p | paper (Table I) |", "|---|---|---|---|"]
    for setup in SETUP_ORDER:
        if f"{setup}/friedman_p" in values:
            lines.append(f"| {setup} | {_row(values, setup)} | {p_value(values[f'{setup}/friedman_p'])} | "
                         f"{_paper(setup, 'setup')} |")
    lines += ["", "| algorithm | nasarena: setups by ECDF area x 10^4 | Friedman p | paper (Table I) |",
              "|---|---|---|---|"]
    for algorithm in algorithms(values):
        lines.append(f"| {algorithm} | {_row(values, algorithm)} | {p_value(values[f'{algorithm}/friedman_p'])} | "
                     f"{_paper(algorithm, 'optimizer')} |")
    return "\n".join(lines)


def summary_line(values: dict[str, float]) -> str:
    """Table I's top half in one sentence (for the report's note), e.g. ``O: SMAC 23, RE 35, irace 43 (p 0.01)``."""
    return "; ".join(f"{setup}: " + ", ".join(f"{name} {values[f'{setup}/{name}/area']:.0f}"
                                              for name in members(values, setup))
                     + f" (Friedman p {p_value(values[f'{setup}/friedman_p'])})"
                     for setup in SETUP_ORDER if f"{setup}/friedman_p" in values)


def paper_order(setup: str) -> list[str]:
    """The paper's algorithms of ``setup``, best (smallest area) first."""
    return [algorithm for _, algorithm in sorted((area, algorithm) for (s, algorithm), area in PAPER_TABLE_I.items()
                                                 if s == setup)]


def differences(values: dict[str, float]) -> str:
    """How the re-run stands against the paper's Table I, every number from ``values`` and every
    verdict computed from them; the reasons for the differences that can occur are stated with
    the setup choices behind them."""
    setups = [s for s in SETUP_ORDER if f"{s}/friedman_p" in values]
    same = [s for s in setups if members(values, s) == [a for a in paper_order(s) if a in members(values, s)]]
    other = [s for s in setups if s not in same]
    lines = [f"Order of the algorithms per setup: as the paper's in {_list(same) or 'no setup'}"
             + (f", different in {_list(other)} (" + "; ".join(
                 f"{s}: ours {' < '.join(members(values, s))}, the paper's {' < '.join(paper_order(s))}"
                 for s in other) + ")" if other else "") + "."]
    for algorithm in algorithms(values):
        p = values[f"{algorithm}/friedman_p"]
        significant = any(values[f"{algorithm}/{s}/best"] for s in members(values, algorithm))
        lines.append(f"{algorithm}: setups {' < '.join(members(values, algorithm))} by area; "
                     + ("a setup is significantly better" if significant else "no setup significantly better")
                     + f" (Friedman p {p_value(p)}; the paper: no statistical difference between setups).")
    lines.append(
        "What in the setup can explain differences: irace runs with its package defaults (the paper tuned it "
        "for NAS-Bench-101 with values given only in its supplementary material), whose races spend much of "
        "the budget re-evaluating elites on new trials; SMAC evaluates a configuration up to 3 times without "
        "caching (one per NB101 trial: the paper says only 'multiple') and is nasarena's re-implementation of "
        "SMAC3's facade (`smac`, tested equal in distribution to SMAC3 itself, `smac3`); the paper's RE and irace "
        "were configured for the setup without caching, and its caching effect was not significant either; "
        "the 3-trial table draws the trials nasarena's nb101-noisy draws (real for trial 0 and 52 cells, "
        "modelled otherwise).")
    return "\n".join(f"- {line}" for line in lines)


def _list(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def generate_differences(scale: str, results: Path, jobs: int) -> Generated:
    """The differences block, from the same runs as Table I (their folder is shared); its values are
    table-i's, recorded there only."""
    generated = generate(scale, results.parent / "table-i", jobs)
    return Generated(differences(generated.values), {}, generated.configurations, generated.seeds)
