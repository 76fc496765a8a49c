"""NASWOT (Mellor et al. 2021, "Neural architecture search without training", ICML, Sec. 3).

Each image ``i`` of the minibatch gets a binary code ``c_i``: for every unit entering a ReLU
(every ``nn.ReLU`` module of the network, every channel and position), 1 if its input is
positive. The kernel ``K_H[i, j] = N_A - d_H(c_i, c_j)`` counts the units on which two images
agree (``N_A`` units, ``d_H`` the Hamming distance), i.e. ``c_i . c_j + (1 - c_i) . (1 - c_j)``,
and the score is ``log |det K_H|``. No labels, no gradient; training mode (batch statistics, as
in the paper's code), **128** images (the paper's batch size).
"""

from __future__ import annotations

import torch
from torch import nn

from .layers import take
from .proxy import Probe, Proxy

BATCH = 128


def hamming_kernel(codes: torch.Tensor) -> torch.Tensor:
    """``K_H`` of binary codes (images x units, 0/1): agreements of every pair of images."""
    codes = codes.to(torch.float64)
    return codes @ codes.T + (1.0 - codes) @ (1.0 - codes).T


def log_determinant(kernel: torch.Tensor) -> float:
    """``log |det K|`` (minus infinity for a singular kernel)."""
    return float(torch.linalg.slogdet(kernel.cpu()).logabsdet)


def _naswot(probe: Probe) -> float:
    network = probe.build()
    images, _ = take(probe, BATCH)
    kernel = torch.zeros(len(images), len(images), dtype=torch.float64, device=images.device)

    def count(module, inputs, output) -> None:
        nonlocal kernel
        kernel = kernel + hamming_kernel((inputs[0].detach().reshape(len(images), -1) > 0))

    handles = [module.register_forward_hook(count) for module in network.modules() if isinstance(module, nn.ReLU)]
    try:
        with torch.no_grad():
            network(images)
    finally:
        for handle in handles:
            handle.remove()
    return log_determinant(kernel)


NASWOT = Proxy("naswot", "Mellor et al. 2021", "log|det K_H|, K_H[i,j] = units entering ReLUs on which images i "
               "and j agree in sign; training mode, 128 images", BATCH, _naswot)
