"""The space study of a surrogate benchmark, by sampling: the surrogate's predictions are a
model, so every number here is modelled; a stated number of seeded samples stands in for the
whole space (the standard error of a quantile or mean shrinks as 1/sqrt(samples))."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .locality import autocorrelation


@dataclass(frozen=True)
class SampledAnalysis:
    name: str
    space: str
    description: str
    samples: int
    seed: int
    predicted: np.ndarray  # noise-free ensemble mean of each sampled architecture
    ensemble_std: np.ndarray
    best_text: str
    shifts: np.ndarray
    autocorrelation: np.ndarray
    walk_chains: int
    walk_steps: int
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        mean = float(np.mean(self.predicted))
        return {"benchmark": self.name, "space": self.space, "modelled": self.description,
                "samples": self.samples, "seed": self.seed,
                "predicted_accuracy": {"mean": mean,
                                       "standard_error": float(np.std(self.predicted, ddof=1) / np.sqrt(self.samples)),
                                       **{f"q{q}": float(np.quantile(self.predicted, q / 100))
                                          for q in (1, 10, 25, 50, 75, 90, 99)}},
                "median_ensemble_std": float(np.median(self.ensemble_std)),
                "best_sampled": {"architecture": self.best_text, "predicted": float(self.predicted.max())},
                "random_walk_autocorrelation": dict(zip(map(str, self.shifts.tolist()),
                                                        self.autocorrelation.tolist())),
                "walk": {"chains": self.walk_chains, "steps": self.walk_steps}, "seconds": self.seconds}


def _text(space, arch) -> str:
    to_text = getattr(space, "to_text", None)
    return to_text(arch) if to_text is not None else repr(arch)


def analyze_sampled(benchmark, samples: int = 2_000, seed: int = 0, walk_chains: int = 10,
                    walk_steps: int = 100) -> SampledAnalysis:
    """Seeded samples and random walks (a random neighbour per step) through a surrogate's space."""
    started = time.perf_counter()
    space = benchmark.space
    rng = np.random.default_rng(seed)
    archs = [space.sample(rng) for _ in range(samples)]
    mean, std = benchmark.predict(archs)
    current = [space.sample(rng) for _ in range(walk_chains)]
    values = np.empty((walk_chains, walk_steps))
    for t in range(walk_steps):
        values[:, t] = benchmark.predict(current)[0]
        current = [neighbours[rng.integers(len(neighbours))] for neighbours in map(space.neighbours, current)]
    shifts, correlation = autocorrelation(values, min(32, walk_steps - 2))
    best = int(np.argmax(mean))
    return SampledAnalysis(benchmark.name, space.name, benchmark.describe().modelled, samples, seed,
                           np.asarray(mean, dtype=np.float64), np.asarray(std, dtype=np.float64),
                           _text(space, archs[best]), shifts, correlation, walk_chains, walk_steps,
                           {"total": round(time.perf_counter() - started, 2)})
