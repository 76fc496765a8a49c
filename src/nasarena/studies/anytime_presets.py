"""Named experiments: the anytime paper's four setups (Vieira et al., Sec. IV) for RE, SMAC and irace.

SMAC is nasarena's ``smac`` in every setup, the variable-size encoding included: SMAC3's
algorithm vectorised, many times cheaper than SMAC3 itself (``bench/bench_equivalence.py``,
``bench/bench_smac_variable_size.py``), so that the presets' SMAC runs are affordable (in O and
VS a CPU minute or two; in the cached setups C and CVS tens of CPU minutes, as a cached run answers
many proposals from the cache at no simulated cost and the forest refits on every answer). ``smac3``
(SMAC3 itself) stays the reference: a preset runs it when it is named
(``--optimizers smac3``), in place of ``smac`` and with the same settings (``REFERENCES``), so the
library can be run on exactly the paper's setups without a second copy of each preset. A run of
``smac3`` carries its own name and settings hash, and never stands in for a ``smac`` run.

* ``anytime-O`` (original): the NB101 protocol; SMAC evaluates a configuration up to 3 times
  (``SMAC_REPEATS``, one per NB101 trial). 3 is our choice: the paper says only that "both irace
  and SMAC evaluate the same configuration multiple times";
* ``anytime-C`` (caching): each architecture is evaluated once, a repeated proposal is answered
  from the cache without an evaluation (:mod:`.protocol`); SMAC is limited to one evaluation per
  configuration (its own way of caching, as in the NB101 paper's runs);
* ``anytime-VS`` (variable-sized): the number of vertices is a parameter of the design space
  (SMAC's ``variable_size`` configuration space, RE's variable-size mutation, irace's
  variable-size encoding with conditional edges and ops);
* ``anytime-CVS``: both.

Each preset runs on ``nb101-noisy`` unless other benchmarks are named: the paper's runs query
NAS-Bench-101's three trials, and only there do SMAC's repeated evaluations and irace's races
see training noise (on the single-draw ``nb101-lite`` setup O would differ from C only in cost).
Each preset runs 20 seeds (0-19) with a budget of 1e7 simulated seconds, as the paper; the
budget ends every run (``MAX_QUERIES`` is a safety net that stops none of them). irace runs
with its package defaults (``IRACE_DEFAULTS``): the paper tuned it for NAS-Bench-101 but gives
the values only in its supplementary material, which nasarena does not have.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InvalidSettingError, unknown_name
from ..runner.experiment import RunSpec, grid
from ..runner.protocol import Budget, RunSettings

SEEDS = range(20)
#: The paper's 3-trial NB101 semantics (see the module docstring).
BENCHMARK = "nb101-noisy"
#: 1e7 simulated seconds as the paper, and a cap on evaluations kept as a safety net (its value
#: keeps the settings hashes of earlier runs). It stops no preset run: cached answers are not
#: evaluations, and the cheapest NB101 cell costs 284 s at 108 epochs, so at most 35,212
#: evaluations fit in 1e7 s. (Before issue 29 a cached answer counted, and the cap stopped cached
#: RE at 2.8-6.5e6 s.)
MAX_QUERIES = 100_000
BUDGET = Budget(seconds=1e7, evaluations=MAX_QUERIES)
OPTIMIZERS = ("re", "smac", "irace")
#: Optimizers a preset runs in place of one of its own when they are named: the library-backed
#: reference of a re-implementation, with the re-implementation's settings.
REFERENCES = {"smac3": "smac"}


@dataclass(frozen=True)
class PresetRun:
    """One optimizer's configuration in a preset."""

    optimizer: str
    settings: dict = field(default_factory=dict)
    caching: bool = False


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    runs: tuple[PresetRun, ...]
    seeds: range = SEEDS
    budget: Budget = BUDGET
    benchmark: str = BENCHMARK

    @property
    def optimizers(self) -> tuple[str, ...]:
        """The optimizers the preset runs unless others are chosen."""
        return tuple(run.optimizer for run in self.runs)

    @property
    def choices(self) -> tuple[str, ...]:
        """Every optimizer the preset can run: its own and, after each, the references it runs in
        its place when named (``REFERENCES``)."""
        return tuple(name for run in self.runs for name in _names(run))

    def specs(self, benchmarks=None, seeds=None, benchmark_options: dict | None = None,
              optimizers=None) -> list[RunSpec]:
        """The runs of this preset on ``benchmarks`` (its own benchmark unless some are named; its
        seeds unless ``seeds`` is given; all its optimizers unless ``optimizers`` names some of
        them, or a reference to run with the settings of the optimizer it stands in for, e.g.
        ``smac3`` with ``smac``'s)."""
        benchmarks = [self.benchmark] if benchmarks is None else benchmarks
        chosen = list(self.seeds if seeds is None else seeds)
        wanted = self.optimizers if optimizers is None else tuple(optimizers)
        outside = [name for name in wanted if name not in self.choices]
        if outside:
            references = "".join(f" ({r} in place of {own})" for r, own in REFERENCES.items() if own in self.optimizers)
            raise InvalidSettingError(f"preset {self.name} runs {', '.join(self.optimizers)}{references}; "
                                      f"not {', '.join(outside)}")
        specs = []
        for run in self.runs:
            for name in _names(run):
                if name in wanted:
                    specs += grid(benchmarks, [name], chosen, self.budget, {name: run.settings},
                                  RunSettings(caching=run.caching), benchmark_options)
        return specs


def _names(run: PresetRun) -> tuple[str, ...]:
    """The optimizer of ``run`` and the references that run with its settings when named."""
    return (run.optimizer, *(reference for reference, own in REFERENCES.items() if own == run.optimizer))


#: SMAC's evaluations per configuration without caching (setups O and VS): our choice, one per
#: NB101 trial; the paper gives no number ("multiple times").
SMAC_REPEATS = 3
#: Said wherever the presets describe SMAC without caching.
SMAC_REPEATS_NOTE = (f"SMAC ({SMAC_REPEATS} evaluations per configuration: nasarena's choice, one per NB101 trial; the "
                     "paper says only 'multiple')")

#: What the presets' irace runs with, for their descriptions: the package defaults, as the
#: paper's tuned values (in its supplementary material) are not available here.
IRACE_DEFAULTS = ("irace with its package defaults (first_test 5, each_test 1, confidence 0.95; 7,500 "
                  "evaluations, about those of 1e7 s), as the paper's tuned values are only in its supplementary "
                  "material, not available here")


#: Which SMAC the presets run, for their descriptions.
SMAC_WHICH = "SMAC is nasarena's smac (smac3, SMAC3 itself, in its place when named)"


def _setup(caching: bool, variable: bool) -> tuple[PresetRun, ...]:
    """RE, SMAC and irace in one of the paper's setups; the variable-size encoding for all three in VS."""
    smac = {"repeated_evaluations": 1 if caching else SMAC_REPEATS}
    encoding = {"encoding": "variable_size"} if variable else {}
    return (PresetRun("re", encoding, caching), PresetRun("smac", {**smac, **encoding}, caching),
            PresetRun("irace", encoding, caching))


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset("anytime-O", f"anytime paper setup O: original protocol; RE, {SMAC_REPEATS_NOTE}, irace; 20 seeds, "
                            f"1e7 s; {SMAC_WHICH}; {IRACE_DEFAULTS}", _setup(False, False)),
        Preset("anytime-C", "anytime paper setup C: caching (each architecture evaluated once, repeats answered "
                            "from the cache); RE, SMAC (1 evaluation per configuration), irace; 20 seeds, 1e7 s; "
                            f"{SMAC_WHICH}; {IRACE_DEFAULTS}", _setup(True, False)),
        Preset("anytime-VS", f"anytime paper setup VS: number of vertices as a parameter; RE, {SMAC_REPEATS_NOTE}, "
                             f"irace; 20 seeds, 1e7 s; {SMAC_WHICH}; {IRACE_DEFAULTS}", _setup(False, True)),
        Preset("anytime-CVS", "anytime paper setup CVS: caching and variable size; RE, SMAC (1 evaluation per "
                              f"configuration), irace; 20 seeds, 1e7 s; {SMAC_WHICH}; {IRACE_DEFAULTS}",
               _setup(True, True)),
    )
}


def preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise unknown_name("preset", name, PRESETS) from None
