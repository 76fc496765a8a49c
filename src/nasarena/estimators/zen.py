"""Zen-score (Lin et al. 2021, "Zen-NAS: a zero-shot NAS for high-performance image recognition",
ICCV, Sec. 3-4).

Data-free: every conv and linear weight is redrawn from a standard Gaussian (biases zero, batch
norm scale 1 and shift 0), the network runs in training mode (batch norm with the batch's
statistics) on 64 standard-Gaussian images ``x`` and on ``x + alpha * eps`` (``eps`` standard
Gaussian, ``alpha = 0.01``), and with ``f`` the feature map before the global average pooling

    Zen = log E ||f(x) - f(x + alpha * eps)||_F + sum over BN layers i of log sqrt(mean_j s_ij^2)

where ``s_ij^2`` is the batch variance of channel ``j`` entering BN layer ``i`` on the pass of
``x`` (the paper's Eq. 7; the expectation is the mean over the 64 images of one draw). Where
each space's network pools is :data:`POOLED_AFTER`. Zen-score is defined for plain
convolutional networks with BN after every conv; on cells with identity and zero edges it is
computed the same way, as later benchmarks of it do.
"""

from __future__ import annotations

import torch
from torch import nn

from ..errors import InvalidSettingError
from .proxy import Probe, Proxy

#: Images of each Gaussian draw and the perturbation's scale (the paper's settings).
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


def _zen(probe: Probe) -> float:
    generator = torch.Generator().manual_seed(probe.seed)
    network = probe.build()
    gaussian_init(network, generator)
    shape = (BATCH, 3, probe.image_size, probe.image_size)
    images = torch.randn(shape, generator=generator).to(probe.device)
    perturbed = images + ALPHA * torch.randn(shape, generator=generator).to(probe.device)
    features: list[torch.Tensor] = []
    variances: list[torch.Tensor] = []
    handles = [pre_pooling(network, probe.space).register_forward_hook(
        lambda module, inputs, output: features.append(output))]
    bn_handles = [module.register_forward_hook(
        lambda module, inputs, output: variances.append(inputs[0].double().var(dim=(0, 2, 3), unbiased=False)))
        for module in network.modules() if isinstance(module, nn.BatchNorm2d)]
    try:
        with torch.no_grad():
            network(images)
            for handle in bn_handles:
                handle.remove()
            network(perturbed)
    finally:
        for handle in handles + bn_handles:
            handle.remove()
    difference = (features[0].double() - features[1].double()).flatten(1).norm(dim=1).mean()
    scaling = sum(torch.log(torch.sqrt(variance.mean())) for variance in variances)
    return float(torch.log(difference) + scaling)


ZEN = Proxy("zen", "Lin et al. 2021", "log mean ||f(x) - f(x + 0.01 eps)||_F over 64 Gaussian images + sum over BN "
            "layers of log sqrt(mean batch variance); Gaussian weights, training mode; no data", 0, _zen)
