"""The NB101 paper's space study for NAS-Bench-201 (6 edges x 5 ops, 15,625 cells).

The space is small enough for everything to be exact: the op replacement joins every cell
with the cell that differs on one edge (a base-5 digit of its op-index key), the edit
distance is the number of edges whose op differs, so the fitness-distance correlation and
the distance-to-best volumes use every cell. Isomorphism is the benchmark's own: cells that
compute the same function (``spaces.nb201.unique_cells``, 6,466 classes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...benchmarks.tabular import END, TEST, VALID
from ...spaces.nb201 import EDGES, OPS, unique_cells
from ...spaces.nb201.order import op_indices_by_index
from ..supernet.clustering import cluster_architectures
from .cost import pareto_front
from .encoded import edge_bit
from .locality import autocorrelation
from .structure import depth, width

NUM_EDGES = len(EDGES)
PLACES = len(OPS) ** np.arange(NUM_EDGES - 1, -1, -1)
NONE = OPS.index("none")


def _live_bitmasks(ops: np.ndarray) -> np.ndarray:
    """Edge bitmask (the NB101 convention on nodes 0..3) of the edges whose op is not ``none``."""
    masks = np.zeros(len(ops), dtype=np.int64)
    for e, (to, source) in enumerate(EDGES):
        masks |= np.where(ops[:, e] != NONE, np.int64(1) << edge_bit(source, to), 0)
    return masks


@dataclass(frozen=True)
class NB201Analysis:
    name: str
    metric: str  # the accuracy used: test at 200 epochs if the data has it, else validation
    accuracy: np.ndarray
    valid: np.ndarray
    test: np.ndarray
    low_fidelity: np.ndarray  # validation accuracy at 12 epochs
    parameters: np.ndarray
    real: str
    modelled: str
    best: int
    class_size_of_best: int
    replacements: pd.DataFrame  # from, to, pairs, mean change (pp), mean |change|, mean relative params change %
    by_depth: pd.DataFrame
    by_width: pd.DataFrame
    shifts: np.ndarray
    autocorrelation: np.ndarray
    fdc: pd.DataFrame  # distance to the best: cells, mean accuracy, FDC of the cells within the distance
    front: np.ndarray
    clusters: pd.DataFrame
    cluster_settings: dict
    seed: int
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        def records(frame):
            return frame.reset_index().to_dict(orient="records")

        return {
            "benchmark": self.name, "accuracy": self.metric,
            "data": {"real": self.real, "modelled": self.modelled},
            "best": {"index": self.best, "accuracy": float(self.accuracy[self.best]),
                     "equivalent_encodings": self.class_size_of_best},
            "quantiles": {q: float(np.nanquantile(self.accuracy, q / 100)) for q in (1, 10, 25, 50, 75, 90, 99)},
            "valid_test_correlation": _correlation(self.valid, self.test),
            "low_high_fidelity_correlation": _correlation(self.low_fidelity, self.valid),
            "pareto_front_parameters": self.front.tolist(),
            "operations": records(self.replacements),
            "by_depth": records(self.by_depth), "by_width": records(self.by_width),
            "random_walk_autocorrelation": dict(zip(map(str, self.shifts.tolist()), self.autocorrelation.tolist())),
            "distance_to_best": records(self.fdc),
            "clusters": {"settings": self.cluster_settings, "table": records(self.clusters)},
            "seed": self.seed, "seconds": self.seconds,
        }


def _correlation(a, b) -> float | None:
    both = np.isfinite(a) & np.isfinite(b)
    return float(np.corrcoef(a[both], b[both])[0, 1]) if both.sum() > 2 else None


def _replacements(ops: np.ndarray, keys: np.ndarray, index_of_key: np.ndarray, accuracy, parameters) -> pd.DataFrame:
    rows = []
    for a, source in enumerate(OPS):
        for b, target in enumerate(OPS):
            if a == b:
                continue
            cells, edges = np.nonzero(ops == a)
            other = index_of_key[keys[cells] + (b - a) * PLACES[edges]]
            change = 100 * (accuracy[other] - accuracy[cells])
            relative = 100 * (parameters[other] / parameters[cells] - 1)
            rows.append({"from": source, "to": target, "pairs": int(len(cells)),
                         "mean_accuracy_change_pp": float(np.nanmean(change)),
                         "mean_abs_accuracy_change_pp": float(np.nanmean(np.abs(change))),
                         "mean_parameter_change_pct": float(np.nanmean(relative))})
    return pd.DataFrame(rows).set_index(["from", "to"])


def _group(key, accuracy, parameters, name) -> pd.DataFrame:
    frame = pd.DataFrame({name: key, "accuracy": accuracy, "parameters": parameters})
    return frame.groupby(name).agg(cells=("accuracy", "size"), mean_accuracy=("accuracy", "mean"),
                                   mean_parameters=("parameters", "mean"))


def analyze_nb201(benchmark, seed: int = 0, walk_chains: int = 100, walk_steps: int = 2_000,
                  cluster_sample: int = 2_000, cluster_threshold: float = 3.0) -> NB201Analysis:
    """Every section for one NB201 benchmark (``nb201-cifar10`` etc.)."""
    started = time.perf_counter()
    values = benchmark.data.values[:, :, 0, END, :].astype(np.float64)
    valid, test, low = values[:, -1, VALID], values[:, -1, TEST], values[:, 0, VALID]
    metric, accuracy = ("test", test) if np.isfinite(test).any() else ("validation", valid)
    parameters = benchmark.data.trainable_parameters.astype(np.float64)
    ops = op_indices_by_index().astype(np.int64)
    keys = ops @ PLACES
    index_of_key = np.empty(len(keys), dtype=np.int64)
    index_of_key[keys] = np.arange(len(keys))
    best = int(np.nanargmax(accuracy))
    classes = unique_cells()
    masks = _live_bitmasks(ops)
    four = np.full(len(ops), 4)
    depths, widths = depth(four, masks), width(four, masks)
    rng = np.random.default_rng(seed)
    walk = np.empty((walk_chains, walk_steps), dtype=np.int64)
    current = rng.integers(0, len(keys), size=walk_chains)
    for t in range(walk_steps):  # every op-on-edge string is a cell: no change leaves the space
        walk[:, t] = current
        edges = rng.integers(0, NUM_EDGES, size=walk_chains)
        digit = ops[current, edges]
        new = (digit + rng.integers(1, len(OPS), size=walk_chains)) % len(OPS)
        current = index_of_key[keys[current] + (new - digit) * PLACES[edges]]
    shifts, correlation = autocorrelation(accuracy[walk], 32)
    distance = (ops != ops[best]).sum(axis=1)
    fdc = pd.DataFrame({"distance": np.arange(NUM_EDGES + 1)}).set_index("distance")
    fdc["cells"] = np.bincount(distance, minlength=NUM_EDGES + 1)
    fdc["mean_accuracy"] = [float(np.nanmean(accuracy[distance == d])) for d in fdc.index]
    fdc["fdc_within"] = [_correlation(accuracy[distance <= d], distance[distance <= d].astype(float))
                         if d >= 1 else None for d in fdc.index]
    have = np.isfinite(accuracy)
    front = np.flatnonzero(have)[pareto_front(parameters[have], accuracy[have])]
    rows, labels = cluster_architectures(ops, threshold=cluster_threshold, subsample=cluster_sample, rng=rng)
    clusters = (pd.DataFrame({"cluster": labels, "accuracy": accuracy[rows], "parameters": parameters[rows]})
                .groupby("cluster").agg(size=("accuracy", "size"), mean_accuracy=("accuracy", "mean"),
                                        std_accuracy=("accuracy", "std"), mean_parameters=("parameters", "mean"))
                .sort_values("mean_accuracy", ascending=False))
    description = benchmark.describe()
    return NB201Analysis(
        benchmark.name, metric, accuracy, valid, test, low, parameters, description.real, description.modelled, best,
        int((classes == classes[best]).sum()), _replacements(ops, keys, index_of_key, accuracy, parameters),
        _group(depths, accuracy, parameters, "depth"), _group(widths, accuracy, parameters, "width"), shifts,
        correlation, fdc, front, clusters,
        {"sample": cluster_sample, "threshold": cluster_threshold, "method": "average", "seed": seed,
         "distance": "number of edges whose ops differ"},
        seed, {"total": round(time.perf_counter() - started, 2)})
