"""Pruning-at-initialisation saliencies summed over a network: grad_norm, snip, grasp, fisher.

Abdelfattah et al. (2021, "Zero-cost proxies for lightweight NAS", Sec. 3) turn per-parameter
saliencies of the pruning literature into one score per network by **summing them over every
weight of every convolutional and linear layer** (biases and batch-norm parameters are not
scored; :mod:`.layers`). All four read one minibatch of **64** CIFAR-10 training images (the
batch of the paper's released NAS-Bench experiments), with the mean cross-entropy loss ``L``,
the network freshly initialised and in **training mode** (batch norm normalises with the
minibatch's statistics, as in the papers' code; none of the three networks has dropout, and
DARTS's drop path is off at initialisation):

- ``grad_norm``: ``sum over layers of ||dL/dW||_2`` (each layer's Frobenius norm, summed);
- ``snip`` (Lee et al. 2019): ``sum |W * dL/dW|``;
- ``grasp`` (Wang et al. 2020): ``sum -(W * H dL/dW)``, ``H`` the Hessian of ``L``, through one
  Hessian-vector product; the sign is Abdelfattah et al.'s (GraSP prunes the largest values, so
  the network score negates them and larger is better);
- ``fisher`` (Turner et al. 2020, as Abdelfattah et al.'s code computes it): for every output
  channel ``k`` of every conv and linear layer, ``0.5 * mean over images of (sum over positions
  of a * dL/da)^2`` with ``a`` the layer's output activation, *weighted by the channel's fan-in*
  (the number of weights of one output channel, ``prod(weight.shape[1:])``), summed over channels
  and layers. The weighting is the reference code's: zero-cost-nas turns the per-channel values
  into per-weight ones by filling each channel's ``weight.shape[1:]`` block with its value
  (``reshape_elements``) and the network's score sums every weight. The weighting changes
  rankings (issue 38 measured it on NB201), so the name ``fisher`` means the reference code's
  value.
"""

from __future__ import annotations

import torch

from .layers import loss_on_batch, scored_layers, scored_weights
from .proxy import Probe, Proxy

#: Images of the minibatch the four saliencies read (Abdelfattah et al.'s experiments).
BATCH = 64


def _weights_and_loss(probe: Probe, create_graph: bool = False):
    network = probe.build()
    weights = scored_weights(network)
    loss = loss_on_batch(network, probe, BATCH)
    gradients = torch.autograd.grad(loss, weights, create_graph=create_graph, allow_unused=True)
    return weights, [torch.zeros_like(w) if g is None else g for w, g in zip(weights, gradients)]


def _grad_norm(probe: Probe) -> float:
    _, gradients = _weights_and_loss(probe)
    return float(sum(gradient.norm() for gradient in gradients))


def _snip(probe: Probe) -> float:
    weights, gradients = _weights_and_loss(probe)
    return float(sum((weight.detach() * gradient).abs().sum() for weight, gradient in zip(weights, gradients)))


def _grasp(probe: Probe) -> float:
    weights, gradients = _weights_and_loss(probe, create_graph=True)
    # H g as the gradient of g . stop_gradient(g): one Hessian-vector product
    product = sum((gradient * gradient.detach()).sum() for gradient in gradients if gradient.requires_grad)
    if not torch.is_tensor(product) or not product.requires_grad:
        return 0.0
    hessian_gradients = torch.autograd.grad(product, weights, allow_unused=True)
    return float(-sum((weight.detach() * hg).sum() for weight, hg in zip(weights, hessian_gradients)
                      if hg is not None))


def _fisher(probe: Probe) -> float:
    network = probe.build()
    activations = []

    def keep(layer, inputs, output) -> None:
        output.retain_grad()
        activations.append((layer, output))

    handles = [layer.register_forward_hook(keep) for layer in scored_layers(network)]
    try:
        loss_on_batch(network, probe, BATCH).backward()
    finally:
        for handle in handles:
            handle.remove()
    total = 0.0
    for layer, activation in activations:
        if activation.grad is None:
            continue
        product = activation.detach() * activation.grad
        per_channel = product.sum(dim=tuple(range(2, product.dim()))) if product.dim() > 2 else product
        fan_in = layer.weight[0].numel()  # the weights of one output channel: prod(weight.shape[1:])
        total += float(0.5 * per_channel.pow(2).mean(dim=0).sum()) * fan_in
    return total


_PAPER = "Abdelfattah et al. 2021"
GRAD_NORM = Proxy("grad_norm", _PAPER, "sum over conv/linear layers of ||dL/dW||_2; training mode, 64 images",
                  BATCH, _grad_norm)
SNIP = Proxy("snip", f"{_PAPER} (Lee et al. 2019)", "sum |W * dL/dW| over conv/linear weights; training mode, "
             "64 images", BATCH, _snip)
GRASP = Proxy("grasp", f"{_PAPER} (Wang et al. 2020)", "sum -(W * H dL/dW) over conv/linear weights; training "
              "mode, 64 images", BATCH, _grasp)
FISHER = Proxy("fisher", f"{_PAPER} (Turner et al. 2020)", "sum over conv/linear output channels of 0.5 * mean "
               "over images of (sum over positions of a * dL/da)^2 times the channel's fan-in (the reference "
               "code's per-weight spread); training mode, 64 images", BATCH, _fisher)
