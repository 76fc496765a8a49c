"""BOHB (Falkner et al. 2018): Hyperband whose new configurations come from density models.

The schedule is Hyperband's (see :mod:`.hyperband`); only the configurations that start a
bracket change. They live in the space's categorical encoding (``categorical_dims()`` and
``from_categorical``), so the model is space-agnostic. As in the paper:

* observations are kept per budget; the model uses the largest budget with at least
  ``N_min + 2`` of them, ``N_min = d + 1`` for ``d`` dimensions (before that, and with
  probability ``random_fraction``, a configuration is drawn uniformly);
* the best ``max(N_min, top_n_percent% of N)`` observations by validation accuracy make the
  good density ``l``, the worst ``max(N_min, N - N_good)`` the bad density ``g``;
* ``num_samples`` candidates perturb random good points, and the one maximising ``l / g`` is
  evaluated.

The densities are product kernels. Every dimension of a categorical encoding is unordered, so
each factor is the Aitchison-Aitken kernel that statsmodels' ``KDEMultivariate`` uses for
unordered variables, with its normal-reference bandwidth ``1.06 * std * n**(-1 / (4 + d))``
raised to ``min_bandwidth``. Candidates keep each value of their good point with probability
``1 - bandwidth`` and otherwise redraw it uniformly, as the reference implementation (hpbandster)
does. An architecture told invalid is the worst observation (accuracy 0), as in the original
NB101 benchmark code. The defaults are the NB101 paper's tuned settings.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .base import Observation, Setting
from .hyperband import Configuration, Hyperband


def aitchison_aitken(values, centres, bandwidth, num_categories) -> np.ndarray:
    """Kernel weight of ``values`` around ``centres`` (broadcast): ``1 - bandwidth`` for the centre's
    own category, ``bandwidth / (c - 1)`` for each of the ``c - 1`` others, so it sums to 1."""
    others = np.maximum(np.asarray(num_categories) - 1, 1)  # a 1-category dimension only ever matches
    return np.where(np.asarray(values) == np.asarray(centres), 1.0 - np.asarray(bandwidth), bandwidth / others)


class CategoricalKDE:
    """A product of Aitchison-Aitken kernels centred on the rows of ``points``.

    Bandwidths are capped at ``(c - 1) / c``, the uniform kernel: beyond it the kernel would
    favour the categories a point does *not* have.
    """

    def __init__(self, points: np.ndarray, num_categories: np.ndarray, min_bandwidth: float):
        self.points = np.asarray(points, dtype=np.int64)
        self.num_categories = np.asarray(num_categories, dtype=np.int64)
        n, d = self.points.shape
        reference = 1.06 * self.points.std(axis=0) * n ** (-1.0 / (4 + d))
        self.bandwidth = np.minimum(np.maximum(reference, min_bandwidth), 1.0 - 1.0 / self.num_categories)

    def log_density(self, values: np.ndarray) -> np.ndarray:
        """Log density of each row of ``values``."""
        kernels = aitchison_aitken(values[:, None, :], self.points[None], self.bandwidth, self.num_categories)
        return logsumexp(np.log(kernels).sum(axis=2), axis=1) - np.log(len(self.points))

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` random points, each value redrawn uniformly with probability its bandwidth."""
        centres = self.points[rng.integers(len(self.points), size=count)]
        redraw = rng.random(centres.shape) < self.bandwidth
        return np.where(redraw, rng.integers(0, self.num_categories, size=centres.shape), centres)


class BOHB(Hyperband):
    """Hyperband with configurations from the ``l / g`` density ratio once a budget has enough data.

    ``bandwidth_factor`` widens the sampling kernel of *ordered* dimensions in BOHB; the
    reference implementation leaves unordered ones unscaled, so for a categorical encoding it
    changes nothing. It is kept, and recorded, so that runs carry the NB101 paper's settings.
    """

    name = "bohb"
    summary = "BOHB: Hyperband with KDE proposals (NB101 paper settings); needs fidelities=benchmark.fidelities"

    SETTINGS = {
        **Hyperband.SETTINGS,
        "top_n_percent": Setting(float, "share of a budget's results (in %) that form the good density",
                                 low=0, high=100, low_open=True, high_open=True),
        "num_samples": Setting(int, "candidates drawn from the good density per proposal", low=1),
        "random_fraction": Setting(float, "share of proposals drawn uniformly at random", low=0, high=1),
        "bandwidth_factor": Setting(float, "widening of the sampling kernel of ordered dimensions", low=0,
                                    low_open=True),
        "min_bandwidth": Setting(float, "smallest kernel bandwidth", low=0, low_open=True),
    }

    def __init__(self, space, seed=0, *, fidelities=None, eta: int = 3, top_n_percent: float = 15,
                 num_samples: int = 4, random_fraction: float = 0.0, bandwidth_factor: float = 3.0,
                 min_bandwidth: float = 0.3):
        super().__init__(space, seed, fidelities=fidelities, eta=eta)
        self.top_n_percent = top_n_percent
        self.num_samples = num_samples
        self.random_fraction = random_fraction
        self.bandwidth_factor = bandwidth_factor
        self.min_bandwidth = min_bandwidth
        self.dims = np.array(space.categorical_dims(), dtype=np.int64)
        self.min_points = len(self.dims) + 1  # the paper's N_min
        self._data: dict[int, tuple[list[np.ndarray], list[float]]] = {}
        self._fitted: tuple[tuple[int, int], CategoricalKDE, CategoricalKDE] | None = None

    def model(self) -> tuple[int, CategoricalKDE, CategoricalKDE] | None:
        """(budget, good density, bad density) new configurations come from; None while still random."""
        usable = [b for b, (_, accuracies) in self._data.items() if len(accuracies) >= self.min_points + 2]
        if not usable:
            return None
        budget = max(usable)
        vectors, accuracies = self._data[budget]
        key = (budget, len(accuracies))
        if self._fitted is None or self._fitted[0] != key:
            points = np.array(vectors)[np.argsort(-np.array(accuracies), kind="stable")]
            n = len(points)
            n_good = max(self.min_points, int(self.top_n_percent * n // 100))
            n_bad = max(self.min_points, n - n_good)
            self._fitted = (key, CategoricalKDE(points[:n_good], self.dims, self.min_bandwidth),
                            CategoricalKDE(points[n - n_bad:], self.dims, self.min_bandwidth))
        return budget, self._fitted[1], self._fitted[2]

    def _new_configuration(self) -> Configuration:
        model = self.model()
        if model is None or self.rng.random() < self.random_fraction:
            vector = self.rng.integers(0, self.dims)
        else:
            _, good, bad = model
            candidates = good.sample(self.rng, self.num_samples)
            vector = candidates[np.argmax(good.log_density(candidates) - bad.log_density(candidates))]
        return Configuration(self.space.from_categorical(vector.tolist()), vector)

    def _observe(self, configuration: Configuration, budget: int, observation: Observation) -> None:
        vectors, accuracies = self._data.setdefault(budget, ([], []))
        vectors.append(configuration.vector)
        accuracies.append(observation.valid_accuracy if observation.valid else 0.0)
