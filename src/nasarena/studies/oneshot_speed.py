"""What a one-shot search costs on a CPU: NAS-Bench-1Shot1's optimizers at the quick configuration,
and the paper configuration's epoch time extrapolated from a few timed steps.

The measurement behind the one-shot table of ``docs/reproduce/nas-bench-1shot1.md`` (Sec. 5.1,
block ``oneshot-speed`` of :mod:`.reproduce.nb1shot1_oneshot`); ``bench/bench_oneshot.py`` prints
the same. Three parts:

- :func:`epoch_plan`: what one epoch of a search consists of, from its settings alone (torch-free
  arithmetic, the same on every machine): its weight steps (each with its architecture step) and
  its end-of-epoch forward passes, the one-shot validation pass over the whole validation split
  plus, for Random-WS and ENAS, the screening of sampled architectures that chooses the epoch's
  architecture (:meth:`~nasarena.oneshot.search.OneShotSearch.best_of`).
- :func:`quick_run`: one real search at :func:`~nasarena.oneshot.quick_settings` on CIFAR-10.
- :func:`time_epoch`: the seconds of one epoch *extrapolated*: a few training steps timed after one
  warm-up step, times the plan's steps, plus one timed no-gradient forward pass times the plan's
  forward passes. A whole epoch at the paper's size (40,000 training images, 16 channels,
  32 x 32) takes hours on one CPU thread, which is why it is extrapolated rather than run. The
  timed batches are seeded noise of the configuration's shape, not CIFAR-10: a dense step costs
  the same whatever the pixels, and so the timing needs no data set (the cheap scale of the block
  runs in the test suite, where CIFAR-10 is not on every machine).

Everything is looked up in ``nb101-lite`` (:data:`BENCHMARK`), named explicitly: the regret basis
the page has always stated, while a one-shot search defaults to ``nb101-noisy`` since issue 29.
The torch imports are inside the functions that train, so the plan imports without torch.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from ..oneshot.settings import SearchSettings

SPACE = "nb1shot1-3"
#: The NB101 table the architectures are looked up in: one real draw per cell (see the module docstring).
BENCHMARK = "nb101-lite"
#: The optimizers that choose an epoch's architecture by screening sampled ones with the supernet.
SCREENING = ("random-ws", "enas")


@dataclass(frozen=True)
class EpochPlan:
    """The work of one search epoch: weight steps and end-of-epoch forward passes (whole batches)."""

    batch_size: int
    train_images: int
    valid_images: int
    steps: int
    valid_batches: int
    #: Forward passes choosing the architecture (Random-WS, ENAS; 0 for the others).
    screening_forwards: int

    @property
    def forwards(self) -> int:
        """Every end-of-epoch forward pass: the one-shot validation pass and the screening."""
        return self.valid_batches + self.screening_forwards


def split_sizes(settings: SearchSettings) -> tuple[int, int]:
    """(training, validation) images of the search's data: the NB101 split, or ``subset`` per
    class in each, capped by what the split has (as :func:`nasarena.training.data.load_cifar10`)."""
    from ..training.data import CLASSES, TRAIN_PER_CLASS, VALID_PER_CLASS  # torch: imported when planned

    classes = len(CLASSES)
    if settings.subset is None:
        return classes * TRAIN_PER_CLASS, classes * VALID_PER_CLASS
    return classes * min(settings.subset, TRAIN_PER_CLASS), classes * min(settings.subset, VALID_PER_CLASS)


def finalists(settings: SearchSettings) -> int:
    """The ``finalists`` a search's screening keeps (:meth:`~nasarena.oneshot.search.OneShotSearch.best_of`):
    Random-WS's setting; ENAS 1, the best of the screening, with no pass over the whole split; 0 for
    the optimizers that do not screen."""
    if settings.optimizer not in SCREENING:
        return 0
    return settings.finalists if settings.optimizer == "random-ws" else 1


def epoch_plan(settings: SearchSettings) -> EpochPlan:
    """One epoch of a search with ``settings`` (see the module docstring). Screening follows
    :meth:`~nasarena.oneshot.search.OneShotSearch.best_of`: every sample on the first
    ``screen_batches`` batches, then each finalist on the whole split unless only one is kept
    (ENAS keeps one)."""
    train, valid = split_sizes(settings)
    size = settings.batch_size
    valid_batches = math.ceil(valid / size)
    screening = 0
    if settings.optimizer in SCREENING:
        screening = settings.samples * min(settings.screen_batches, valid_batches)
        if finalists(settings) > 1:
            screening += finalists(settings) * valid_batches
    return EpochPlan(size, train, valid, math.ceil(train / size), valid_batches, screening)


@dataclass(frozen=True)
class EpochTime:
    """An epoch's seconds, extrapolated from timed steps and one timed forward pass."""

    plan: EpochPlan
    seconds_per_step: float
    seconds_per_forward: float

    @property
    def train_seconds(self) -> float:
        return self.seconds_per_step * self.plan.steps

    @property
    def end_of_epoch_seconds(self) -> float:
        return self.seconds_per_forward * self.plan.forwards

    @property
    def seconds(self) -> float:
        return self.train_seconds + self.end_of_epoch_seconds


@dataclass(frozen=True)
class QuickRun:
    """The outcome of one quick search: its last epoch's test regret, and its speed."""

    test_regret: float
    seconds_per_epoch: float


def noise_data(image_size: int, train_images: int, valid_images: int, seed: int):
    """A :class:`~nasarena.training.data.Cifar10` of seeded uint8 noise (labels cycling through
    the classes) for timing steps: see the module docstring."""
    import torch

    from ..training.data import CLASSES, Cifar10, Split

    generator = torch.Generator().manual_seed(seed)

    def split(count: int) -> Split:
        images = torch.randint(0, 256, (count, 3, image_size, image_size), generator=generator, dtype=torch.uint8)
        return Split(images, torch.arange(count) % len(CLASSES))

    valid = split(valid_images)
    return Cifar10(train=split(train_images), valid=valid, test=valid, image_size=image_size, subset=None,
                   source=Path("seeded-noise"), mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25))


def time_epoch(settings: SearchSettings, lookup, timed_steps: int, seed: int) -> EpochTime:
    """Time ``timed_steps`` training steps (after one warm-up step) and one end-of-epoch forward
    pass (the mean of two, after a warm-up pass) of a fresh search with ``settings`` on the CPU,
    and extrapolate to :func:`epoch_plan`. The forward pass is the one the optimizer's validation
    pass makes: DARTS's and PC-DARTS's softmax-weighted supernet, GDAS's chosen architecture, and
    for Random-WS and ENAS (whose choosing would screen hundreds of architectures first) a
    uniformly drawn one, which is what their screening and validation passes run."""
    import torch

    from ..oneshot.optimizers import search_class, uniform_architecture
    from ..oneshot.scoring import one_shot_accuracy
    from ..oneshot.supernet import PathWeights
    from ..training.data import batches

    size = settings.batch_size
    data = noise_data(settings.image_size, size * (timed_steps + 1), 2 * size, seed)
    search = search_class(settings.optimizer)(settings, data, lookup, seed, "cpu")
    search.supernet.train()
    train = list(batches(data.train, size, augment=settings.augment, generator=torch.Generator().manual_seed(seed),
                         mean=data.mean, std=data.std))
    valid = list(batches(data.valid, size, augment=False, generator=None, mean=data.mean, std=data.std))
    seconds = []
    for i, batch in enumerate(train):
        start = time.perf_counter()
        search.train_step(0, batch, valid[i % len(valid)])
        seconds.append(time.perf_counter() - start)
    if settings.optimizer in SCREENING:
        path = PathWeights.of_architecture(uniform_architecture(search.space, search.sampler))
    else:
        path = search.validation_path(0, search.final_architecture(0))
    one_shot_accuracy(search.supernet, path, valid[:1])  # warms up the no-gradient path
    start = time.perf_counter()
    one_shot_accuracy(search.supernet, path, valid)
    forward = (time.perf_counter() - start) / len(valid)
    return EpochTime(epoch_plan(settings), statistics.mean(seconds[1:]), forward)


def quick_run(settings: SearchSettings, data, lookup, seed: int, run_dir: Path) -> QuickRun:
    """Run (or resume) one search into ``run_dir`` and summarise it: the last epoch's test regret
    and the mean seconds of its epochs (end-of-epoch work included)."""
    from ..oneshot.run import run_search

    records = run_search(settings, seed, run_dir, data=data, lookup=lookup)
    return QuickRun(records[-1].test_regret, statistics.mean(r.seconds for r in records))
