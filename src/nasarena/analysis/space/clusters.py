"""Structural clusters of NB101 cells (the supernet paper's clustering, ``analysis.supernet``).

A cell is encoded by its canonical representative: the 21 edge bits of the 7-vertex
upper-triangular matrix and its 5 interior ops (absent vertices padded), so the clustering
distance is the edit distance between canonical encodings (not minimised over isomorphic
relabellings). Clustering all cells needs a quadratic distance matrix, so a seeded
subsample of the cells with an accuracy is clustered.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...spaces.nb101.table import unique_cells
from ..supernet.clustering import cluster_architectures
from .encoded import INTERIOR, NUM_EDGE_BITS, edge_bit


def canonical_encodings(rows: np.ndarray) -> np.ndarray:
    """(len(rows), 26) int8: edge bits of the padded 7-vertex matrix, then interior op labels (-1: none)."""
    cells = unique_cells()
    vertices = cells.num_vertices[rows].astype(np.int64)
    masks = cells.bitmasks[rows].astype(np.int64)
    edges = np.zeros((len(rows), NUM_EDGE_BITS), dtype=np.int8)
    for n in range(2, 8):  # a smaller cell's output (vertex n-1) is placed at vertex 6
        selected = vertices == n
        for y in range(1, n):
            for x in range(y):
                target = 6 if y == n - 1 else y
                edges[selected, edge_bit(x, target)] = (masks[selected] >> edge_bit(x, y)) & 1
    return np.concatenate([edges, cells.labellings[rows, :INTERIOR].astype(np.int8)], axis=1)


@dataclass(frozen=True)
class Clusters:
    table: pd.DataFrame  # per cluster: size, mean/std accuracy, mean parameters; best first
    sample: int
    threshold: float
    seed: int

    def to_dict(self) -> dict:
        return {"sample": self.sample, "threshold": self.threshold, "seed": self.seed, "method": "average",
                "distance": "edit distance between canonical 7-vertex encodings (edges + ops)",
                "table": self.table.reset_index().to_dict(orient="records")}


def nb101_clusters(accuracy: np.ndarray, parameters: np.ndarray, sample: int = 2_000, threshold: float = 8.0,
                   seed: int = 0) -> Clusters:
    rng = np.random.default_rng(seed)
    have = np.flatnonzero(np.isfinite(accuracy))
    rows = np.sort(rng.choice(have, size=min(sample, len(have)), replace=False))
    clustered, labels = cluster_architectures(canonical_encodings(rows), threshold=threshold)
    rows = rows[clustered]
    table = (pd.DataFrame({"cluster": labels, "accuracy": accuracy[rows], "parameters": parameters[rows]})
             .groupby("cluster").agg(size=("accuracy", "size"), mean_accuracy=("accuracy", "mean"),
                                     std_accuracy=("accuracy", "std"), mean_parameters=("parameters", "mean"))
             .sort_values("mean_accuracy", ascending=False))
    return Clusters(table, len(rows), threshold, seed)
