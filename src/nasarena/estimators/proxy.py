"""What a zero-cost proxy is, what it is given, and what one architecture's scoring returns.

A :class:`Proxy` is a named scoring rule of an untrained network, written down with the paper
it comes from and the variant computed (sign, aggregation over layers, which layers, batch-norm
and dropout handling, data or none), so that a table of proxy values says exactly what it holds.
It scores one :class:`Probe`: a way to build the architecture's freshly initialised network
(every proxy gets its own, because several of them change the weights), one seeded CIFAR-10
minibatch and a seed for the proxies that draw their own inputs. Proxies that read the same pass
and change nothing (grad_norm, snip and fisher: one backward pass of the same network on the same
batch) name it in ``Proxy.shared_pass`` and take it from :meth:`Probe.once`, so scoring them
together costs one pass, not three, with the same values as scoring each alone. Torch-free: the
proxies' modules import torch, this one does not, so that listing the registry stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Probe:
    """Everything a proxy may read about one architecture.

    ``build()`` returns the architecture's network, freshly initialised from the run's seed (the
    same weights every call), in training mode, on ``device``. ``images`` (float32, N x 3 x H x W,
    normalised as for training) and ``labels`` (int64) are the run's one minibatch on ``device``;
    a proxy reads the first ``Proxy.batch`` of them. ``seed`` seeds what a proxy draws itself
    (Zen-score's Gaussian inputs). ``space`` names the space (where its network pools, for Zen).
    """

    space: str
    build: Callable[[], Any]
    images: Any
    labels: Any
    image_size: int
    seed: int
    device: Any
    _passes: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def once(self, name: str, compute: Callable[[], T]) -> T:
        """The pass ``name`` of this probe: ``compute()`` at the first call, the same result after
        (the proxies that share it must not change what it returns)."""
        if name not in self._passes:
            self._passes[name] = compute()
        return self._passes[name]


@dataclass(frozen=True)
class Proxy:
    """One zero-cost proxy: ``score(probe)`` is its value for the probe's architecture.

    ``paper``: where it is defined; ``variant``: what exactly is computed, in words; ``batch``:
    images of the minibatch it reads (the paper's batch size), 0 when it reads no data (it may
    still draw inputs of its own, as synflow and Zen-score do); ``higher_is_better``: the sign
    under which a larger value predicts a better architecture (all of nasarena's proxies are
    written so that it does); ``shared_pass``: the name of the :meth:`Probe.once` pass it reads
    with other proxies ("" for none), so that one call's time for the pass is split among them.
    """

    name: str
    paper: str
    variant: str
    batch: int
    score: Callable[[Probe], float]
    higher_is_better: bool = True
    shared_pass: str = ""


@dataclass(frozen=True)
class ProxyResult:
    """The proxies of one architecture: ``values[name]`` and ``seconds[name]``, the measured wall
    time of that proxy (building its network, moving its inputs and scoring; the minibatch is read
    once per run and not charged; proxies of one call that share a pass split its time equally).
    ``arch`` is the space's text form."""

    space: str
    arch: str
    seed: int
    device: str
    values: Mapping[str, float] = field(default_factory=dict)
    seconds: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))
        object.__setattr__(self, "seconds", MappingProxyType(dict(self.seconds)))
