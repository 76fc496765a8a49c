"""The pieces the gradient proxies share: which layers they score, and one loss on the minibatch.

Abdelfattah et al. (2021, Sec. 3) score the weights of the convolutional and linear layers
(``Conv2d``, ``Linear``): batch-norm scales and shifts and biases are not scored. The networks'
forward pass may return ``(logits, auxiliary logits)`` (DARTS in training mode with its
auxiliary head); the proxies read the main logits only.
"""

from __future__ import annotations

from typing import cast

import torch
from torch import nn

#: The layers whose weights the per-parameter proxies score and sum.
SCORED = (nn.Conv2d, nn.Linear)


def scored_layers(network: nn.Module) -> list[nn.Module]:
    """The convolutional and linear layers of ``network``, in module order."""
    return [module for module in network.modules() if isinstance(module, SCORED)]


def scored_weights(network: nn.Module) -> list[torch.Tensor]:
    """The weights of :func:`scored_layers`, in the same order."""
    return [cast(torch.Tensor, layer.weight) for layer in scored_layers(network)]


def logits(output) -> torch.Tensor:
    """The main logits of a forward pass (the first element of a tuple)."""
    return output[0] if isinstance(output, tuple) else output


def take(probe, count: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The first ``count`` images and labels of the probe's minibatch."""
    return probe.images[:count], probe.labels[:count]


def loss_on_batch(network: nn.Module, probe, count: int) -> torch.Tensor:
    """The mean cross-entropy of ``network`` on the first ``count`` images of the minibatch."""
    images, labels = take(probe, count)
    return nn.functional.cross_entropy(logits(network(images)), labels)
