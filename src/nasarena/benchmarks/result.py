"""What a benchmark query returns: one measured (or modelled) training run."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, slots=True)
class Result:
    """One evaluation of an architecture at a fidelity.

    ``modelled`` names the fields that come from a model rather than a real measurement
    (e.g. ``cost_seconds`` where the data holds no real training time), so nobody mistakes
    a modelled number for a measured one. Accuracies are fractions in [0, 1]; a value the
    data does not hold is NaN.
    """

    valid_accuracy: float
    test_accuracy: float
    cost_seconds: float
    trainable_parameters: int
    fidelity: int
    train_accuracy: float = float("nan")
    trial: int = 0
    halfway: bool = False
    modelled: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class BatchResult:
    """Vectorised results of :meth:`Benchmark.query_batch`: one array entry per query."""

    rows: np.ndarray
    valid_accuracy: np.ndarray
    test_accuracy: np.ndarray
    cost_seconds: np.ndarray
    train_accuracy: np.ndarray
    trials: np.ndarray
    fidelity: int
    halfway: bool
