"""Fig. 5 of the NB101 paper: mean accuracy and training time per depth and per width."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...spaces.nb101.table import unique_cells
from .data import SpaceData, accuracy_metric
from .structure import depth, width


@dataclass(frozen=True)
class DepthWidth:
    metric: str
    by_depth: pd.DataFrame  # index depth: cells, mean accuracy, mean time (real), mean time (all)
    by_width: pd.DataFrame

    def to_dict(self) -> dict:
        return {"accuracy": self.metric,
                "by_depth": self.by_depth.reset_index().to_dict(orient="records"),
                "by_width": self.by_width.reset_index().to_dict(orient="records")}


def _table(key: np.ndarray, accuracy: np.ndarray, data: SpaceData, name: str) -> pd.DataFrame:
    have = np.isfinite(accuracy)
    frame = pd.DataFrame({name: key, "accuracy": np.where(have, accuracy, np.nan), "time": data.cost,
                          "real_time": np.where(data.cost_real, data.cost, np.nan)})[have]
    return frame.groupby(name).agg(cells=("accuracy", "size"), mean_accuracy=("accuracy", "mean"),
                                   mean_time_real=("real_time", "mean"), real_time_cells=("real_time", "count"),
                                   mean_time_all=("time", "mean"))


def depth_and_width(data: SpaceData) -> DepthWidth:
    cells = unique_cells()
    metric, accuracy = accuracy_metric(data)
    return DepthWidth(metric, _table(depth(cells.num_vertices, cells.bitmasks), accuracy, data, "depth"),
                      _table(width(cells.num_vertices, cells.bitmasks), accuracy, data, "width"))
