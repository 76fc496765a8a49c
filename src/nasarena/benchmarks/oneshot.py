"""Tabular benchmarks over the NAS-Bench-1Shot1 spaces, answered by any NB101 benchmark.

Every architecture of a one-shot space is an NB101 cell (Zela et al. 2020, Sec. 3), so a query
is the NB101 benchmark's query of that cell: ``nb1shot1-3`` over the 3-trial ``nb101-noisy`` by
default (on the single-draw ``nb101-lite`` the search is scored on the draw that selected its
incumbent, and RE's median final regret in spaces 1 and 2 is 0: every optimizer looks perfect), or
over the official 3-trial data that ``nasarena nb101 import`` wrote (``path=DIR``). Regret is
measured against the best architecture *of the one-shot space* (``optimum``), not of all NB101:
that is the regret the paper plots. The optimum is taken over every cell some architecture of
the space maps to (the complete set of :mod:`nasarena.spaces.oneshot.enumeration`), so regret
is never negative. (The authors' sets without loose ends, the chain cells, miss the best cell of
spaces 2 and 3 in ``nb101-lite``: 0.9422 and 0.9438 against 0.9424 and 0.9466.)
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidSettingError
from ..spaces.nb101.space import NB101Space
from ..spaces.oneshot import OneShotSearchSpace, search_space
from ..spaces.oneshot.enumeration import counts_text, paper_count_note
from .protocol import Benchmark, Description
from .result import BatchResult, Result


class OneShotBenchmark(Benchmark):
    """A one-shot space over a tabular NB101 benchmark (``nb101``): queries go to its cells.

    Architectures are :class:`~nasarena.spaces.oneshot.OneShotArch` values of the space or their
    text; anything else, or an architecture of another space, raises InvalidArchitectureError.
    Queries, trial draws and budget counters are the NB101 benchmark's own.
    """

    def __init__(self, space: str | OneShotSearchSpace, nb101):
        nb101 = _nb101_benchmark(nb101)
        self._space = space if isinstance(space, OneShotSearchSpace) else search_space(space)
        self.nb101 = nb101
        self.name = self._space.name
        self.version = f"1.0+{nb101.name}-{nb101.version}"
        self.fidelities = nb101.fidelities
        self.metrics = nb101.metrics
        self._reachable: np.ndarray | None = None

    @property
    def space(self) -> OneShotSearchSpace:
        return self._space

    def row(self, arch) -> int:
        """The NB101 benchmark's row of ``arch`` (a OneShotArch of the space or its text)."""
        return int(self.nb101.rows([self._space.check(arch).to_cell()])[0])

    def query(self, arch, fidelity: int | None = None, rng: np.random.Generator | None = None, **options) -> Result:
        """The NB101 benchmark's query of the architecture's cell (``options``: e.g. ``trial``, ``stop_halfway``)."""
        return self.nb101.query(self.row(arch), fidelity, rng, **options)

    def query_batch(self, archs, fidelity: int | None = None, rng: np.random.Generator | None = None,
                    **options) -> BatchResult:
        """Vectorised query; the result's ``rows`` are the NB101 benchmark's rows."""
        rows = np.array([self.row(arch) for arch in archs], dtype=np.int64)
        return self.nb101.query_batch(rows, fidelity, rng, **options)

    def reachable_rows(self) -> np.ndarray:
        """The NB101 benchmark's rows of every cell of the space that it holds (sorted)."""
        if self._reachable is None:
            self._reachable = _benchmark_rows(self.nb101, self._space.rows(loose_ends=False, complete=True))
            self._reachable = np.unique(self._reachable[self._reachable >= 0])
        return self._reachable

    def optimum(self, metric: str = "test_accuracy") -> float:
        """Best mean over trials at the highest fidelity among the cells of the space (for
        ``test_accuracy``, the NB101 benchmark's regret metric)."""
        if metric == "test_accuracy":
            metric = self.nb101.regret_metric
        return float(np.nanmax(self.nb101.mean_over_trials(metric)[self.reachable_rows()]))

    def final_test_accuracy(self, arch) -> float:
        return self.nb101.final_test_accuracy(self.row(arch))

    def describe(self) -> Description:
        base = self.nb101.describe()
        space = self._space
        return Description(
            name=self.name,
            version=self.version,
            num_architectures=space.size,
            fidelities=base.fidelities,
            trials=base.trials,
            metrics=base.metrics,
            real=f"every value is {base.name}'s for the architecture's NB101 cell: {base.real}",
            modelled=base.modelled,
            provenance=(f"NAS-Bench-1Shot1 (Zela et al. 2020) search space {space.name[-1]}: "
                        f"{counts_text(space.name)}; {len(self.reachable_rows()):,} distinct NB101 cells in {base.name}; "
                        f"{base.name}: {base.provenance}"),
            count_note=paper_count_note(space.name),
        )

    def reset_budget_counters(self) -> None:
        self.nb101.reset_budget_counters()

    def get_budget_counters(self) -> tuple[float, int]:
        return self.nb101.get_budget_counters()

    def __repr__(self) -> str:
        return f"<OneShotBenchmark {self.name} over {self.nb101.name}>"


def _benchmark_rows(nb101, unique_rows: np.ndarray) -> np.ndarray:
    """NB101 unique-cell rows as the benchmark's rows; -1 where a partial table (a slice) lacks the cell."""
    positions = getattr(nb101, "positions", None)
    if positions is None:
        return unique_rows
    found = np.searchsorted(positions, unique_rows)
    inside = found < len(positions)
    hit = np.zeros(len(unique_rows), dtype=bool)
    hit[inside] = positions[found[inside]] == unique_rows[inside]
    return np.where(hit, found, -1)


def _nb101_benchmark(benchmark):
    """The tabular NB101 benchmark behind ``benchmark`` (a one-shot benchmark passes its own)."""
    nb101 = benchmark.nb101 if isinstance(benchmark, OneShotBenchmark) else benchmark
    # the one-shot spaces' rows are rows of NB101's unique-cell table: the benchmark's space must be that space
    if not isinstance(getattr(nb101, "space", None), NB101Space) or not hasattr(nb101, "mean_over_trials"):
        raise InvalidSettingError(f"the one-shot spaces need a tabular NB101 benchmark, got {nb101!r}")
    return nb101


def oneshot_accuracies(space, benchmark, loose_ends: bool) -> np.ndarray:
    """The final test accuracy of every architecture of ``space`` (6,240 / 16,632 / 363,648 with
    loose ends, 2,487 / 3,609 / 24,066 without: the paper's Table 1 but for space 2 with loose
    ends, where it prints 29,160, see ``counts_text``), in the order of
    ``space.enumerate(loose_ends)``: the distributions of NAS-Bench-1Shot1's Fig. 6.

    ``benchmark`` is a tabular NB101 benchmark (or a one-shot benchmark, whose NB101 one is
    used); values are means over trials at the highest fidelity of its regret metric, NaN for
    cells a partial table lacks.
    """
    space = space if isinstance(space, OneShotSearchSpace) else search_space(space)
    nb101 = _nb101_benchmark(benchmark)
    rows = _benchmark_rows(nb101, space.rows(loose_ends=loose_ends))
    accuracy = nb101.mean_over_trials(nb101.regret_metric)
    return np.where(rows >= 0, accuracy[np.maximum(rows, 0)], np.nan)

