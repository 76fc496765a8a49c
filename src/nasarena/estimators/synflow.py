"""Synaptic flow (Tanaka et al. 2020, "Pruning neural networks without any data by iteratively
conserving synaptic flow"), summed over the network as Abdelfattah et al. (2021) do.

Every parameter is replaced by its absolute value, the network runs in float64 on one all-ones
input image (no data), and ``R`` is the sum of its outputs; a weight's saliency is
``|W * dR/dW|`` (Tanaka et al., Eq. 2 with the linearised network), summed over the weights of
every conv and linear layer. Batch norm is taken out of the path (each BN passes its input on
unchanged), as Abdelfattah et al. compute synflow on a copy of the network without batch norm:
with batch statistics a single all-ones image would be normalised to zero. Dropout: none in the
networks (DARTS's drop path is off at initialisation); evaluation mode otherwise.
"""

from __future__ import annotations

import torch
from torch import nn

from .layers import logits, scored_weights
from .proxy import Probe, Proxy


def _bypass(module: nn.Module, inputs, output):
    """A batch norm's forward hook that hands its input on instead of its output."""
    return inputs[0]


def _synflow(probe: Probe) -> float:
    network = probe.build().double().eval()
    with torch.no_grad():
        for parameter in network.parameters():
            parameter.abs_()
    handles = [module.register_forward_hook(_bypass) for module in network.modules()
               if isinstance(module, nn.modules.batchnorm._BatchNorm)]
    try:
        ones = torch.ones(1, 3, probe.image_size, probe.image_size, dtype=torch.float64, device=probe.device)
        logits(network(ones)).sum().backward()
    finally:
        for handle in handles:
            handle.remove()
    return float(sum((weight * weight.grad).detach().abs().sum() for weight in scored_weights(network)
                     if weight.grad is not None))


SYNFLOW = Proxy("synflow", "Tanaka et al. 2020, as summed by Abdelfattah et al. 2021",
                "sum |W * dR/dW| over conv/linear weights, R = sum of the outputs of the |parameter| network "
                "on one all-ones image, float64, batch norm bypassed; no data", 0, _synflow)
