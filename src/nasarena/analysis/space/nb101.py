"""The whole NB101 space study of one benchmark: every section's numbers, ready for JSON and the report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ...io.packaged import TRIPLES_FILE, load_arrays
from .clusters import Clusters, nb101_clusters
from .cost import CostSize, cost_and_size
from .data import SpaceData, accuracy_metric, space_data
from .depth_width import DepthWidth, depth_and_width
from .distributions import Distributions, distributions
from .encoded import NUM_LABELLINGS, NUM_POINTS, encoded_space
from .locality import autocorrelation, distance_to_points, fitness_distance, random_walk
from .oneshot import OneShotSpaces, oneshot_spaces
from .operations import Replacement, replacements

PAPER_TRIALS = 3
FAILED_BELOW = 0.2  # diverged runs (chance accuracy) are left out of the trial spread
#: NB101 paper Sec. 3.4.
PAPER_LOCALITY = {"best_isomorphisms": 4, "top_graphs": 12, "top_points": 11_570, "one_in": 50_000,
                  "within_6_pct": 35.4}


@dataclass(frozen=True)
class Settings:
    """What the sampled parts of the locality study use (all seeded)."""

    seed: int = 0
    walk_chains: int = 100
    walk_steps: int = 2_000
    max_shift: int = 64
    fdc_samples: int = 20_000
    fdc_max_steps: int = 30


@dataclass(frozen=True)
class Locality:
    accuracy: str
    shifts: np.ndarray
    autocorrelation: np.ndarray
    fdc_distance: np.ndarray
    fdc: np.ndarray
    fdc_mean_accuracy: dict[int, float]
    best_row: int
    best_labelled: int
    best_points: int
    standard_error: float
    standard_error_source: str
    top_rows: np.ndarray
    top_points: int
    valid_points: int
    points_at_distance: np.ndarray  # all 510M points
    valid_points_at_distance: np.ndarray
    paper_count_rows: np.ndarray  # our best cells, as many as the paper's top graphs
    paper_count_points_at_distance: np.ndarray  # all 510M points, distance to the nearest of those
    settings: Settings

    def to_dict(self) -> dict:
        def within(counts):
            return {str(d): float(100.0 * counts[: d + 1].sum() / counts.sum()) for d in range(13)}

        return {
            "accuracy": self.accuracy,
            "random_walk_autocorrelation": dict(zip(map(str, self.shifts.tolist()), self.autocorrelation.tolist())),
            "fitness_distance_correlation": dict(zip(map(str, self.fdc_distance.tolist()), self.fdc.tolist())),
            "fdc_mean_accuracy_by_distance": {str(k): v for k, v in self.fdc_mean_accuracy.items()},
            "best": {"row": self.best_row, "labelled_isomorphs": self.best_labelled,
                     "encoded_points": self.best_points},
            "top_graphs": {"threshold": f"within 2 standard errors ({self.standard_error:.5f}) of the best",
                           "standard_error_source": self.standard_error_source,
                           "rows": self.top_rows.tolist(), "count": int(len(self.top_rows)),
                           "encoded_points": self.top_points,
                           "one_in": float(NUM_POINTS / self.top_points) if self.top_points else None,
                           "one_in_valid": float(self.valid_points / self.top_points) if self.top_points else None},
            "encoded_space": {"points": NUM_POINTS, "valid_points": self.valid_points},
            "percent_within_distance_all_points": within(self.points_at_distance),
            "percent_within_distance_valid_points": within(self.valid_points_at_distance),
            "same_count_as_paper": {
                "rows": self.paper_count_rows.tolist(),
                "percent_within_distance_all_points": within(self.paper_count_points_at_distance)},
            "paper": PAPER_LOCALITY,
            "settings": vars(self.settings),
        }


def per_trial_std() -> float:
    """Pooled between-trial standard deviation of 108-epoch test accuracy of the 52 real triples."""
    triples = load_arrays(TRIPLES_FILE)["test_accuracy"].astype(np.float64)
    triples = triples[(triples >= FAILED_BELOW).all(axis=1)]
    return float(np.sqrt(np.mean(np.var(triples, axis=1, ddof=1))))


def locality(data: SpaceData, settings: Settings) -> Locality:
    space = encoded_space()
    accuracy = data.test
    rng = np.random.default_rng(settings.seed)
    walk = random_walk(space, settings.walk_chains, settings.walk_steps, rng)
    shifts, correlation = autocorrelation(accuracy[walk], settings.max_shift)
    best = int(np.nanargmax(accuracy))
    best_points = space.points_of_rows([best])
    sampled = fitness_distance(space, accuracy, best_points, settings.fdc_samples, settings.fdc_max_steps, rng)
    distances, fdc = sampled.fdc(settings.fdc_max_steps)
    mean_by_distance = {int(d): float(sampled.accuracy[sampled.distance == d].mean())
                        for d in np.unique(sampled.distance)}
    if data.trials > 1 and np.isfinite(data.test_std[-1][best]):
        error = float(data.test_std[-1][best] / np.sqrt(data.trials))
        source = f"the best cell's own {data.trials} trials (std / sqrt(trials))"
    else:
        error = per_trial_std() / np.sqrt(PAPER_TRIALS)
        source = (f"one trial per cell: the paper's standard error of a {PAPER_TRIALS}-trial mean, from the pooled "
                  "between-trial standard deviation of the 52 real NB101 triples; applied to single draws, which "
                  "scatter more than means, so more graphs pass than in the paper")
    top = np.flatnonzero(np.nan_to_num(accuracy, nan=-1.0) >= accuracy[best] - 2 * error)
    points = space.points_of_rows(top)
    everywhere, valid = distance_to_points(space, points)
    known = np.flatnonzero(np.isfinite(accuracy))
    same_count = known[np.argsort(-accuracy[known], kind="stable")[:PAPER_LOCALITY["top_graphs"]]]
    same_count_everywhere, _ = distance_to_points(space, space.points_of_rows(same_count))
    return Locality("test (mean over trials)" if data.trials > 1 else "test", shifts, correlation, distances, fdc,
                    mean_by_distance, best, int(space.labelled_per_row[best]), int(space.points_per_row[best]),
                    error, source, top, int(space.points_per_row[top].sum()), int(space.valid.sum()
                    * NUM_LABELLINGS), everywhere, valid, same_count, same_count_everywhere, settings)


@dataclass(frozen=True)
class SpaceAnalysis:
    """Every section of the NB101 study of one benchmark."""

    data: SpaceData
    distributions: Distributions
    cost: CostSize
    operations_metric: str
    operations: list[Replacement]
    depth_width: DepthWidth
    locality: Locality | None
    clusters: Clusters
    oneshot: OneShotSpaces | None
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "benchmark": self.data.name,
            "data": {"real": self.data.real, "modelled": self.data.modelled, "trials": self.data.trials,
                     "fidelities": list(self.data.fidelities), "cells": int(self.data.present.sum()),
                     "validation_is_test_draw": self.data.same_draw},
            "distributions": self.distributions.to_dict(),
            "cost_and_size": self.cost.to_dict(),
            "operations": {"accuracy": self.operations_metric,
                           "replacements": [r.summary() for r in self.operations]},
            "depth_and_width": self.depth_width.to_dict(),
            "locality": None if self.locality is None else self.locality.to_dict(),
            "clusters": self.clusters.to_dict(),
            "nb1shot1_spaces": None if self.oneshot is None else self.oneshot.to_dict(),
            "seconds": self.seconds,
        }


def analyze_nb101(benchmark, settings: Settings = Settings(), with_locality: bool = True) -> SpaceAnalysis:
    """All sections for a tabular NB101 benchmark; ``seconds`` records how long each took."""
    seconds = {}
    start = time.perf_counter()

    def lap(name):
        nonlocal start
        now = time.perf_counter()
        seconds[name] = round(now - start, 2)
        start = now

    data = space_data(benchmark)
    lap("load")
    dist = distributions(data)
    lap("distributions")
    cost = cost_and_size(data)
    lap("cost_and_size")
    metric, ops = replacements(data)
    lap("operations")
    dw = depth_and_width(data)
    lap("depth_and_width")
    local = locality(data, settings) if with_locality else None
    lap("locality")
    clusters = nb101_clusters(accuracy_metric(data)[1], data.parameters, seed=settings.seed)
    lap("clusters")
    oneshot = oneshot_spaces(benchmark)
    lap("nb1shot1_spaces")
    return SpaceAnalysis(data, dist, cost, metric, ops, dw, local, clusters, oneshot, seconds)
