"""Zen-score (Lin et al. 2021, "Zen-NAS: a zero-shot NAS for high-performance image recognition",
ICCV), as the reference code computes it, and the paper's formula under its own name.

Both are data-free: every conv and linear weight is redrawn from a standard Gaussian (biases
zero, batch-norm scale 1 and shift 0), and the network runs in training mode on 64
standard-Gaussian images ``x`` and on ``x + alpha * eps`` (``eps`` standard Gaussian, ``alpha =
0.01``); ``f`` is the feature map before the global average pooling (where each space's network
pools is :data:`POOLED_AFTER`).

``zen``, the reference code's (ZenNAS ``compute_zen_score.py``, and NASLib's port that
NAS-Bench-Suite-Zero's published values come from)::

    zen = log mean_images sum_(c,h,w) |f(x) - f(x + alpha * eps)|
          + sum over BN layers i of log sqrt(mean_j running_var_ij)

an L1 distance, and the batch norms' *running* variances after the two passes (each pass
updates them with the layer's momentum from their initial 1; a BN without running statistics is
skipped, as the reference's ``try`` skips it). Those never vanish, so ``zen`` is finite for every
finite network; it is undefined (NaN) only when the features do not depend on the input at all
(a cell whose output is all zeros), where the distance is 0.

``zen_paper``, the paper's Eq. 7: the mean L2 (Frobenius) distance, and the *batch* variances
of the channels entering each BN on the pass of ``x``::

    zen_paper = log mean_images ||f(x) - f(x + alpha * eps)||_F + sum_i log sqrt(mean_j s_ij^2)

A conv on an all-zero node has batch variance 0 there, so the paper's formula is ``-inf`` for
such cells (many NB201 cells have one); nasarena reports NaN (undefined) instead.
Zen-score is defined for plain convolutional networks with BN after every conv; on cells with
identity and zero edges it is computed the same way, as later benchmarks of it do.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..errors import InvalidSettingError
from .proxy import Probe, Proxy

#: Images of each Gaussian draw and the perturbation's scale (the paper's and the reference code's).
BATCH = 64
ALPHA = 0.01
#: The module of each space's network whose output is the map before global average pooling
#: (a module list: its last module).
POOLED_AFTER = {"nb201": "last", "nb101": "layers", "darts": "cells"}


def pre_pooling(network: nn.Module, space: str) -> nn.Module:
    """The module whose output is ``network``'s feature map before global average pooling."""
    if space not in POOLED_AFTER:
        raise InvalidSettingError(f"zen: where the {space} network pools is not known; known: "
                                  f"{', '.join(POOLED_AFTER)}")
    module = network.get_submodule(POOLED_AFTER[space])
    return module[-1] if isinstance(module, nn.ModuleList) else module


def gaussian_init(network: nn.Module, generator: torch.Generator) -> None:
    """Zen-NAS's initialisation: conv and linear weights standard Gaussian, biases 0, BN 1 and 0."""
    with torch.no_grad():
        for module in network.modules():
            if isinstance(module, (nn.Conv2d, nn.Linear)):
                module.weight.copy_(torch.randn(module.weight.shape, generator=generator))
                if module.bias is not None:
                    module.bias.zero_()
            elif isinstance(module, nn.modules.batchnorm._BatchNorm) and module.affine:
                module.weight.fill_(1.0)
                module.bias.zero_()


def _two_passes(probe: Probe, on_first_pass=None) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    """The Gaussian-initialised network and its pre-pooling features of ``x`` and of
    ``x + alpha * eps`` (drawn in that order from the probe's seed); ``on_first_pass(network)``
    returns hooks to remove after the pass of ``x``."""
    generator = torch.Generator().manual_seed(probe.seed)
    network = probe.build()
    gaussian_init(network, generator)
    shape = (BATCH, 3, probe.image_size, probe.image_size)
    images = torch.randn(shape, generator=generator).to(probe.device)
    perturbed = images + ALPHA * torch.randn(shape, generator=generator).to(probe.device)
    features: list[torch.Tensor] = []
    handles = [pre_pooling(network, probe.space).register_forward_hook(
        lambda module, inputs, output: features.append(output))]
    first = on_first_pass(network) if on_first_pass is not None else []
    try:
        with torch.no_grad():
            network(images)
            for handle in first:
                handle.remove()
            network(perturbed)
    finally:
        for handle in handles + first:
            handle.remove()
    return network, features[0].double(), features[1].double()


def _log_or_nan(value: float) -> float:
    """log of a distance; NaN (undefined) where it is 0 or not finite."""
    return math.log(value) if value > 0 and math.isfinite(value) else math.nan


def _zen(probe: Probe) -> float:
    network, clean, noisy = _two_passes(probe)
    distance = float((clean - noisy).abs().flatten(1).sum(dim=1).mean())
    scaling = sum(math.log(math.sqrt(float(module.running_var.double().mean())))
                  for module in network.modules()
                  if isinstance(module, nn.BatchNorm2d) and module.running_var is not None)
    return _log_or_nan(distance) + scaling


def _zen_paper(probe: Probe) -> float:
    variances: list[torch.Tensor] = []

    def batch_variances(network: nn.Module) -> list:
        return [module.register_forward_hook(
            lambda module, inputs, output: variances.append(inputs[0].double().var(dim=(0, 2, 3), unbiased=False)))
            for module in network.modules() if isinstance(module, nn.BatchNorm2d)]

    _, clean, noisy = _two_passes(probe, batch_variances)
    distance = float((clean - noisy).flatten(1).norm(dim=1).mean())
    spreads = [float(variance.mean()) for variance in variances]
    if any(spread <= 0 for spread in spreads):
        return math.nan  # a BN on a constant input: the paper's formula is -inf, undefined
    return _log_or_nan(distance) + sum(math.log(math.sqrt(spread)) for spread in spreads)


ZEN = Proxy("zen", "Lin et al. 2021 (reference code)", "log mean L1 distance of the pre-pooling features of 64 "
            "Gaussian images and their 0.01-perturbations + sum over BN layers of log sqrt(mean running variance "
            "after the two passes); Gaussian weights, training mode; no data", 0, _zen)
ZEN_PAPER = Proxy("zen_paper", "Lin et al. 2021 (Eq. 7)", "log mean ||f(x) - f(x + 0.01 eps)||_F over 64 Gaussian "
                  "images + sum over BN layers of log sqrt(mean batch variance); Gaussian weights, training mode; "
                  "no data", 0, _zen_paper)
