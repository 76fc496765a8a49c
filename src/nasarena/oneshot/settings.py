"""Everything a one-shot search run depends on, as one frozen value with a fingerprint.

The defaults are the paper's (NAS-Bench-1Shot1, Appendix C, which takes DARTS's search
hyperparameters): batch 96 (Random-WS 64), SGD 0.025 with cosine annealing to 0.001,
momentum 0.9, weight decay 3e-4, gradient clipping at 5; architecture weights by Adam 3e-4,
betas (0.5, 0.999), weight decay 1e-3; 50 epochs; a one-shot model with 16 initial channels
on 32 x 32 CIFAR-10. :func:`quick_settings` is the CPU configuration the tests run.

A run directory stores the settings it was started with; :meth:`SearchSettings.fingerprint`
decides whether a resumed run may continue (torch-free, so the CLI checks before any work).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from ..benchmarks.registry import DEFAULT_NB101
from ..errors import InvalidSettingError
from ..io.fingerprint import settings_fingerprint
from ..spaces.oneshot import oneshot_space
from .names import check_optimizer

#: Every real-valued setting, the test its value must pass and that range in words. A value out
#: of range (or NaN, an infinity, text) would only fail an epoch later, or silently train nothing.
REAL_RANGES: dict[str, tuple[Callable[[float], bool], str]] = {
    "learning_rate": (lambda v: v > 0, "> 0"),
    "learning_rate_min": (lambda v: v >= 0, ">= 0"),
    "momentum": (lambda v: 0 <= v < 1, "in [0, 1)"),
    "weight_decay": (lambda v: v >= 0, ">= 0"),
    "grad_clip": (lambda v: v > 0, "> 0"),
    "arch_learning_rate": (lambda v: v > 0, "> 0"),
    "arch_beta1": (lambda v: 0 <= v < 1, "in [0, 1)"),
    "arch_beta2": (lambda v: 0 <= v < 1, "in [0, 1)"),
    "arch_weight_decay": (lambda v: v >= 0, ">= 0"),
    "tau_max": (lambda v: v > 0, "> 0"),
    "tau_min": (lambda v: v > 0, "> 0"),
    "controller_learning_rate": (lambda v: v > 0, "> 0"),
    "controller_entropy_weight": (lambda v: v >= 0, ">= 0"),
    "controller_baseline_decay": (lambda v: 0 <= v <= 1, "in [0, 1]"),
}


def _check_real(name: str, value: object) -> None:
    """Refuse a real-valued setting that is not a finite number in its range (:data:`REAL_RANGES`),
    naming it: ``--set learning_rate=nan`` arrives as text, ``=NaN`` and ``=Infinity`` as floats."""
    test, words = REAL_RANGES[name]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not (number and math.isfinite(value) and test(value)):
        raise InvalidSettingError(f"setting {name} must be a finite number {words}, got {value!r}")


@dataclass(frozen=True)
class SearchSettings:
    """The settings of one search (one optimizer, one seed on one space)."""

    space: str = "nb1shot1-3"
    optimizer: str = "darts"
    epochs: int = 50
    # the one-shot model (NB101 macro skeleton: stacks of cells, max-pool in between)
    channels: int = 16
    stacks: int = 3
    cells_per_stack: int = 3
    # data: CIFAR-10 train split trains the weights, its held-out validation split the architecture
    image_size: int = 32
    subset: int | None = None
    batch_size: int | None = None  # None: the paper's, 96 (Random-WS 64)
    cutout: int = 0
    augment: bool = True
    # weights: SGD with cosine annealing (DARTS)
    learning_rate: float = 0.025
    learning_rate_min: float = 0.001
    momentum: float = 0.9
    weight_decay: float = 3e-4
    grad_clip: float = 5.0
    # architecture weights: Adam (DARTS)
    arch_learning_rate: float = 3e-4
    arch_beta1: float = 0.5
    arch_beta2: float = 0.999
    arch_weight_decay: float = 1e-3
    # PC-DARTS: 1/K of the channels go through the mixed op
    partial_channels: int = 4
    # GDAS: Gumbel-softmax temperature, annealed linearly over the epochs
    tau_max: float = 10.0
    tau_min: float = 1.0
    # Random-WS and ENAS: choosing the final architecture with the one-shot weights
    samples: int | None = None  # None: the paper's, 1000 for Random-WS, 100 for ENAS
    screen_batches: int = 10
    finalists: int = 5
    # ENAS controller (REINFORCE on validation accuracy)
    controller_hidden: int = 64
    controller_learning_rate: float = 3.5e-4
    controller_entropy_weight: float = 1e-4
    controller_baseline_decay: float = 0.99
    # where the discretised architecture is looked up
    benchmark: str = DEFAULT_NB101  # the 3-trial table, as NB-1Shot1's benchmarks (issue 29)
    benchmark_path: str | None = None
    # the supernet's weights are kept every n epochs (and after the last) for the correlation
    # analysis of 'nasarena oneshot correlate'; 0 keeps none
    snapshot_every: int = 0

    def __post_init__(self) -> None:
        oneshot_space(self.space)
        check_optimizer(self.optimizer)
        if self.batch_size is None:
            object.__setattr__(self, "batch_size", 64 if self.optimizer == "random-ws" else 96)
        if self.samples is None:
            object.__setattr__(self, "samples", 100 if self.optimizer == "enas" else 1000)
        positive = ("epochs", "channels", "stacks", "cells_per_stack", "image_size", "batch_size", "partial_channels",
                    "samples", "screen_batches", "finalists", "controller_hidden")
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidSettingError(f"setting {name} must be a positive integer, got {value!r}")
        if self.subset is not None and (not isinstance(self.subset, int) or self.subset < 1):
            raise InvalidSettingError(f"setting subset must be a positive number of images per class, got {self.subset!r}")
        if self.image_size > 32:
            raise InvalidSettingError(f"setting image_size must be at most 32 (CIFAR-10), got {self.image_size}")
        if self.image_size < 2 ** (self.stacks - 1):
            raise InvalidSettingError(f"setting image_size {self.image_size} is too small for {self.stacks} stacks "
                                      f"(each stack after the first halves the side)")
        if self.finalists > self.samples:
            raise InvalidSettingError(f"setting finalists ({self.finalists}) cannot exceed samples ({self.samples})")
        if not isinstance(self.snapshot_every, int) or isinstance(self.snapshot_every, bool) or self.snapshot_every < 0:
            raise InvalidSettingError(f"setting snapshot_every must be a whole number of epochs >= 0 (0: keep no "
                                      f"supernet), got {self.snapshot_every!r}")
        if not isinstance(self.cutout, int) or isinstance(self.cutout, bool) or self.cutout < 0:
            raise InvalidSettingError(f"setting cutout must be a whole number of pixels >= 0, got {self.cutout!r}")
        for name in REAL_RANGES:
            _check_real(name, getattr(self, name))
        if not self.tau_max >= self.tau_min:
            raise InvalidSettingError(f"settings tau_max >= tau_min required, got {self.tau_max}, {self.tau_min}")
        if self.channels % self.partial_channels and self.optimizer == "pc-darts":
            raise InvalidSettingError(f"setting channels ({self.channels}) must be a multiple of partial_channels "
                                      f"({self.partial_channels}) for PC-DARTS")

    def replace(self, **changes) -> SearchSettings:
        """A copy with ``changes``; an unknown name raises InvalidSettingError listing the settings.

        Changing the optimizer re-derives the per-optimizer defaults (batch size, samples) unless
        they are changed too."""
        unknown = sorted(set(changes) - set(self.to_dict()))
        if unknown:
            raise InvalidSettingError(f"unknown one-shot setting(s) {', '.join(unknown)}; "
                                      f"available: {', '.join(self.to_dict())}")
        if "optimizer" in changes:
            changes = {"batch_size": None, "samples": None, **changes}
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> SearchSettings:
        return cls().replace(**values)

    def fingerprint(self) -> str:
        """A digest of every setting: a run only continues under the same one."""
        return settings_fingerprint(self.to_dict(), strict=True)

    def differences(self, other: SearchSettings) -> dict[str, tuple[object, object]]:
        """``{name: (self's value, other's value)}`` for every setting that differs."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}


def paper_settings(optimizer: str = "darts", space: str = "nb1shot1-3", **changes) -> SearchSettings:
    """The paper's configuration (Appendix C; the defaults): batch 96, Random-WS 64."""
    return SearchSettings(space=space, optimizer=optimizer).replace(**changes)


def quick_settings(optimizer: str = "darts", space: str = "nb1shot1-3", **changes) -> SearchSettings:
    """A CPU configuration: 4 channels, 16 x 16 images, 50 images per class, 2 epochs, small final
    sampling for Random-WS and ENAS. Minutes, not GPU days; regret numbers are not the paper's."""
    quick = {"epochs": 2, "channels": 4, "image_size": 16, "subset": 50, "batch_size": 32, "samples": 20,
             "screen_batches": 1, "finalists": 2, "controller_hidden": 16}
    return SearchSettings(space=space, optimizer=optimizer, **quick).replace(**changes)
