"""From one-shot architecture weights to the discrete architecture (the paper's Sec. 3.2).

Each choice block takes its highest-weight op and its top-k parents, the output its top-k
parents, k from Table 1. Ties go to the lowest index (input first, then blocks in order;
conv3x3 before conv1x1 before maxpool), so the result is deterministic. Only the order of
the weights matters: softmax or not, the same architecture comes out.
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidArchitectureError
from ..nb101.cell import Cell
from .arch import OneShotArch
from .definitions import OneShotSpace, oneshot_space


def _weights(value, name: str, shape: tuple[int, ...]) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArchitectureError(f"{name} must be an array of numbers of shape {shape}, got {type(value).__name__}") from None
    if array.shape != shape:
        raise InvalidArchitectureError(f"{name} must have shape {shape}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise InvalidArchitectureError(f"{name} holds a NaN or infinite weight: {array.tolist()}")
    return array


def _top(weights: np.ndarray, k: int) -> tuple[int, ...]:
    """The indices of the k largest weights (ties: lowest index), ascending."""
    order = np.argsort(-weights, kind="stable")
    return tuple(sorted(int(i) for i in order[:k]))


def discretize_arch(space: str | OneShotSpace, alpha, beta, gamma) -> OneShotArch:
    """The architecture the weights select.

    ``alpha``: N vectors, block j (1-based) with j weights (input, then blocks 1..j-1);
    ``beta``: N x 3 op weights in NB101 order (conv3x3, conv1x1, maxpool);
    ``gamma``: N+1 weights (input, then blocks 1..N) of the edges into the output.
    Wrong shapes raise :class:`~nasarena.errors.InvalidArchitectureError` naming the tensor
    and the expected shape.
    """
    space = oneshot_space(space)
    n = space.num_blocks
    try:
        alpha = list(alpha)
    except TypeError:
        raise InvalidArchitectureError(f"alpha must be a list of {n} vectors (block j has j weights), got {type(alpha).__name__}") from None
    if len(alpha) != n:
        raise InvalidArchitectureError(f"alpha must be a list of {n} vectors for {space.name} (block j has j weights), got {len(alpha)}")
    alphas = [_weights(a, f"alpha[{j - 1}] (block {j})", (j,)) for j, a in enumerate(alpha, start=1)]
    betas = _weights(beta, "beta", (n, len(space.ops)))
    gammas = _weights(gamma, "gamma", (n + 1,))
    parents = tuple(_top(a, k) for a, k in zip(alphas, space.block_parents))
    ops = tuple(space.ops[int(np.argmax(row))] for row in betas)  # argmax: first maximum on ties
    return OneShotArch(space.name, parents, ops, _top(gammas, space.output_parents))


def discretize(space: str | OneShotSpace, alpha, beta, gamma) -> Cell:
    """The NB101 cell the weights select (see :func:`discretize_arch`)."""
    return discretize_arch(space, alpha, beta, gamma).to_cell()
