"""Named experiments: the anytime paper's four setups (Vieira et al., Sec. IV) for RE, SMAC and irace.

* ``anytime-O`` (original): the NB101 protocol; SMAC evaluates a configuration up to 3 times
  (one per NB101 trial: "both irace and SMAC evaluate the same configuration multiple times");
* ``anytime-C`` (caching): each architecture is evaluated once, a repeated proposal is answered
  from the cache without an evaluation (:mod:`.protocol`); SMAC is limited to one evaluation per
  configuration (its own way of caching, as in the NB101 paper's runs);
* ``anytime-VS`` (variable-sized): the number of vertices is a parameter of the design space
  (SMAC's ``variable_size`` configuration space, RE's variable-size mutation);
* ``anytime-CVS``: both.

Each preset runs on ``nb101-noisy`` unless other benchmarks are named: the paper's runs query
NAS-Bench-101's three trials, and only there do SMAC's repeated evaluations and irace's races
see training noise (on the single-draw ``nb101-lite`` setup O would differ from C only in cost).
Each preset runs 20 seeds (0-19) with a budget of 1e7 simulated seconds, as the paper; the
budget ends every run (``MAX_QUERIES`` is a safety net that stops none of them). irace
here samples the fixed-size categorical encoding only, so it has no VS or CVS configuration
(``Preset.missing`` says so, and ``nasarena run --preset`` prints it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InvalidSettingError, unknown_name
from .experiment import RunSpec, grid
from .protocol import Budget, RunSettings

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
OPTIMIZERS = ("re", "smac3", "irace")


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
    missing: str = ""
    seeds: range = SEEDS
    budget: Budget = BUDGET
    benchmark: str = BENCHMARK

    @property
    def optimizers(self) -> tuple[str, ...]:
        return tuple(run.optimizer for run in self.runs)

    def specs(self, benchmarks=None, seeds=None, benchmark_options: dict | None = None,
              optimizers=None) -> list[RunSpec]:
        """The runs of this preset on ``benchmarks`` (its own benchmark unless some are named; its
        seeds unless ``seeds`` is given; all its optimizers unless ``optimizers`` names some of
        them, e.g. to leave out a slow SMAC)."""
        benchmarks = [self.benchmark] if benchmarks is None else benchmarks
        chosen = list(self.seeds if seeds is None else seeds)
        wanted = self.optimizers if optimizers is None else tuple(optimizers)
        outside = [name for name in wanted if name not in self.optimizers]
        if outside:
            raise InvalidSettingError(
                f"preset {self.name} runs {', '.join(self.optimizers)}; not {', '.join(outside)}"
                + (f" ({self.missing})" if self.missing else ""))
        specs = []
        for run in self.runs:
            if run.optimizer in wanted:
                specs += grid(benchmarks, [run.optimizer], chosen, self.budget, {run.optimizer: run.settings},
                              RunSettings(caching=run.caching), benchmark_options)
        return specs


_NO_IRACE_VS = "irace: no variable-size encoding here (it samples the fixed 26-choice categorical encoding)"


def _setup(caching: bool, variable: bool) -> tuple[PresetRun, ...]:
    smac = {"repeated_evaluations": 1 if caching else 3}
    runs = [PresetRun("re", {"encoding": "variable_size"} if variable else {}, caching),
            PresetRun("smac3", {**smac, "encoding": "variable_size"} if variable else smac, caching)]
    if not variable:
        runs.append(PresetRun("irace", {}, caching))
    return tuple(runs)


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset("anytime-O", "anytime paper setup O: original protocol; RE, SMAC (3 evaluations per configuration), "
                            "irace; 20 seeds, 1e7 s", _setup(False, False)),
        Preset("anytime-C", "anytime paper setup C: caching (repeated queries free); RE, SMAC (1 evaluation per "
                            "configuration), irace; 20 seeds, 1e7 s", _setup(True, False)),
        Preset("anytime-VS", "anytime paper setup VS: number of vertices as a parameter; RE, SMAC; 20 seeds, 1e7 s",
               _setup(False, True), _NO_IRACE_VS),
        Preset("anytime-CVS", "anytime paper setup CVS: caching and variable size; RE, SMAC; 20 seeds, 1e7 s",
               _setup(True, True), _NO_IRACE_VS),
    )
}


def preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise unknown_name("preset", name, PRESETS) from None
