"""The per-cell arrays of a tabular NB101 benchmark that the space analysis reads.

The analysis works in the space's own row order (``unique_cells()``, sorted hashes), so a
partial table (``nb101-slice``) is spread into full-length arrays with NaN where it holds
nothing; joins between cells (op replacement, neighbours) are then plain indexing.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ...benchmarks.tabular import COST, END, TEST, TRAIN, VALID
from ...errors import InvalidSettingError
from ...io.packaged import LITE_FILE, load_arrays
from ...spaces.nb101.space import NB101Space
from ...spaces.nb101.table import NUM_UNIQUE_CELLS


@dataclass(frozen=True)
class SpaceData:
    """Full-length (423,624) arrays at the highest fidelity; NaN where the benchmark has no value.

    Accuracies are means over the benchmark's trials (fractions); ``cost_real`` marks training
    times that were measured; ``test_std[f]`` is the standard deviation of test accuracy over
    trials at fidelity ``fidelities[f]`` (NaN with fewer than two trials).
    """

    name: str
    present: np.ndarray  # bool: the benchmark holds this cell
    train: np.ndarray
    valid: np.ndarray
    test: np.ndarray
    cost: np.ndarray
    cost_real: np.ndarray
    parameters: np.ndarray
    fidelities: tuple[int, ...]
    trials: int
    test_std: np.ndarray  # (fidelities, cells)
    valid_by_fidelity: np.ndarray  # (fidelities, cells)
    real: str
    modelled: str
    same_draw: bool  # validation and test are one draw (nb101-lite)


def _spread(values: np.ndarray, positions: np.ndarray, fill=np.nan) -> np.ndarray:
    full = np.full(NUM_UNIQUE_CELLS, fill, dtype=np.float64 if fill is np.nan else np.asarray(values).dtype)
    full[positions] = values
    return full


def space_data(benchmark) -> SpaceData:
    """The arrays of a tabular NB101 benchmark (``nb101-lite``, ``-slice``, ``-noisy``, ``nb101``)."""
    if not isinstance(getattr(benchmark, "space", None), NB101Space) or not hasattr(benchmark, "data"):
        raise InvalidSettingError(f"the NB101 space analysis needs a tabular NB101 benchmark, got {benchmark.name!r}")
    data = benchmark.data
    positions = getattr(benchmark, "positions", None)
    positions = np.arange(NUM_UNIQUE_CELLS) if positions is None else np.asarray(positions)
    values = data.values[:, :, :, END, :]  # (cells, fidelities, trials, metrics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(values[:, -1], axis=1).astype(np.float64)  # (cells, metrics)
        std = np.nanstd(values[..., TEST], axis=2, ddof=1) if data.num_trials > 1 else np.full(values.shape[:2], np.nan)
        valid_f = np.nanmean(values[..., VALID], axis=2)
    cost_modelled = data.modelled.get("cost_seconds")
    if cost_modelled is not None:
        cost_modelled = np.asarray(cost_modelled)
        while cost_modelled.ndim > 1:
            cost_modelled = cost_modelled[..., -1]
        cost_real = ~cost_modelled.astype(bool)
    elif benchmark.name == "nb101-noisy":
        cost_real = load_arrays(LITE_FILE)["training_time_is_real"][positions]
    else:
        cost_real = np.ones(len(positions), dtype=bool)
    description = benchmark.describe()
    present = np.zeros(NUM_UNIQUE_CELLS, dtype=bool)
    present[positions] = True
    return SpaceData(
        name=benchmark.name,
        present=present,
        train=_spread(mean[:, TRAIN], positions),
        valid=_spread(mean[:, VALID], positions),
        test=_spread(mean[:, TEST], positions),
        cost=_spread(mean[:, COST], positions),
        cost_real=_spread(cost_real, positions, fill=False).astype(bool),
        parameters=_spread(data.trainable_parameters.astype(np.float64), positions),
        fidelities=tuple(data.fidelities),
        trials=data.num_trials,
        test_std=np.stack([_spread(std[:, f], positions) for f in range(len(data.fidelities))]),
        valid_by_fidelity=np.stack([_spread(valid_f[:, f], positions) for f in range(len(data.fidelities))]),
        real=description.real,
        modelled=description.modelled,
        same_draw=benchmark.name == "nb101-lite",
    )


def accuracy_metric(data: SpaceData) -> tuple[str, np.ndarray]:
    """The accuracy the paper's Figs. 3-5 use (validation), or test where validation is missing or
    is the very test draw (nb101-lite)."""
    if np.isfinite(data.valid).any() and not data.same_draw:
        return "validation", data.valid
    return "test", data.test

