"""Scoring one architecture: its seeded network, the run's minibatch, every proxy timed.

Fixed initialisation per seed: every proxy of an architecture builds the network from torch's
CPU stream seeded by the run's seed (so the same initial weights on every device, and for every
architecture the same stream), then moves it to the device. The minibatch is drawn once per run
(:func:`minibatch`) from CIFAR-10's training split, seeded, normalised as for training, without
augmentation; each proxy reads its paper's number of images from its front. On a CPU the values
are a function of the seed and the thread count (which fixes summation order); a table
(:mod:`nasarena.studies.estimator_table`) computes on one thread whatever its number of workers, so its values are one
function of the seed. On a CUDA GPU the proxies compute in IEEE float32 with cudnn's
deterministic algorithms (:func:`nasarena.training.device.exact_float32`; cudnn would otherwise
use TF32 and time its algorithms), so a GPU's values differ from a CPU's by summation order, not
by precision.

The network is the space's full (paper) size unless scale knobs say otherwise; an auxiliary
head (DARTS) is left out: it is a training aid that the papers' parameter counts exclude too.
"""

from __future__ import annotations

import numbers
import time
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ..errors import InvalidArchitectureError, InvalidSettingError
from ..spaces.registry import SPACES as REGISTERED
from ..spaces.registry import space as space_named
from ..training.device import exact_float32, pick_device
from ..training.networks import build_network
from . import PROXIES
from .proxy import Probe, Proxy, ProxyResult


def derived_seed(seed: int, purpose: str) -> int:
    """An independent 63-bit seed for one use (``init``, ``minibatch``, ``inputs``) of ``seed``.

    ``seed`` must be a whole number >= 0 (numpy's seed sequence takes no other): anything else is
    refused here, naming the setting, rather than by numpy's bit generator."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InvalidSettingError(f"seed={seed!r} must be a whole number >= 0")
    state = np.random.SeedSequence([int(seed), zlib.crc32(purpose.encode())]).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


def proxies_named(names: Sequence[str] | str) -> list[Proxy]:
    """The proxies of ``names`` (registry order kept as given); unknown or repeated names refused.

    One name given as a string is the list of that name (a string is a sequence of its letters,
    which would otherwise be read as one-letter names)."""
    names = [names] if isinstance(names, str) else list(names)
    if not names:
        raise InvalidSettingError(f"name at least one proxy, e.g. synflow,naswot; known: {', '.join(PROXIES)}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InvalidSettingError(f"proxies {', '.join(repeated)} named more than once")
    proxies: list[Proxy] = []
    for name in names:
        proxy = PROXIES[name]
        if not isinstance(proxy, Proxy):
            raise InvalidSettingError(f"proxy {name!r} is registered as a {type(proxy).__name__}, not a "
                                      "nasarena.estimators.Proxy")
        proxies.append(proxy)
    return proxies


def batch_size(proxies: Sequence[Proxy]) -> int:
    """Images of the run's one minibatch: the most any of ``proxies`` reads (0: none reads data)."""
    return max((proxy.batch for proxy in proxies), default=0)


def minibatch(data, size: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``size`` seeded training images of ``data`` (a loaded :class:`~nasarena.training.data.Cifar10`)
    and their labels, normalised with the training split's statistics."""
    from ..training.data import batches

    if size > len(data.train.labels):
        raise InvalidSettingError(f"the proxies read {size} images but the training split has "
                                  f"{len(data.train.labels)}")
    if size == 0:
        side = data.image_size
        return torch.zeros(0, 3, side, side), torch.zeros(0, dtype=torch.int64)
    generator = torch.Generator().manual_seed(derived_seed(seed, "minibatch"))
    return next(batches(data.train, size, augment=False, generator=generator, mean=data.mean, std=data.std))


def proxy_scale(space: str, scale: dict | None = None) -> dict:
    """The scale knobs the proxies build ``space``'s network with: the paper's size, no
    auxiliary head, overridden by ``scale``."""
    knobs = dict(space_named(space, needs="network").network_scale)
    if "auxiliary" in knobs:
        knobs["auxiliary"] = False
    return {**knobs, **(scale or {})}


def architecture(space: str, arch):
    """``arch`` (an architecture object or its text form) as ``space``'s architecture object; an
    architecture of another space, or text that does not parse, is refused naming both."""
    owner: Any = space_named(space, needs="network")
    if isinstance(arch, str):
        try:
            arch = owner.from_text(arch)
        except (ValueError, KeyError) as error:
            raise InvalidArchitectureError(f"{space} architecture text {arch[:200]!r} does not parse: "
                                           f"{error}") from None
    if not isinstance(arch, owner.architecture):
        kinds = {name: getattr(registered, "architecture", None) for name, registered in REGISTERED.items()}
        others = [name for name, kind in kinds.items() if isinstance(kind, type) and isinstance(arch, kind)]
        origin = f"an architecture of {', '.join(others)}" if others else f"a {type(arch).__name__}"
        raise InvalidArchitectureError(f"the {space} proxies score {space} architectures "
                                       f"({owner.architecture.__name__} or its text form), got {origin}")
    problem = owner.violation(arch)
    if problem is not None:
        raise InvalidArchitectureError(f"the {space} architecture is outside the space ({problem})")
    return arch


def compute_proxies(space: str, arch, proxies: Sequence[str] | str, *, images: torch.Tensor | None = None,
                    labels: torch.Tensor | None = None, image_size: int | None = None, seed: int = 0,
                    device: str | torch.device = "cpu", scale: dict | None = None) -> ProxyResult:
    """Every proxy of ``proxies`` (names, or one name) for ``arch`` of ``space``, each with its seconds.

    ``images``/``labels``: the run's minibatch (:func:`minibatch`), needed when a proxy reads
    data; ``image_size`` defaults to the images' side (32 without images). ``device``: ``auto``,
    ``cpu``, ``cuda``... (:func:`nasarena.training.device.pick_device`).
    """
    chosen = proxies_named(proxies)
    init_seed = derived_seed(seed, "init")  # refuses a bad seed before any network is built
    arch = architecture(space, arch)
    text = space_named(space).to_text(arch)
    needed = batch_size(chosen)
    if needed and (images is None or labels is None or len(images) < needed):
        have = 0 if images is None else len(images)
        raise InvalidSettingError(f"the proxies {', '.join(p.name for p in chosen if p.batch)} read {needed} "
                                  f"images; the minibatch given has {have}")
    side = image_size or (images.shape[-1] if images is not None and len(images) else 32)
    target = pick_device(device) if isinstance(device, str) else device
    knobs = proxy_scale(space, scale)

    def build() -> torch.nn.Module:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(init_seed)
            network = build_network(space, arch, **knobs)
        return network.to(target).train()

    images = None if images is None else images.to(target)
    labels = None if labels is None else labels.to(target)
    probe = Probe(space=space, build=build, images=images, labels=labels, image_size=int(side),
                  seed=derived_seed(seed, "inputs"), device=target)
    values, seconds = {}, {}
    with exact_float32(target):
        for proxy in chosen:
            start = time.perf_counter()
            values[proxy.name] = float(proxy.score(probe))
            if target.type == "cuda":
                torch.cuda.synchronize(target)
            seconds[proxy.name] = time.perf_counter() - start
    for shared in {proxy.shared_pass for proxy in chosen if proxy.shared_pass}:  # its first reader paid for it
        readers = [proxy.name for proxy in chosen if proxy.shared_pass == shared]
        each = sum(seconds[name] for name in readers) / len(readers)
        seconds.update(dict.fromkeys(readers, each))
    return ProxyResult(space=space, arch=text, seed=seed, device=str(target), values=values, seconds=seconds)
