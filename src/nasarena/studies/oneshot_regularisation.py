"""The regularisation study of NAS-Bench-1Shot1 (Sec. 5.3, Appendix E) as one grid of one-shot runs.

Two studies on the same optimizers: cutout during the search on or off (at the default weight
decay, Fig. 4 and 9-10), and the weight decay of the supernet's weights at 1e-4, 3e-4, 9e-4,
27e-4 and 81e-4 without cutout (Fig. 11-13). The variant they share (no cutout, 3e-4, the
default) runs once. Every variant is an ordinary experiment of :mod:`.experiment` in
``<out>/<variant>/``, so each search is resumable and ``oneshot report <out>/<variant>`` works
on it; :mod:`nasarena.plots.oneshot_regularisation` draws regret and one-shot validation error
per epoch per variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..oneshot.settings import SearchSettings
from .oneshot_experiment import Job, plan

#: The weight decays of the paper's L2 study (Fig. 11-13).
WEIGHT_DECAYS = (1e-4, 3e-4, 9e-4, 27e-4, 81e-4)
#: The default weight decay (Appendix C), at which cutout is switched on and off.
DEFAULT_WEIGHT_DECAY = 3e-4


@dataclass(frozen=True)
class Variant:
    """One regularisation setting: cutout length in pixels (0: off) and weight decay."""

    cutout: int
    weight_decay: float

    @property
    def name(self) -> str:
        return f"cutout-{self.cutout}_wd-{self.weight_decay:g}"

    @property
    def studies(self) -> tuple[str, ...]:
        """The studies this variant belongs to: ``cutout`` and/or ``weight_decay``."""
        return (("cutout",) if self.weight_decay == DEFAULT_WEIGHT_DECAY else ()) + \
            (("weight_decay",) if self.cutout == 0 else ())


def variants(image_size: int) -> list[Variant]:
    """Cutout off and on (half the image side: DARTS's 16 pixels at 32 x 32) at the default weight
    decay, and the weight-decay sweep without cutout; the shared variant once."""
    cutout = [Variant(0, DEFAULT_WEIGHT_DECAY), Variant(image_size // 2, DEFAULT_WEIGHT_DECAY)]
    sweep = [Variant(0, wd) for wd in WEIGHT_DECAYS]
    return list(dict.fromkeys(cutout + sweep))


def plan_study(settings: Sequence[SearchSettings], seeds: Sequence[int], out_dir: str | Path) -> list[Job]:
    """Every (variant, optimizer, seed) search; run directories are checked, nothing is written."""
    out_dir = Path(out_dir)
    jobs = []
    for variant in variants(settings[0].image_size):
        changed = [s.replace(cutout=variant.cutout, weight_decay=variant.weight_decay) for s in settings]
        jobs += plan(changed, seeds, out_dir / variant.name)
    return jobs
