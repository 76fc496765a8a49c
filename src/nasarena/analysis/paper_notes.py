"""How nasarena's re-runs of the papers' comparisons differ from the papers, and why.

A report that prints a paper's values beside its own must also say, where the two disagree, what
in the setup explains it; otherwise a reader takes every difference for a finding. The texts here
are the conclusions of the 20-seed re-runs in ``bench/`` (numbers from those runs, named there),
shown on the report page that holds the comparison.
"""

from __future__ import annotations

#: NAS-Bench-1Shot1's discrete comparison against ``bench/bench_nb1shot1_discrete.py`` (20 seeds,
#: 1e6 simulated seconds per run, nb101-noisy 2.1).
NB1SHOT1_DISCRETE = (
    "NAS-Bench-1Shot1's discrete comparison (its Sec. 5.4 and Figs. 5, 15-18) plots the mean and standard deviation "
    "of the incumbent's test regret of RS, RE, TPE, HB, BOHB and SMAC over 500 repetitions; it prints no number for "
    "them, and its text treats RE as the strongest discrete optimizer. nasarena's 20-seed re-run "
    "(bench/bench_nb1shot1_discrete.py, 1e6 simulated seconds per run on nb101-noisy) agrees on the order: RE has "
    "the lowest mean final test regret in spaces 1 and 3 (1.9e-3 and 3.7e-3; the next best 3.0e-3 and 4.1e-3) and is "
    "in the best group in space 2 (BOHB 4.9e-3, SMAC 4.9e-3, HB 5.0e-3, RE 5.1e-3, TPE 5.7e-3, RS 6.8e-3 outside "
    "it); only in space 2 does a Friedman test over seeds separate the optimizers at 98 % (p = 0.007; spaces 1 and "
    "3: p = 0.04). Three differences of setup change the numbers, not this order: (1) the paper stopped RS, RE and "
    "TPE after 280 evaluations and HB and BOHB after 280 SuccessiveHalving iterations, where here every optimizer "
    "gets the same simulated time (450-750 evaluations at 108 epochs, 2,000-3,000 of HB's and BOHB's mixed "
    "budgets), the protocol that makes their curves comparable; (2) HB's and BOHB's budgets below 108 epochs are "
    "real only for the 7-10 % of each space in NB101's 30,001-cell slice and modelled elsewhere (nb101-noisy 2.1), "
    "which is why they lead early (space 2: 9.1e-3 and 9.7e-3 at 1e4 s against RE's 12.8e-3) but not at the end; "
    "(3) TPE and SMAC are nasarena's re-implementations of Optuna's TPE and SMAC3's facade (the paper ran "
    "hyperopt's TPE and SMAC3), whose final regrets match their references' (Mann-Whitney p 0.13-0.92 in "
    "bench/bench_equivalence.py)."
)


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


def table_i_notes(benchmark: str, optimizers) -> list[str]:
    """The Table I comparison note for runs of ``optimizers`` on ``benchmark``: where one of the
    paper's optimizers ran on nb101-noisy, the table the paper's runs queried."""
    from .setups import PAPER_NAMES

    return [TABLE_I_DIFFERENCES] if benchmark == "nb101-noisy" and set(optimizers) & set(PAPER_NAMES) else []


def nb1shot1_notes(benchmarks) -> list[str]:
    """The NAS-Bench-1Shot1 comparison note where some of ``benchmarks`` are its spaces."""
    from ..benchmarks.registry import ONESHOT

    return [NB1SHOT1_DISCRETE] if any(name in ONESHOT for name in benchmarks) else []
