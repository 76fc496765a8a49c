"""The zero-cost warm-up of Abdelfattah et al. (ICLR 2021, "Zero-cost proxies for lightweight NAS",
Sec. 5): before the search trains anything, score many random architectures with a zero-cost
proxy and start the search from the best of them.

An optimizer with the setting ``zero_cost_warmup=N`` (RE, BANANAS) first asks for ``N`` distinct
random architectures at fidelity 0 (``ZERO_COST``: the benchmark's proxy, whose measured cost
the runner charges to the simulated clock), then hands out the ``keep`` best of them by the
proxy (RE: its initial population; BANANAS: its initial samples) for training, before its own
search goes on as without the warm-up. With several workers, the ranking is of the scores told
when the first of the ``keep`` is asked for; the scores of proxies still running then are not
used (at most one per other worker).

A benchmark without a zero-cost fidelity refuses fidelity 0, so the warm-up needs one loaded
with a proxy (``nasarena.benchmark("nb201-cifar10", proxy="synflow")``).

The warm-up scores distinct architectures, so it cannot ask for more than the space holds: a
larger ``N`` is refused when the optimizer is made, naming the space's size, before any draw
(the draws for ``N = 10**9`` would never end, and ``N = 10**6`` on NB201's 15,625 cells would
score the whole space while claiming to have scored a million).
"""

from __future__ import annotations

import math

from ..benchmarks.protocol import ZERO_COST
from .base import Observation, Setting, Trial

#: Draws per wanted architecture before the warm-up settles for fewer distinct ones.
DRAWS_PER_ARCHITECTURE = 20


def warmup_setting(keeps: str) -> Setting:
    """The ``zero_cost_warmup`` setting's contract; ``keeps`` says what the best become."""
    return Setting(int, f"zero-cost warm-up (Abdelfattah et al. 2021): distinct random architectures scored by "
                             f"the benchmark's proxy (fidelity 0) before the search, whose best become {keeps}; at "
                             "most the space's size; 0: off", low=0)


class ZeroCostWarmup:
    """The warm-up's state inside one optimizer run: the proxy trials handed out, the scores
    told, and the chosen architectures not yet handed out."""

    def __init__(self, space, rng, samples: int, keep: int, owner: str):
        if samples < keep:
            raise ValueError(f"{owner}: zero_cost_warmup={samples} must be 0 or at least the {keep} architectures "
                             "it chooses")
        size = getattr(space, "size", None)  # a finite space's count of architectures (FiniteSpace)
        if size is not None and samples > size:
            raise ValueError(f"zero_cost_warmup={samples:,} asks for more distinct architectures than the space "
                             f"{space.name} holds ({size:,}): a warm-up scores each architecture once, so it is at "
                             f"most {size:,}")
        self.space = space
        self.keep = keep
        self._to_score = self._distinct_samples(rng, samples)[::-1]  # next one last, for pop()
        self._scored: list[tuple[float, int, object]] = []  # (score, order asked, architecture)
        self._chosen: list | None = None  # the best, best last, until handed out

    def _distinct_samples(self, rng, samples: int) -> list:
        found: dict = {}
        for _ in range(samples * DRAWS_PER_ARCHITECTURE):
            if len(found) == samples:
                break
            arch = self.space.sample(rng)
            found.setdefault(self.space.identity(arch), arch)
        return list(found.values())

    def ask(self, number: int) -> Trial | None:
        """The next warm-up trial: a proxy to compute, then one of the chosen architectures to
        train; None once the warm-up has handed out everything."""
        if self._to_score:
            return Trial.from_fields(self._to_score.pop(), ZERO_COST, number)
        if self._chosen is None:
            ranked = sorted(self._scored, key=lambda entry: (-entry[0], entry[1]))
            self._chosen = [arch for _, _, arch in ranked[: self.keep]][::-1]
        return Trial.from_fields(self._chosen.pop(), None, number) if self._chosen else None

    def tell(self, trial: Trial, observation: Observation) -> bool:
        """Take the score of a proxy trial; False for a training result, which is the search's."""
        if trial.fidelity != ZERO_COST:
            return False
        if observation.valid and not math.isnan(observation.proxy_score) and self._chosen is None:
            self._scored.append((observation.proxy_score, trial.number, trial.arch))
        return True
