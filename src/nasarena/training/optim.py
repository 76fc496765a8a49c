"""RMSProp exactly as TensorFlow 1 implements it, the optimizer NAS-Bench-101 trained with.

``torch.optim.RMSprop`` differs from ``tf.train.RMSPropOptimizer`` in two ways that matter with
NB101's unusually large epsilon of 1.0:

- TensorFlow adds epsilon *inside* the square root (``lr * g / sqrt(ms + eps)``, the
  ``ApplyRMSProp`` kernel), torch outside (``lr * g / (sqrt(v) + eps)``);
- TensorFlow 1 initialises the mean-square accumulator ``ms`` to ones (``_create_slots`` of the
  non-centred optimizer), torch to zeros.

The update per parameter (TF's kernel, with momentum)::

    ms  <- decay * ms + (1 - decay) * g**2
    mom <- momentum * mom + lr * g / sqrt(ms + epsilon)
    w   <- w - mom

NB101 adds its L2 weight decay to the loss (``wd * sum(w**2) / 2``); its gradient ``wd * w`` is
added to ``g`` here before the update, which gives the same step.
"""

from __future__ import annotations

import torch


class TFRMSprop(torch.optim.Optimizer):
    """``tf.train.RMSPropOptimizer`` (non-centred) with coupled L2 weight decay."""

    def __init__(self, params, lr: float, decay: float = 0.9, momentum: float = 0.9, epsilon: float = 1.0,
                 weight_decay: float = 0.0):
        super().__init__(params, dict(lr=lr, decay=decay, momentum=momentum, epsilon=epsilon,
                                      weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for parameter in group["params"]:
                if parameter.grad is None:
                    continue
                gradient = parameter.grad
                if group["weight_decay"]:
                    gradient = gradient.add(parameter, alpha=group["weight_decay"])
                state = self.state[parameter]
                if not state:
                    state["ms"] = torch.ones_like(parameter)
                    state["mom"] = torch.zeros_like(parameter)
                mean_square, momentum = state["ms"], state["mom"]
                mean_square.mul_(group["decay"]).addcmul_(gradient, gradient, value=1.0 - group["decay"])
                momentum.mul_(group["momentum"]).addcdiv_(gradient, mean_square.add(group["epsilon"]).sqrt_(),
                                                          value=group["lr"])
                parameter.sub_(momentum)
        return loss
