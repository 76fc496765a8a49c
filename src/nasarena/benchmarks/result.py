"""What a benchmark query returns: one measured (or modelled) training run."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: ``proxy_score`` of every result at a training fidelity: one NaN object, so that results built
#: by the constructor and by :meth:`Result.from_fields` compare equal.
NO_PROXY_SCORE = float("nan")


@dataclass(frozen=True)
class Result:
    """One evaluation of an architecture at a fidelity.

    ``modelled`` names the fields that come from a model rather than a real measurement
    (e.g. ``cost_seconds`` where the data holds no real training time), so nobody mistakes
    a modelled number for a measured one. Accuracies are fractions in [0, 1]; a value the
    data does not hold is NaN.

    ``proxy_score`` is the zero-cost proxy's value of a fidelity-0 result
    (:mod:`.zero_cost`: nothing trained, accuracies NaN, ``cost_seconds`` the proxy's measured
    seconds); NaN at every training fidelity.
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
    proxy_score: float = NO_PROXY_SCORE

    @classmethod
    def from_fields(cls, valid_accuracy, test_accuracy, cost_seconds, trainable_parameters, fidelity,
                    train_accuracy, trial, halfway, modelled) -> Result:
        """A Result from all fields in declaration order, for query hot paths.

        The generated frozen ``__init__`` sets each field through ``object.__setattr__``,
        which is half the cost of a tabular query; filling ``__dict__`` at once, by keyword
        (a third cheaper than zipping the names), gives the same (equal, hashable, still
        frozen) object in a third of the time (``tests/test_cheap_optimizers.py`` holds the
        two to the same fields).
        """
        result = object.__new__(cls)
        result.__dict__.update(valid_accuracy=valid_accuracy, test_accuracy=test_accuracy, cost_seconds=cost_seconds,
                               trainable_parameters=trainable_parameters, fidelity=fidelity,
                               train_accuracy=train_accuracy, trial=trial, halfway=halfway, modelled=modelled,
                               proxy_score=NO_PROXY_SCORE)
        return result

    @classmethod
    def zero_cost(cls, score: float, cost_seconds: float, trainable_parameters: int,
                  modelled: frozenset[str]) -> Result:
        """The fidelity-0 result of a zero-cost proxy (:mod:`.zero_cost`): ``score`` from an
        untrained network in ``cost_seconds``."""
        nan = float("nan")
        return cls(nan, nan, cost_seconds, trainable_parameters, 0, modelled=modelled, proxy_score=score)

    def to_dict(self) -> dict[str, object]:
        """Plain Python values by field name, ready for strict JSON: ``modelled`` as a sorted
        list, a value the benchmark does not hold (NaN, e.g. NB101's train accuracy) as None;
        ``proxy_score`` only in a fidelity-0 result, the one kind that has it."""
        values = {name: getattr(self, name) for name in _FIELDS if name != "proxy_score" or self.fidelity == 0}
        values["modelled"] = sorted(self.modelled)
        plain = {name: value.item() if isinstance(value, np.generic) else value for name, value in values.items()}
        return {name: None if isinstance(value, float) and math.isnan(value) else value for name, value in plain.items()}


_FIELDS = tuple(Result.__dataclass_fields__)


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
