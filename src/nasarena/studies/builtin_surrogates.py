"""How each built-in surrogate benchmark is fitted: its training data, a deterministic selection
from one of nasarena's embedded tabular benchmarks, and the held-out data it is validated on
besides its test split.

A study, not part of :mod:`nasarena.surrogates`: the surrogates sit below the benchmarks that
answer with them, and fitting a built-in one reads a tabular benchmark (the catalogue of names
and model settings stays in :mod:`nasarena.surrogates.builtin`). ``scripts/build_surrogates.py``
fits them from here; the tests rebuild the data and check the shipped artefacts against it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import unknown_name
from ..surrogates.builtin import BUILTINS, NB101_GIN_TRAINING_CELLS, NB101_TRAINING_CELLS, SEED
from ..surrogates.data import TrainingData
from ..surrogates.settings import HeldOutData
from ..surrogates.spaces import FiniteIndex, IndexedArchitectures, finite_index


def _table_data(index: FiniteIndex, rows, valid, fidelity, cost, source: str, description: str) -> TrainingData:
    """Training data of rows of a finite space's table (no text parsing; identities from the index)."""
    from ..surrogates.data import canonical_digest

    rows = np.asarray(rows, dtype=np.int64)
    identities = index.identities(rows)
    sources = np.full(len(rows), source, dtype=object).astype(str)
    test = np.full(len(rows), np.nan)
    valid, fidelity, cost = (np.asarray(valid, dtype=np.float64), np.asarray(fidelity, dtype=np.int64),
                             np.asarray(cost, dtype=np.float64))
    digest = canonical_digest(identities, valid, fidelity, cost, sources, test)
    return TrainingData(archs=IndexedArchitectures(index, rows), identities=identities, valid_accuracy=valid,
                        fidelity=fidelity, cost_seconds=cost, source=sources, test_accuracy=test, sha256=digest,
                        description=description + " (sha256 of its canonical CSV form)")


def nb101_lite_data(cells: int = NB101_TRAINING_CELLS) -> tuple[TrainingData, tuple[HeldOutData, ...]]:
    """50,000 cells drawn uniformly (seed 0) from nb101-lite; held out: the other 373,624 cells.

    With fewer ``cells``: the first ``cells`` of that draw (a uniform sample too, nested in it).

    The accuracy is nb101-lite's one real draw per cell (test accuracy of trial 0 at 108
    epochs, also its validation accuracy); training times are given only where they are real
    (the 30,001 slice cells), so the runtime model never learns nb101-lite's modelled times.
    """
    from ..benchmarks.nb101 import LITE_FILE
    from ..io.packaged import load_arrays

    arrays = load_arrays(LITE_FILE)
    index = finite_index("nb101")
    accuracy = arrays["test_accuracy_108"]
    cost = np.where(arrays["training_time_is_real"], arrays["training_time_108"], np.nan)
    if not 2 <= cells <= NB101_TRAINING_CELLS:
        raise ValueError(f"cells must be in 2..{NB101_TRAINING_CELLS:,}, got {cells}")
    drawn = np.random.default_rng(SEED).choice(index.size, NB101_TRAINING_CELLS, replace=False)
    chosen = np.sort(drawn[:cells])
    selection = (f"{len(chosen):,} cells drawn uniformly with seed {SEED}" if cells == NB101_TRAINING_CELLS else
                 f"the first {len(chosen):,} of {NB101_TRAINING_CELLS:,} cells drawn uniformly with seed {SEED}")
    rest = np.setdiff1d(np.arange(index.size), chosen)
    train = _table_data(index, chosen, accuracy[chosen], np.full(len(chosen), 108), cost[chosen], "rs",
                        f"nb101-lite: {selection}")
    held_out = _table_data(index, rest, accuracy[rest], np.full(len(rest), 108), cost[rest], "rs",
                           f"nb101-lite: the other {len(rest):,} cells")
    return train, (HeldOutData(f"nb101-lite cells not in the training data ({len(rest):,})", held_out),)


def nb101_lite_table() -> TrainingData:
    """All 423,624 cells of nb101-lite (real accuracy draw; real training times where known)."""
    from ..benchmarks.nb101 import LITE_FILE
    from ..io.packaged import load_arrays

    arrays = load_arrays(LITE_FILE)
    index = finite_index("nb101")
    cost = np.where(arrays["training_time_is_real"], arrays["training_time_108"], np.nan)
    return _table_data(index, np.arange(index.size), arrays["test_accuracy_108"], np.full(index.size, 108), cost,
                       "rs", "nb101-lite: all 423,624 cells")


def nb101_lite_gin_data() -> tuple[TrainingData, tuple[HeldOutData, ...]]:
    """The GIN's training data: ``nb101_lite_data`` with ``NB101_GIN_TRAINING_CELLS`` cells."""
    return nb101_lite_data(NB101_GIN_TRAINING_CELLS)


def nb101_slice_data() -> tuple[TrainingData, tuple[HeldOutData, ...]]:
    """The 30,001 cells of nb101-slice at 4, 12, 36 and 108 epochs (real validation accuracy;
    real training time at 108 epochs only); held out: nb101-lite's real 108-epoch accuracy of
    the 393,623 cells outside the slice."""
    from ..benchmarks.nb101 import FIDELITIES, LITE_FILE
    from ..io.packaged import load_arrays

    arrays = load_arrays(LITE_FILE)
    index = finite_index("nb101")
    positions = np.flatnonzero(arrays["training_time_is_real"])
    valid = arrays["slice_validation_accuracy"]
    rows = np.repeat(positions, len(FIDELITIES))
    fidelity = np.tile(FIDELITIES, len(positions))
    cost = np.where(fidelity == 108, arrays["training_time_108"][rows], np.nan)
    train = _table_data(index, rows, valid.ravel(), fidelity, cost, "slice",
                        f"nb101-slice: {len(positions):,} cells x epochs {', '.join(map(str, FIDELITIES))}")
    rest = np.flatnonzero(~arrays["training_time_is_real"])
    held_out = _table_data(index, rest, arrays["test_accuracy_108"][rest], np.full(len(rest), 108),
                           np.full(len(rest), np.nan), "rs", f"nb101-lite: the {len(rest):,} cells outside the slice")
    name = f"nb101-lite test accuracy of the {len(rest):,} cells outside the slice"
    return train, (HeldOutData(name, held_out),)


def nb201_cifar10_data() -> tuple[TrainingData, tuple[HeldOutData, ...]]:
    """All 15,625 NB201 cells, CIFAR-10 validation accuracy at 12 and 200 epochs (real), with
    nb201-cifar10's training cost (modelled from FLOPs: NB201 publishes no usable times)."""
    from ..benchmarks.nb201 import FIDELITIES, load

    table = load("cifar10")
    index = finite_index("nb201")
    cells = np.arange(index.size)
    rows = np.repeat(cells, len(FIDELITIES))
    fidelity = np.tile(FIDELITIES, index.size)
    valid = np.column_stack([table.mean_over_trials("valid_accuracy", f) for f in FIDELITIES]).ravel()
    cost = np.column_stack([table.mean_over_trials("cost_seconds", f) for f in FIDELITIES]).ravel()
    return _table_data(index, rows, valid, fidelity, cost, "all",
                       "nb201-cifar10: all 15,625 cells x epochs 12, 200 (training cost modelled from FLOPs)"), ()


@dataclass(frozen=True)
class Recipe:
    """The data of one built-in: its training data with the held-out sets, and the whole table
    that data comes from (for learning curves; by default the training data itself)."""

    data: Callable[[], tuple[TrainingData, tuple[HeldOutData, ...]]]
    table_data: Callable[[], TrainingData] | None = None


#: The recipe of every entry of :data:`~nasarena.surrogates.builtin.BUILTINS`, by name.
RECIPES: dict[str, Recipe] = {
    "nb101-xgb-v1.0": Recipe(nb101_lite_data, nb101_lite_table),
    "nb101-lgb-v1.0": Recipe(nb101_lite_data, nb101_lite_table),
    "nb101-gin-v1.0": Recipe(nb101_lite_gin_data, nb101_lite_table),
    "nb101-slice-xgb-v1.0": Recipe(nb101_slice_data),
    "nb201-cifar10-xgb-v1.0": Recipe(nb201_cifar10_data),
}


def _recipe(name: str) -> Recipe:
    if name not in BUILTINS or name not in RECIPES:
        raise unknown_name("built-in surrogate", name, BUILTINS)
    return RECIPES[name]


def training_data(name: str) -> tuple[TrainingData, tuple[HeldOutData, ...]]:
    """The training data of built-in surrogate ``name`` and the held-out data it is validated on."""
    return _recipe(name).data()


def full_table(name: str) -> TrainingData:
    """The whole table built-in surrogate ``name``'s training data comes from."""
    recipe = _recipe(name)
    return recipe.table_data() if recipe.table_data is not None else recipe.data()[0]
