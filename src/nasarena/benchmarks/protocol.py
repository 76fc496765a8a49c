"""The Benchmark protocol: an architecture goes in, a result comes out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidArchitectureError  # noqa: F401  (re-exported: the benchmarks' error for bad architectures)
from .result import BatchResult, Result

#: The fidelity of a zero-cost proxy: zero epochs of training. Part of the protocol, not of the
#: zero-cost benchmark alone: optimizers (the zero-cost warm-up) and the runner ask for it and
#: recognise its answers without knowing which benchmark gives them.
ZERO_COST = 0


@dataclass(frozen=True)
class Description:
    """Provenance and honesty: where the numbers come from and which ones are modelled."""

    name: str
    version: str
    num_architectures: int
    fidelities: tuple[int, ...]
    trials: int
    metrics: tuple[str, ...]
    real: str
    modelled: str
    provenance: str
    #: beside the count where a paper prints another one: the paper's and why they differ
    count_note: str = ""

    def to_text(self) -> str:
        note = f" ({self.count_note})" if self.count_note else ""
        return "\n".join(
            [
                f"{self.name} (version {self.version})",
                f"  architectures: {self.num_architectures:,}{note}; fidelities (epochs): "
                f"{', '.join(map(str, self.fidelities))}; trials per architecture: {self.trials}",
                f"  metrics: {', '.join(self.metrics)}",
                f"  real: {self.real}",
                f"  modelled: {self.modelled}",
                f"  provenance: {self.provenance}",
            ]
        )


class Benchmark(ABC):
    """A queryable benchmark over a search space.

    ``query`` never exposes more than one training run; optimizers must use
    ``valid_accuracy`` and ``cost_seconds`` only and leave ``test_accuracy`` to the analysis.
    """

    name: str
    version: str
    fidelities: tuple[int, ...]
    metrics: tuple[str, ...]

    @property
    @abstractmethod
    def space(self):
        """The search space the benchmark's architectures come from."""

    @abstractmethod
    def query(self, arch, fidelity: int | None = None, rng: np.random.Generator | None = None) -> Result:
        """Result of training ``arch`` for ``fidelity`` epochs (default: the highest)."""

    @abstractmethod
    def query_batch(self, archs, fidelity: int | None = None, rng: np.random.Generator | None = None) -> BatchResult:
        """Vectorised ``query`` over many architectures (or their row indices)."""

    @abstractmethod
    def optimum(self, metric: str = "test_accuracy") -> float:
        """Best value of ``metric`` in the space (mean over trials at the highest fidelity)."""

    @abstractmethod
    def final_test_accuracy(self, arch) -> float:
        """Mean test accuracy over trials at the highest fidelity: what regret is measured on."""

    @abstractmethod
    def describe(self) -> Description:
        """Provenance, sizes, and which values are real or modelled."""
