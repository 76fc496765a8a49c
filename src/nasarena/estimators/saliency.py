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

grad_norm, snip and fisher read one backward pass (:data:`FIRST_ORDER`): scored together they
cost one pass, with the values each gives alone (``tests/test_estimators.py`` checks they are the
same to the bit). grasp needs a differentiable gradient and builds its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .layers import loss_on_batch, scored_layers, scored_weights
from .proxy import Probe, Proxy

#: Images of the minibatch the four saliencies read (Abdelfattah et al.'s experiments).
BATCH = 64


#: The pass grad_norm, snip and fisher share (:meth:`.proxy.Probe.once`): they read the same network,
#: batch and loss and change nothing, so one backward pass gives all three.
FIRST_ORDER = "saliency first-order pass"


@dataclass(frozen=True)
class FirstOrder:
    """One backward pass of the mean loss on the minibatch: the scored layers' weights, their
    gradients (zeros where a weight does not reach the loss) and the fisher score, which needs
    the layers' output activations and their gradients from the same pass."""

    weights: list[torch.Tensor]
    gradients: list[torch.Tensor]
    fisher: float


def _first_order_pass(probe: Probe) -> FirstOrder:
    network = probe.build()
    layers = scored_layers(network)
    outputs: list[tuple[torch.nn.Module, torch.Tensor]] = []
    handles = [layer.register_forward_hook(lambda layer, inputs, output: outputs.append((layer, output)))
               for layer in layers]
    try:
        loss = loss_on_batch(network, probe, BATCH)
    finally:
        for handle in handles:
            handle.remove()
    weights = scored_weights(network)
    # one backward pass for both: the weights' gradients and the activations'
    found = torch.autograd.grad(loss, [*weights, *(output for _, output in outputs)], allow_unused=True)
    gradients = [torch.zeros_like(w) if g is None else g for w, g in zip(weights, found)]
    fisher = 0.0
    for (layer, activation), gradient in zip(outputs, found[len(weights):]):
        if gradient is None:
            continue
        product = activation.detach() * gradient
        per_channel = product.sum(dim=tuple(range(2, product.dim()))) if product.dim() > 2 else product
        fan_in = layer.weight[0].numel()  # the weights of one output channel: prod(weight.shape[1:])
        fisher += float(0.5 * per_channel.pow(2).mean(dim=0).sum()) * fan_in
    return FirstOrder([w.detach() for w in weights], gradients, fisher)


def _first_order(probe: Probe) -> FirstOrder:
    return probe.once(FIRST_ORDER, lambda: _first_order_pass(probe))


def _grad_norm(probe: Probe) -> float:
    return float(sum(gradient.norm() for gradient in _first_order(probe).gradients))


def _snip(probe: Probe) -> float:
    passed = _first_order(probe)
    return float(sum((weight * gradient).abs().sum() for weight, gradient in zip(passed.weights, passed.gradients)))


def _grasp(probe: Probe) -> float:
    network = probe.build()
    weights = scored_weights(network)
    loss = loss_on_batch(network, probe, BATCH)
    gradients = torch.autograd.grad(loss, weights, create_graph=True, allow_unused=True)
    # H g as the gradient of g . stop_gradient(g): one Hessian-vector product
    product = sum((gradient * gradient.detach()).sum() for gradient in gradients
                  if gradient is not None and gradient.requires_grad)
    if not torch.is_tensor(product) or not product.requires_grad:
        return 0.0
    hessian_gradients = torch.autograd.grad(product, weights, allow_unused=True)
    return float(-sum((weight.detach() * hg).sum() for weight, hg in zip(weights, hessian_gradients)
                      if hg is not None))


def _fisher(probe: Probe) -> float:
    return _first_order(probe).fisher


_PAPER = "Abdelfattah et al. 2021"
GRAD_NORM = Proxy("grad_norm", _PAPER, "sum over conv/linear layers of ||dL/dW||_2; training mode, 64 images",
                  BATCH, _grad_norm, shared_pass=FIRST_ORDER)
SNIP = Proxy("snip", f"{_PAPER} (Lee et al. 2019)", "sum |W * dL/dW| over conv/linear weights; training mode, "
             "64 images", BATCH, _snip, shared_pass=FIRST_ORDER)
GRASP = Proxy("grasp", f"{_PAPER} (Wang et al. 2020)", "sum -(W * H dL/dW) over conv/linear weights; training "
              "mode, 64 images", BATCH, _grasp)
FISHER = Proxy("fisher", f"{_PAPER} (Turner et al. 2020)", "sum over conv/linear output channels of 0.5 * mean "
               "over images of (sum over positions of a * dL/da)^2 times the channel's fan-in (the reference "
               "code's per-weight spread); training mode, 64 images", BATCH, _fisher, shared_pass=FIRST_ORDER)
