"""Size and cost of a built network: trainable parameters and multiply-adds of a forward pass."""

from __future__ import annotations

import contextlib
from unittest import mock

import torch
from torch import nn


def count_parameters(module: nn.Module) -> int:
    """Number of trainable parameters (what the benchmarks call ``params``)."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


@torch.no_grad()
def count_flops(module: nn.Module, image_size: int) -> int:
    """Multiply-adds of one forward pass of one 3 x ``image_size`` x ``image_size`` image.

    Counted by forward hooks on every ``Conv2d`` (``k_h * k_w * C_in / groups`` per output
    value) and ``Linear`` (``in * out``); batch norm, activations, pooling, additions and
    biases are not counted, the convention of NB201's and DARTS's reported FLOPs. The pass
    runs in evaluation mode (no batch-norm statistic changes, no auxiliary head) and the
    module's mode is restored afterwards.
    """
    total = 0

    def conv_hook(layer: nn.Conv2d, inputs, output) -> None:
        nonlocal total
        kernel = layer.kernel_size[0] * layer.kernel_size[1] * layer.in_channels // layer.groups
        total += output[0].numel() * kernel

    def linear_hook(layer: nn.Linear, inputs, output) -> None:
        nonlocal total
        total += output[0].numel() * layer.in_features

    handles = [m.register_forward_hook(conv_hook) for m in module.modules() if isinstance(m, nn.Conv2d)]
    handles += [m.register_forward_hook(linear_hook) for m in module.modules() if isinstance(m, nn.Linear)]
    was_training = module.training
    device = next((p.device for p in module.parameters()), torch.device("cpu"))
    try:
        module.eval()
        module(torch.zeros(1, 3, image_size, image_size, device=device))
    finally:
        module.train(was_training)
        for handle in handles:
            handle.remove()
    return int(total)


@contextlib.contextmanager
def shapes_only():
    """Build modules on torch's meta device without initialising weights: shapes (and so
    parameter counts) are exact, nothing is allocated, and building is several times faster.
    For parity checks over many architectures; such modules cannot run."""
    with contextlib.ExitStack() as stack:
        for layer in (nn.Conv2d, nn.Linear, nn.modules.batchnorm._NormBase):
            stack.enter_context(mock.patch.object(layer, "reset_parameters", lambda self: None))
        stack.enter_context(torch.device("meta"))
        yield
