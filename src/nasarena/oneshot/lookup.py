"""Looking up a one-shot run's discretised architecture in an NB101 benchmark (torch-free).

The point of NAS-Bench-1Shot1: every architecture of its spaces is an NB101 cell, so the
architecture a one-shot optimizer would return at any epoch is looked up instead of trained.
Accuracies are the benchmark's mean over its trials at 108 epochs (by default ``nb101-noisy``,
three trials with their validation/test split, as the NB-1Shot1 benchmarks; ``nb101-lite``
holds one real draw, which is both its validation and test accuracy; the imported official
data has the real split and three trials). Test regret is against the best
architecture of the space in the same benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spaces.oneshot import OneShotArch, oneshot_space


@dataclass(frozen=True)
class LookedUp:
    """The NB101 facts of one architecture: its module hash, accuracies and test regret."""

    nb101_hash: str
    valid_accuracy: float
    test_accuracy: float
    test_regret: float


class Nb101Lookup:
    """Answers :meth:`look_up` for architectures of one one-shot space from one NB101 benchmark
    (the space's :class:`~nasarena.benchmarks.oneshot.OneShotBenchmark` over it)."""

    def __init__(self, space: str, benchmark: str | None = None, path: str | None = None):
        from ..benchmarks.registry import benchmark as load_benchmark

        options = {"path": path} if path else {}
        self.space = oneshot_space(space).name
        self.oneshot = load_benchmark(self.space, nb101=benchmark, **options)
        nb101 = self.oneshot.nb101
        self._rows = nb101.rows
        self._valid = nb101.mean_over_trials("valid_accuracy")
        self._test = nb101.mean_over_trials("test_accuracy")
        self.optimum = self.oneshot.optimum()

    def look_up(self, arch: OneShotArch) -> LookedUp:
        cell = arch.to_cell()
        row = int(self._rows([cell])[0])
        test = float(self._test[row])
        return LookedUp(cell.hash, float(self._valid[row]), test, self.optimum - test)
