"""Jacobian covariance (Mellor et al. 2020, first version of "Neural architecture search without
training"), as Abdelfattah et al. (2021) compute it beside their proxies.

For the minibatch's images ``x_i`` the rows ``J_i = d(sum of the logits of image i) / d x_i``
(flattened) are correlated (Pearson, image by image) into ``C``, and with ``k = 1e-5`` the score
is ``-sum over eigenvalues l of C of (log(l + k) + 1 / (l + k))``: larger when the images'
local linear maps are less correlated. Training mode (batch statistics), 64 images (the batch
of Abdelfattah et al.'s experiments). Undefined (NaN) when some row is constant, e.g. when the
network's output does not depend on its input (an NB201 cell cut off by ``none`` edges).
"""

from __future__ import annotations

import numpy as np
import torch

from .layers import logits, take
from .proxy import Probe, Proxy

BATCH = 64
K = 1e-5


def covariance_score(jacobians: np.ndarray) -> float:
    """The score of the rows of ``jacobians`` (images x input values)."""
    rows = np.asarray(jacobians, dtype=np.float64)
    if np.any(rows.std(axis=1) == 0):
        return float("nan")
    eigenvalues = np.linalg.eigvalsh(np.corrcoef(rows))
    return float(-np.sum(np.log(eigenvalues + K) + 1.0 / (eigenvalues + K)))


def _jacob_cov(probe: Probe) -> float:
    network = probe.build()
    images, _ = take(probe, BATCH)
    images = images.clone().requires_grad_(True)
    output = logits(network(images))
    output.backward(torch.ones_like(output))
    assert images.grad is not None  # the backward pass above reached the inputs
    return covariance_score(images.grad.reshape(len(images), -1).cpu().numpy())


JACOB_COV = Proxy("jacob_cov", "Mellor et al. 2020 (v1), as in Abdelfattah et al. 2021",
                  "-sum(log(l + 1e-5) + 1/(l + 1e-5)) over the eigenvalues l of the correlation of the input "
                  "Jacobians of 64 images; training mode", BATCH, _jacob_cov)
