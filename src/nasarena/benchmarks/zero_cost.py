"""The zero-cost fidelity: a proxy's score at initialisation, as fidelity 0 (issue 32).

A zero-cost proxy (:mod:`nasarena.estimators`) scores an untrained network from one minibatch;
in the protocol it is a fidelity below the cheapest training budget: zero epochs. A benchmark
loaded with ``proxy=NAME`` (the NB201 benchmarks) answers ``query(arch, ZERO_COST)`` with a
:class:`~.result.Result` whose ``fidelity`` is 0, whose accuracies are NaN (nothing was trained),
whose ``proxy_score`` is the proxy's value and whose ``cost_seconds`` is the proxy's measured
seconds for that architecture. The runner (:func:`nasarena.runner.protocol.run`) charges that
cost to the simulated clock (the worker is busy for it) and tells the optimizer the score
(``Observation.proxy_score``); the answer is no evaluation: it writes no trajectory row, never
becomes the incumbent and does not count towards ``Budget.evaluations``.

Where the values come from: the embedded NB201 proxy table
(:func:`nasarena.estimators.embedded_table`), computed on the CIFAR-10 networks at full size
with CIFAR-10 data, one value per unique architecture (each cell gets its class's value under
the benchmark's de-duplication: equivalent cells compute the same function). The seconds were
measured on the CPU that computed the table, one thread: far more than the accelerator that the
NB201 training cost models would take, so the proxy is charged conservatively. The CIFAR-100
and ImageNet16-120 benchmarks serve the CIFAR-10 network's scores, flagged ``modelled``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidSettingError
from .protocol import ZERO_COST as ZERO_COST  # re-exported: the fidelity this benchmark answers
from .protocol import InvalidArchitectureError
from .result import Result


@dataclass(frozen=True)
class ZeroCostFidelity:
    """A proxy's value and measured seconds for every row of a benchmark (NaN: not computed)."""

    proxy: str
    scores: np.ndarray
    seconds: np.ndarray
    #: Result fields served from a stand-in (the CIFAR-10 network's score on another dataset).
    modelled: frozenset[str]
    source: str

    def answer(self, row: int, trainable_parameters: int) -> Result:
        """The fidelity-0 result of ``row`` (whose network has ``trainable_parameters``); a row
        the table has no value for is refused."""
        score = float(self.scores[row])
        if math.isnan(score):
            raise InvalidArchitectureError(f"the {self.proxy} table ({self.source}) has no value for row {row}")
        return Result.zero_cost(score, float(self.seconds[row]), trainable_parameters, self.modelled)

    def describe(self) -> str:
        """One sentence for a benchmark's description."""
        known = int(np.isfinite(self.scores).sum())
        stand_in = " (the CIFAR-10 network's, a stand-in)" if self.modelled else ""
        return (f"fidelity 0: the zero-cost proxy {self.proxy}{stand_in} of {known:,} cells from {self.source}, "
                f"charged its measured seconds (median {np.nanmedian(self.seconds):.3g} s)")


def table_digest() -> str:
    """The first 16 hex digits of the embedded proxy table's checksum (from the manifest): what a
    run's settings hash records of the values its zero-cost fidelity answered from."""
    from ..io.packaged import NB201_PROXIES_FILE, read_manifest

    return read_manifest()[NB201_PROXIES_FILE].sha256[:16]


def nb201_zero_cost(proxy: str, dataset: str) -> ZeroCostFidelity:
    """The fidelity-0 answers of ``proxy`` for every NB201 cell from the embedded table; a proxy
    the table does not hold is refused naming those it holds."""
    from ..estimators.embedded import embedded_table
    from ..spaces.nb201.space import NB201Space

    table = embedded_table("nb201")
    held = list(table.attrs["settings"]["proxies"])
    if proxy not in held:
        raise InvalidSettingError(f"proxy={proxy!r}: the embedded NB201 proxy table holds {', '.join(held)}")
    representatives = NB201Space().representatives()
    by_representative = np.full(len(representatives), np.nan)
    seconds = np.full(len(representatives), np.nan)
    rows = table["row"].to_numpy(dtype=np.int64)
    by_representative[rows] = table[proxy].to_numpy(dtype=np.float64)
    seconds[rows] = table[f"{proxy}_seconds"].to_numpy(dtype=np.float64)
    modelled = frozenset() if dataset == "cifar10" else frozenset({"proxy_score"})
    return ZeroCostFidelity(proxy, by_representative[representatives], seconds[representatives], modelled,
                            f"the embedded table of {len(table):,} unique NB201 architectures")
