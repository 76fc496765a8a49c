"""The leaderboard's scales (who runs, how often, how long): light, so the CLI's help can say
what each one is without importing the study."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scale:
    """Who runs, how often and how long: ``evaluations`` full trainings' worth of time per run."""

    name: str
    optimizers: tuple[str, ...]
    seeds: range
    evaluations: int

    def describe(self) -> str:
        """E.g. ``small: rs, re, ls, tpe; 5 seeds; 150 trainings' worth per run``."""
        return (f"{self.name}: {', '.join(self.optimizers)}; {len(self.seeds)} seeds; {self.evaluations} trainings' "
                "worth per run")


#: A laptop's minutes: four cheap optimizers, five seeds, 150 trainings' worth per run (RE's
#: population is 100: with fewer trainings RE is random search, its first 100 proposals random).
SMALL = Scale("small", ("rs", "re", "ls", "tpe"), range(5), 150)
#: A paper's setting: the single-fidelity optimizers that run on every space, 20 seeds, 300
#: trainings (two of RE's generations past its random population).
FULL = Scale("full", ("rs", "re", "ls", "tpe", "smac", "bananas", "de", "reinforce"), range(20), 300)
SCALES = {scale.name: scale for scale in (SMALL, FULL)}
