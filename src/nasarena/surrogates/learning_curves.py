"""How a surrogate's fit grows with its data, and how it extrapolates to unseen sources.

- :func:`learning_curve` (NB301 Fig. 1 and 4): fit on nested random subsets of the training
  architectures, of growing size, and measure every fit on the same test architectures.
- :func:`leave_one_source_out` (NB301 Sec. 3.1.8, App. E.5): for each source (optimizer) of
  the data, fit on the other sources (0.9/0.1 train/validation, stratified) and measure on
  the architectures that source collected.

Both use the same recipe as :func:`~.fitting.fit_surrogate` (per-fidelity ensembles, early
stopping on a validation part) without the runtime model and the optimum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .data import TrainingData
from .encoding import ArchitectureEncoder
from .evaluation import predict_in_chunks
from .fitting import fit_ensembles, split_by_architecture
from .metrics import FitMetrics, fit_metrics
from .settings import FitSettings
from .spaces import default_encoding, space_by_name
from .splits import Split, stratified_split


@dataclass(frozen=True)
class CurvePoint:
    """Fit metrics at one fidelity of a surrogate trained on ``training_architectures`` architectures."""

    training_architectures: int
    fidelity: int
    metrics: FitMetrics


@dataclass(frozen=True)
class SourceHoldOut:
    """Fit metrics on the architectures of ``source`` of a surrogate fitted without them."""

    source: str
    fidelity: int
    training_architectures: int
    metrics: FitMetrics


def learning_curve(data: TrainingData, space_name: str, sizes: Sequence[int],
                   settings: FitSettings = FitSettings(members=1)) -> list[CurvePoint]:
    """Metrics on the test split of ``data`` after fitting on the first ``size`` training architectures
    (a seeded permutation, so each subset contains the smaller ones).

    Sizes beyond the training split are clipped to it (the full training split is the last point).
    """
    space = space_by_name(space_name)
    x = ArchitectureEncoder(space, settings.encoding or default_encoding(space_name)).encode_many(
        data.archs, data.identities)
    split = split_by_architecture(data, np.random.default_rng(settings.seed), settings.fractions)
    identities = data.identities.astype(str)
    order = np.random.default_rng(settings.seed).permutation(np.unique(identities[split.train]))
    rank = dict(zip(order.tolist(), range(len(order))))
    train_rank = np.array([rank[i] for i in identities[split.train]])
    points = []
    for size in sorted({min(int(s), len(order)) for s in sizes}):
        if size < 1:
            raise ValueError(f"learning-curve sizes must be >= 1, got {size}")
        rows = split.train[train_rank < size]
        ensembles = fit_ensembles(space, settings, x, data, rows, split.validation)
        points.extend(CurvePoint(size, f, m) for f, m in _test_metrics(ensembles, x, data, split.test))
    return points


def leave_one_source_out(data: TrainingData, space_name: str,
                         settings: FitSettings = FitSettings(members=1)) -> list[SourceHoldOut]:
    """For each source: fit on all other sources, measure on the held-out source's architectures."""
    if len(data.sources) < 2:
        raise ValueError(f"leave-one-source-out needs at least two sources; the data has {list(data.sources)}")
    space = space_by_name(space_name)
    x = ArchitectureEncoder(space, settings.encoding or default_encoding(space_name)).encode_many(
        data.archs, data.identities)
    results = []
    for source in data.sources:
        held_out = np.flatnonzero(data.source == source)
        others = np.flatnonzero(data.source != source)
        unseen = ~np.isin(data.identities[held_out].astype(str), data.identities[others].astype(str))
        held_out = held_out[unseen]  # an architecture also collected by another source is not unseen
        part = stratified_split(data.source[others], np.random.default_rng(settings.seed), (0.9, 0.1, 0.0))
        split = Split(others[part.train], others[part.validation], held_out)
        ensembles = fit_ensembles(space, settings, x, data, split.train, split.validation)
        trained = len(np.unique(data.identities[split.train].astype(str)))
        results.extend(SourceHoldOut(source, f, trained, m) for f, m in _test_metrics(ensembles, x, data, held_out))
    return results


def _test_metrics(ensembles: dict, x: np.ndarray, data: TrainingData, test) -> list[tuple[int, FitMetrics]]:
    metrics = []
    for fidelity, ensemble in ensembles.items():
        rows = test[data.fidelity[test] == fidelity]
        if len(rows) >= 2:
            mean, _ = predict_in_chunks(ensemble, x[rows])
            metrics.append((fidelity, fit_metrics(data.valid_accuracy[rows], mean)))
    return metrics
