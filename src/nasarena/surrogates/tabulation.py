"""Prediction tables: a finite space's noise-free surrogate predictions, computed once at build time.

The surrogate models are deterministic, so for a space that can be enumerated (NB101: 423,624
cells, NB201: 15,625) every query's mean, standard deviation and cost can be predicted for all
architectures when the artefact is built; a query is then a look-up by the architecture's row
(NB101 ``cell.row``, NB201 ``cell.index``) instead of a model call. That is what makes
model-heavy surrogates such as a GIN ensemble (~2 ms per member for one graph on a CPU) as
fast to query as a table.

Storage, measured on nb101-gin-v1.0's 398,624 held-out cells: the mean in float32 (rounding
below 6e-8; R2, MAE, Kendall, sparse Kendall and Spearman move by at most 2e-7). float16 would
halve it but its 2.4e-4 steps leave 1,076 distinct values for 379,301 distinct predictions and
move Kendall tau by 2.4e-3. The standard deviation and the seconds per epoch are float16
(relative rounding below 5e-4 for seconds and for standard deviations above 6e-5, 4e-5 at most
in absolute terms: invisible in a noise scale or a modelled training time, for half the
bytes). The runtime model predicts seconds proportional to epochs, so one column of seconds
per epoch serves every fidelity.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .evaluation import predict_in_chunks
from .spaces import FiniteIndex

MEAN_DTYPE = np.float32
SPREAD_DTYPE = np.float16
#: Rows encoded and predicted at a time (bounds memory: a GIN graph encoding is 84 floats a row).
CHUNK = 50_000


@dataclass(frozen=True)
class PredictionTable:
    """Noise-free predictions of every architecture of a finite space, indexed by row.

    ``mean[f]`` and ``std[f]`` are the ensemble's mean and standard deviation at ``f`` epochs;
    ``seconds_per_epoch`` is the runtime model's prediction divided by the epochs (None when the
    artefact has no runtime model: cost is then one second per epoch, as without a table).
    """

    space: str
    size: int
    mean: Mapping[int, np.ndarray]
    std: Mapping[int, np.ndarray]
    seconds_per_epoch: np.ndarray | None

    def check_rows(self, rows) -> np.ndarray:
        """``rows`` as int64, after checking that each is a row of the space."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= self.size):
            raise ValueError(f"{self.space} rows must be in 0..{self.size - 1}, "
                             f"got values in {rows.min()}..{rows.max()}")
        return rows

    def predict(self, rows, fidelity: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation (float64) at ``fidelity`` epochs of the architectures at ``rows``."""
        rows = self.check_rows(rows)
        return self.mean[fidelity][rows].astype(np.float64), self.std[fidelity][rows].astype(np.float64)

    def cost(self, rows, fidelity: int) -> np.ndarray:
        """Modelled training seconds (float64) of the architectures at ``rows`` for ``fidelity`` epochs."""
        rows = self.check_rows(rows)
        if self.seconds_per_epoch is None:
            return np.full(len(rows), float(fidelity))
        return fidelity * self.seconds_per_epoch[rows].astype(np.float64)

    def row(self, row: int, fidelity: int) -> tuple[float, float, float]:
        """(mean, std, cost) of one architecture: the single-query path, without array overhead."""
        spe = 1.0 if self.seconds_per_epoch is None else float(self.seconds_per_epoch[row])
        return float(self.mean[fidelity][row]), float(self.std[fidelity][row]), fidelity * spe


def tabulate(ensembles: Mapping[int, object], runtime_model, index: FiniteIndex, encoding: str) -> PredictionTable:
    """Predict every architecture of ``index``'s space with ``ensembles`` (fidelity -> Ensemble)
    and ``runtime_model`` (or None), a chunk of rows at a time."""
    fidelities = sorted(ensembles)
    mean = {f: np.empty(index.size, dtype=MEAN_DTYPE) for f in fidelities}
    std = {f: np.empty(index.size, dtype=SPREAD_DTYPE) for f in fidelities}
    seconds = None if runtime_model is None else np.empty(index.size, dtype=SPREAD_DTYPE)
    for start in range(0, index.size, CHUNK):
        rows = np.arange(start, min(start + CHUNK, index.size))
        x = index.encode_rows(rows, encoding)
        for fidelity in fidelities:
            mean[fidelity][rows], std[fidelity][rows] = predict_in_chunks(ensembles[fidelity], x)
        if seconds is not None:
            seconds[rows] = runtime_model.predict(x, 1)
    return PredictionTable(index.space_name, index.size, mean, std, seconds)
