"""Structural clustering ("Evaluating supernets", Sec. 3, Fig. 2).

The similarity of two architectures is the number of positions where their encodings agree
(NB201: equal ops on the same edge); hierarchical clustering on the distance
``positions - similarity`` groups structurally similar cells, and per cluster the mean true
accuracy is set against the mean supernet score. All 15,625 NB201 cells need a 1 GB condensed
distance matrix and a few seconds; ``subsample`` clusters a seeded random subset instead.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import pdist


def cluster_architectures(encodings, threshold: float, method: str = "average", subsample: int | None = None,
                          rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(rows clustered, cluster label of each) cutting the dendrogram at distance ``threshold``."""
    encodings = np.asarray(encodings)
    rows = np.arange(len(encodings))
    if subsample is not None and subsample < len(rows):
        if rng is None:
            raise ValueError("a subsample needs an explicit rng")
        rows = np.sort(rng.choice(rows, size=subsample, replace=False))
    distances = pdist(encodings[rows].astype(np.float64), metric="hamming") * encodings.shape[1]
    labels = fcluster(linkage(distances, method=method), t=threshold, criterion="distance")
    return rows, labels


def cluster_summary(rows, labels, true_scores, supernet_scores) -> pd.DataFrame:
    """Per cluster: size, mean true accuracy, mean supernet score (sorted by true accuracy)."""
    frame = pd.DataFrame({"cluster": labels, "true": np.asarray(true_scores)[rows],
                          "supernet": np.asarray(supernet_scores)[rows]})
    summary = frame.groupby("cluster").agg(size=("true", "size"), mean_true=("true", "mean"),
                                           mean_supernet=("supernet", "mean"))
    return summary.sort_values("mean_true", ascending=False).reset_index()
