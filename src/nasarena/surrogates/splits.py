"""Train/validation/test splits for surrogate fitting, stratified by the data's ``source``.

The NAS-Bench-301 paper splits 0.8/0.1/0.1 *stratified across the optimizers that collected
the data*, so each split holds the same mix of sources; its leave-one-optimizer-out analysis
trains on all sources but one and tests on the one left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Split:
    train: np.ndarray
    validation: np.ndarray
    test: np.ndarray


def stratified_split(sources, rng: np.random.Generator, fractions=(0.8, 0.1, 0.1)) -> Split:
    """Row indices of a split in which every source keeps its share in each part."""
    if not np.isclose(sum(fractions), 1.0) or min(fractions) < 0:
        raise ValueError(f"fractions must be non-negative and sum to 1, got {fractions}")
    sources = np.asarray(sources)
    parts: list[list[np.ndarray]] = [[], [], []]
    for source in np.unique(sources):
        rows = rng.permutation(np.flatnonzero(sources == source))
        first = int(round(fractions[0] * len(rows)))
        second = first + int(round(fractions[1] * len(rows)))
        for part, chunk in zip(parts, (rows[:first], rows[first:second], rows[second:])):
            part.append(chunk)
    train, validation, test = (np.sort(np.concatenate(p)) for p in parts)
    return Split(train, validation, test)


def leave_one_source_out(sources) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """For each source: (source, rows of all other sources, rows of that source)."""
    sources = np.asarray(sources)
    for source in np.unique(sources):
        held_out = sources == source
        yield str(source), np.flatnonzero(~held_out), np.flatnonzero(held_out)
