"""Checks before a network trains: its classifier matches the data, and its training fits in memory.

A careless scale otherwise fails late and badly: ``--scale num_classes=3`` trained until the
first label above 2 raised an ``IndexError``, and ``--scale channels=20000`` allocated many GB
of weights before anything was checked. Both are refused here, with the numbers, before the
memory is taken.

The memory estimate: every float32 parameter needs its weight and its gradient, plus the
optimizer's state per weight (two for TF-RMSProp, one for momentum SGD, none for plain SGD);
and the backward pass needs every layer's output for each image of a batch (4 bytes a value,
counted by a forward pass of one image). It is compared with the memory free on the training
device: a CUDA GPU's free memory, else the system's available memory (psutil, else
``os.sysconf``; no check where neither tells). Measured against torch's peak memory of one
training step at batch 64 on a CPU, it came within 30 % for a network of each space (NB201 +27 %,
NB101 +13 %, DARTS -5 %): an order-of-magnitude guard against scales that cannot fit, not a
promise that an accepted run fits with no room to spare.
"""

from __future__ import annotations

import os

import torch
from torch import nn

from ..errors import InvalidSettingError
from .data import CLASSES
from .protocols import Protocol

BYTES_PER_VALUE = 4


def check_before_building(space: str, arch, scale: dict, protocol: Protocol, device: torch.device) -> None:
    """Refuse a network whose weights, gradients and optimizer state alone exceed the device's
    free memory, built on the meta device (shapes only: nothing is allocated, knob and
    architecture errors are raised as the real build raises them)."""
    from .networks import build_network, count_parameters
    from .networks.counting import shapes_only

    with shapes_only():
        network = build_network(space, arch, **scale)
    knobs = ", ".join(f"{key}={value}" for key, value in network.scale.items())
    _check_fits(f"the {space} network ({knobs})", count_parameters(network), 0, protocol, device)


def check_network(network: nn.Module, image_size: int, protocol: Protocol, device: torch.device) -> None:
    """Refuse, before training, a network that does not output one score per CIFAR-10 class or
    whose training with ``protocol``'s batch size would not fit in the device's free memory."""
    values, outputs = _forward_profile(network, image_size)
    if outputs != len(CLASSES):
        knob = f" (scale knob num_classes={outputs})" if "num_classes" in getattr(network, "scale", {}) else ""
        raise InvalidSettingError(f"the network outputs {outputs} scores per image{knob}, but the data is CIFAR-10 "
                                  f"with {len(CLASSES)} classes: num_classes must be {len(CLASSES)}, the only "
                                  "value nasarena's training data supports")
    parameters = sum(p.numel() for p in network.parameters() if p.requires_grad)
    activations = values * protocol.batch_size * BYTES_PER_VALUE
    _check_fits(f"training the network with batch_size={protocol.batch_size} on {image_size}x{image_size} images",
                parameters, activations, protocol, device)


def available_bytes(device: torch.device) -> int | None:
    """Free memory for training on ``device``: a CUDA GPU's free memory, else the system's
    available memory; None where the platform does not tell."""
    if device.type == "cuda":
        return int(torch.cuda.mem_get_info(device)[0])
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    for pages in ("SC_AVPHYS_PAGES", "SC_PHYS_PAGES"):
        try:
            return os.sysconf(pages) * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            continue
    return None


def _optimizer_states(protocol: Protocol) -> int:
    """Values the protocol's optimizer keeps per weight."""
    if protocol.optimizer == "rmsprop_tf":
        return 2
    return 1 if protocol.momentum > 0 else 0


def _check_fits(what: str, parameters: int, activation_bytes: int, protocol: Protocol,
                device: torch.device) -> None:
    """Refuse ``what`` when its estimate exceeds ``device``'s free memory (``activation_bytes``
    0: not known yet, the parameters' share alone is compared)."""
    parameter_bytes = parameters * BYTES_PER_VALUE * (2 + _optimizer_states(protocol))
    needed = parameter_bytes + activation_bytes
    available = available_bytes(device)
    if available is None or needed <= available:
        return
    if activation_bytes:
        estimate = (f"needs about {_gigabytes(needed)} ({_gigabytes(parameter_bytes)} for the weights, gradients "
                    f"and optimizer state of its {parameters:,} parameters, {_gigabytes(activation_bytes)} for the "
                    "activations of a batch)")
    else:
        estimate = (f"has {parameters:,} parameters: training it needs at least {_gigabytes(parameter_bytes)} for "
                    "their weights, gradients and optimizer state alone")
    raise InvalidSettingError(f"{what} {estimate}, but {device} has {_gigabytes(available)} free: use smaller "
                              "--scale knobs (or a smaller batch_size or image size)")


def _gigabytes(count: int) -> str:
    return f"{count / 1e9:,.1f} GB"


@torch.no_grad()
def _forward_profile(network: nn.Module, image_size: int) -> tuple[int, int]:
    """Values each image leaves for the backward pass (every leaf module's new output) and the
    scores per image, from one forward pass of one image in evaluation mode (no batch-norm
    statistic changes; the module's mode is restored)."""
    kept = 0

    def count(module: nn.Module, inputs, output) -> None:
        nonlocal kept
        if isinstance(output, torch.Tensor) and not any(output is given for given in inputs):
            kept += output.numel()

    leaves = [module for module in network.modules() if next(module.children(), None) is None]
    handles = [module.register_forward_hook(count) for module in leaves]
    was_training = network.training
    device = next((p.device for p in network.parameters()), torch.device("cpu"))
    try:
        network.eval()
        output = network(torch.zeros(1, 3, image_size, image_size, device=device))
    finally:
        network.train(was_training)
        for handle in handles:
            handle.remove()
    scores = output[0] if isinstance(output, tuple) else output
    return kept, int(scores.shape[-1])
