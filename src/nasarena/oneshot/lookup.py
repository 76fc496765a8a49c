"""Looking up a one-shot run's discretised architecture in an NB101 benchmark (torch-free).

The point of NAS-Bench-1Shot1: every architecture of its spaces is an NB101 cell, so the
architecture a one-shot optimizer would return at any epoch is looked up instead of trained.
Accuracies are the benchmark's mean over its trials at 108 epochs (``nb101-lite`` holds one
real draw, which is both its validation and test accuracy; the imported official data has
the real validation/test split and three trials). Test regret is against the best
architecture of the space in the same benchmark.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import InvalidSettingError
from ..spaces.oneshot import OneShotArch, oneshot_space


@dataclass(frozen=True)
class LookedUp:
    """The NB101 facts of one architecture: its module hash, accuracies and test regret."""

    nb101_hash: str
    valid_accuracy: float
    test_accuracy: float
    test_regret: float


class Nb101Lookup:
    """Answers :meth:`look_up` for architectures of one one-shot space from one NB101 benchmark."""

    def __init__(self, space: str, benchmark: str = "nb101-lite", path: str | None = None):
        from ..benchmarks.nb101 import NB101Benchmark
        from ..benchmarks.registry import benchmark as load_benchmark

        self.space = oneshot_space(space).name
        options = {"path": path} if path else {}
        self.benchmark = load_benchmark(benchmark, **options)
        if not isinstance(self.benchmark, NB101Benchmark):
            raise InvalidSettingError(f"benchmark {benchmark!r} is not an NB101 benchmark; the one-shot spaces are "
                                      "looked up in nb101-lite, nb101-slice or an imported nb101")
        self._valid = self.benchmark.mean_over_trials("valid_accuracy")
        self._test = self.benchmark.mean_over_trials("test_accuracy")
        rows = self.benchmark.rows(space_cells(self.space))
        self.optimum = float(np.nanmax(self._test[rows]))

    def look_up(self, arch: OneShotArch) -> LookedUp:
        cell = arch.to_cell()
        row = int(self.benchmark.rows([cell])[0])
        test = float(self._test[row])
        return LookedUp(cell.hash, float(self._valid[row]), test, self.optimum - test)


@lru_cache(maxsize=None)
def space_cells(space: str) -> tuple:
    """Every distinct NB101 cell of a one-shot space (each parent assignment; ops varied only over
    the blocks that reach the output, as the others are pruned away)."""
    definition = oneshot_space(space)
    n = definition.num_blocks
    parent_choices = [list(itertools.combinations(range(j), k)) for j, k in enumerate(definition.block_parents, 1)]
    output_choices = list(itertools.combinations(range(n + 1), definition.output_parents))
    cells = {}
    fixed = definition.ops[0]
    for parents in itertools.product(*parent_choices):
        for output in output_choices:
            probe = OneShotArch(space, parents, (fixed,) * n, output)
            active = probe.active_blocks()
            for chosen in itertools.product(definition.ops, repeat=len(active)):
                ops = [fixed] * n
                for block, op in zip(active, chosen):
                    ops[block - 1] = op
                cell = OneShotArch(space, parents, tuple(ops), output).to_cell()
                cells[cell.hash] = cell
    return tuple(cells.values())
