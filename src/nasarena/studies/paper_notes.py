"""Which papers' values describe a set of runs, and how nasarena's re-runs of the papers'
comparisons differ from the papers, and why.

A paper's values beside runs that are not its protocol read as a comparison that is none: the
anytime paper's Table I beside a plain grid on another budget, or NAS-Bench-1Shot1's findings
beside runs of other settings. :func:`compare_with_papers` therefore decides, per benchmark,
whether each paper's values describe the runs (the same benchmark, optimizers, settings and
budget, recognised by the runs' settings hashes); the report shows a paper's values only then,
and otherwise one line saying why not.

A report that prints a paper's values beside its own must also say, where the two disagree, what
in the setup explains it; otherwise a reader takes every difference for a finding. The texts here
are the conclusions of the 20-seed re-runs in ``bench/`` (numbers from those runs, named there),
shown on the report page that holds the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..benchmarks.registry import ONESHOT
from ..errors import InvalidSettingError
from .anytime_presets import BENCHMARK, BUDGET, PRESETS, SEEDS
from .reproduce import nb1shot1_discrete, recorded

#: The papers whose values a report sets beside runs (the keys of :class:`PaperComparison`).
TABLE_I = "the anytime paper's Table I"
NB1SHOT1 = "NAS-Bench-1Shot1's discrete comparison"
def nb1shot1_discrete_note() -> str:
    """NAS-Bench-1Shot1's discrete comparison against nasarena's re-run: the numbers are the ones
    ``docs/reproduce/nas-bench-1shot1.md`` was last generated with (``nasarena reproduce
    nas-bench-1shot1``), read from the same record, so the report and the page never disagree."""
    try:
        values = recorded.values("nas-bench-1shot1", "discrete")
    except InvalidSettingError as missing:
        return f"NAS-Bench-1Shot1's discrete comparison has no re-run recorded yet ({missing})."
    return nb1shot1_discrete.note(values)


#: The anytime paper's Table I against ``bench/bench_anytime_presets.py`` (RE and irace, 20 seeds,
#: the four presets on nb101-noisy 2.1); the numbers are that run's.
TABLE_I_DIFFERENCES = (
    "How this Table I stands against the paper's (nasarena's 20-seed re-run of the four presets with RE and irace, "
    "bench/bench_anytime_presets.py, on nb101-noisy): the areas are of the paper's size (RE 32-35, irace 42-43, "
    "against the paper's 31-55 and 28-50), and, as the paper found ('no statistical difference is observed w.r.t. "
    "other setups'), no setup is significantly better for either optimizer (Friedman p 0.12 for RE, 0.91 for "
    "irace). Two differences remain. (1) RE ranks ahead of irace in every setup (O 35 against 43, VS 35 against 43, "
    "C 32 against 43, CVS 32 against 42; the test over seeds finds the difference in O, C and CVS, p 0.006-0.015), "
    "where the paper ranks irace ahead of RE in all four: the paper ran irace with values it tuned for "
    "NAS-Bench-101, given only in its supplementary material, while the presets run irace with its package "
    "defaults, whose races spend a large share of the budget re-evaluating elite configurations on new trials. "
    "(2) Caching does not worsen RE here (C and CVS 32 against O and VS 35; irace 42-43 in all four); in the paper "
    "it worsened every algorithm, though without statistical significance, and the paper notes that its RE and "
    "irace were configured for the setup without caching. SMAC (the paper's best in every setup) is left out of "
    "the re-run: the library-backed smac3 the presets use refits its forest and searches its acquisition on every "
    "proposal, so one 1e7 s run takes 40 minutes (setup O) to over 90 (setup C, where configurations that map to an evaluated cell are "
    "answered from the cache and move no clock) on one core, some 80 CPU hours for the 80 SMAC runs."
)


@dataclass(frozen=True)
class PaperComparison:
    """Which papers' values describe one benchmark's runs: ``notes`` holds each that does (keyed
    ``TABLE_I``, ``NB1SHOT1``) with the notes to show beside its values; ``reasons`` each that
    does not but that a report would otherwise show there, with the one line saying why."""

    notes: dict[str, list[str]]
    reasons: dict[str, str]


def compare_with_papers(runs: pd.DataFrame) -> PaperComparison:
    """Whether the anytime paper's Table I and (on a NAS-Bench-1Shot1 space) NAS-Bench-1Shot1's
    discrete comparison describe ``runs``, rows of one benchmark with ``optimizer``,
    ``settings_hash`` and ``seed`` (any number of rows per run).

    A paper describes the runs when every configuration is one of its protocol's: the same
    benchmark, optimizer, settings, run settings and budget, i.e. the settings hash of a run
    that ``nasarena run --preset anytime-...`` (Table I) or the documented NAS-Bench-1Shot1
    command makes. Fewer seeds than the paper's are still its protocol, estimated less surely:
    Table I is then shown with a note of the seed count.
    """
    benchmarks = runs["benchmark"].unique()
    if len(benchmarks) != 1:
        raise ValueError("one benchmark at a time: a paper's protocol names its benchmark")
    bench = benchmarks[0]
    seeds = runs.groupby(["optimizer", "settings_hash"])["seed"].nunique()
    notes, reasons = {}, {}
    table_i = (f"No paper values beside these runs: the anytime paper's Table I describes its four setups as the "
               f"presets anytime-O/VS/C/CVS run them (RE, SMAC and irace on {BENCHMARK} with the presets' settings, "
               f"{_seconds(BUDGET.seconds)} simulated seconds, {len(SEEDS)} seeds)")
    if bench != BENCHMARK:
        reasons[TABLE_I] = f"{table_i}; these runs are on {bench}."
    elif outside := _outside(seeds, _preset_hashes()):
        reasons[TABLE_I] = (f"{table_i}; the runs of {_names(outside)} here are not a preset's (optimizer, settings "
                            "or budget differ).")
    else:
        fewest = int(seeds.min())
        notes[TABLE_I] = [
            *([f"These runs are the presets' (benchmark, settings and budget), but with as few as {fewest} "
               f"seed{'' if fewest == 1 else 's'} per configuration, not the paper's {len(SEEDS)}: the paper's values "
               "are shown beside them, ours are the less certain."] if fewest < len(SEEDS) else []),
            TABLE_I_DIFFERENCES]
    if bench in ONESHOT:
        if outside := _outside(seeds, _nb1shot1_hashes(bench)):
            reasons[NB1SHOT1] = (
                "No NAS-Bench-1Shot1 note beside these runs: its discrete comparison describes RS, RE, TPE, HB, BOHB "
                f"and SMAC at their defaults on its spaces over nb101-noisy, {_seconds(nb1shot1_discrete.SECONDS)} simulated "
                f"seconds per run (as docs/reproduce/nas-bench-1shot1.md runs it); the runs of {_names(outside)} on "
                f"{bench} here are not (optimizer, settings, NB101 table or budget differ).")
        else:
            notes[NB1SHOT1] = [nb1shot1_discrete_note()]
    return PaperComparison(notes, reasons)


def _outside(seeds: pd.Series, protocol: set[tuple[str, str]]) -> list[str]:
    """The optimizers of the configurations (``seeds``' (optimizer, settings hash) index) outside ``protocol``."""
    return sorted({optimizer for optimizer, settings in seeds.index if (optimizer, settings) not in protocol})


def _seconds(seconds: float) -> str:
    """``1e7`` as the papers and presets write it, not ``1e+07``."""
    return f"{seconds:.0e}".replace("e+0", "e")


def _names(optimizers: list[str]) -> str:
    return ", ".join(optimizers[:-1]) + " and " + optimizers[-1] if len(optimizers) > 1 else optimizers[0]


def _preset_hashes() -> set[tuple[str, str]]:
    """(optimizer, settings hash) of every run the anytime presets make on their benchmark (``smac3`` too,
    which a preset runs in place of ``smac`` when named)."""
    return {(spec.optimizer, spec.settings_hash) for preset in PRESETS.values()
            for spec in preset.specs(seeds=[0], optimizers=preset.choices)}


def _nb1shot1_hashes(space: str) -> set[tuple[str, str]]:
    """(optimizer, settings hash) of the runs of NAS-Bench-1Shot1's discrete comparison on ``space``:
    the runs its generated page makes."""
    return {(spec.optimizer, spec.settings_hash) for spec in nb1shot1_discrete.specs(recorded.FULL)
            if spec.benchmark == space}
