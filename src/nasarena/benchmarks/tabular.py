"""Tabular benchmarks: one dense float32 array, architectures x fidelities x trials x stages x metrics.

Everything a tabular NAS benchmark answers is a look-up in that array, so queries cost an
index computation, and batches are a single fancy-indexing operation. The query semantics are
those of the original NAS-Bench-101 API: each query samples one of the trials, ``stop_halfway``
returns the halfway evaluation of that same run, and budget counters add up the training time
and epochs spent.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidArchitectureError, InvalidSettingError
from .protocol import Benchmark, Description
from .result import BatchResult, Result
from .zero_cost import ZERO_COST, ZeroCostFidelity

#: The metric axis of every tabular array, in this order.
METRICS = ("train_accuracy", "valid_accuracy", "test_accuracy", "cost_seconds")
TRAIN, VALID, TEST, COST = range(4)
END, HALFWAY = 0, 1


@dataclass(frozen=True)
class TabularData:
    """The arrays of a tabular benchmark.

    ``values[a, f, t, s, m]``: architecture row ``a``, fidelity index ``f`` (epochs in
    ``fidelities``), trial ``t``, stage ``s`` (0: end of training, 1: halfway) and metric
    ``m`` (see ``METRICS``); NaN where the data holds nothing. ``modelled`` maps a
    :class:`Result` field name to a mask, (rows,) or (rows, fidelities), of the values that are
    modelled rather than measured.
    """

    values: np.ndarray
    fidelities: tuple[int, ...]
    trainable_parameters: np.ndarray
    modelled: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n, f, _, _, m = self.values.shape
        if f != len(self.fidelities) or m != len(METRICS):
            raise ValueError(f"values shape {self.values.shape} does not match fidelities/metrics")
        if len(self.trainable_parameters) != n:
            raise ValueError("trainable_parameters must have one entry per architecture")

    @property
    def num_trials(self) -> int:
        return self.values.shape[2]

    @property
    def has_halfway(self) -> bool:
        return self.values.shape[3] > 1


class TabularBenchmark(Benchmark):
    """A benchmark answered from :class:`TabularData`.

    ``row_of`` maps an architecture of the space (or a row index) to its row. Trials are drawn
    from ``rng`` when a query passes one, else from the benchmark's own stream: a numpy
    ``Generator(seed)``, or with ``compatible_random_stream=True`` a ``random.Random(seed)``
    used with ``randint(0, trials - 1)`` per query, the original NB101 API's stream.
    """

    #: The zero-cost proxy answering fidelity 0 (:mod:`.zero_cost`), where the benchmark was loaded
    #: with one (``proxy=NAME``); None: fidelity 0 is refused like any fidelity the data lacks.
    zero_cost: ZeroCostFidelity | None = None
    #: Whether ``proxy=NAME`` can give this benchmark a zero-cost fidelity.
    offers_zero_cost = False

    def __init__(
        self,
        name: str,
        version: str,
        data: TabularData,
        space,
        row_of: Callable[[object], int],
        description: Description,
        seed: int = 0,
        compatible_random_stream: bool = False,
        regret_metric: str = "test_accuracy",
    ):
        self.name = name
        self.version = version
        self.data = data
        self._space = space
        self._row_of = row_of
        self._description = description
        self.fidelities = data.fidelities
        self.metrics = description.metrics  # not scanned from the data: a store is memory-mapped
        self._fidelity_index = {epochs: i for i, epochs in enumerate(data.fidelities)}
        self._highest = data.fidelities[-1]
        self._values = data.values
        self._num_trials = data.num_trials
        self._final_test: np.ndarray | None = None
        self._optima: dict[str, float] = {}
        self.regret_metric = regret_metric
        self._compatible = random.Random(seed) if compatible_random_stream else None
        self._own_rng = np.random.default_rng(seed)
        self._modelled_keys, self._modelled_sets = self._modelled_field_sets()
        self.reset_budget_counters()

    # --- protocol ------------------------------------------------------------------------
    @property
    def space(self):
        return self._space

    def query(
        self,
        arch,
        fidelity: int | None = None,
        rng: np.random.Generator | None = None,
        trial: int | None = None,
        stop_halfway: bool = False,
    ) -> Result:
        """One training run of ``arch`` (see the class docstring for how the trial is drawn)."""
        row = self.row(arch)
        epochs = self._highest if fidelity is None else fidelity
        f = self._fidelity_index.get(epochs)
        if f is None:
            if epochs == ZERO_COST and self.zero_cost is not None:
                return self.zero_cost.answer(row, self.data.trainable_parameters.item(row))
            f = self._fidelity(epochs)  # raises the explanatory error
        if trial is None and rng is not None and self._num_trials > 1:
            try:
                t = int(rng.random() * self._num_trials)  # ~10x cheaper than rng.integers for one scalar
            except AttributeError:
                raise _not_a_generator(rng) from None
        elif trial is None and self._num_trials == 1:
            t = 0
        else:
            t = self._trial(trial, rng)
        stage = self._stage(stop_halfway) if stop_halfway else END
        train, valid, test, cost = self._values[row, f, t, stage].tolist()
        self.training_time_spent += cost
        self.total_epochs_spent += epochs // 2 if stop_halfway else epochs
        return Result.from_fields(
            valid, test, cost, self.data.trainable_parameters.item(row), epochs, train, t, stop_halfway,
            self._modelled_sets[self._modelled_keys.item(row, f)],
        )

    def query_batch(
        self,
        archs,
        fidelity: int | None = None,
        rng: np.random.Generator | None = None,
        trials=None,
        stop_halfway: bool = False,
    ) -> BatchResult:
        """Vectorised query: ``archs`` is an array of row indices or a sequence of architectures."""
        rows = self.rows(archs)
        epochs = self.data.fidelities[-1] if fidelity is None else fidelity
        f = self._fidelity(epochs)
        if trials is None:
            generator = rng if rng is not None else self._own_rng
            if not isinstance(generator, np.random.Generator):
                raise _not_a_generator(generator)
            trials = generator.integers(0, self.data.num_trials, size=len(rows))
        trials = np.broadcast_to(np.asarray(trials), rows.shape)
        if not np.issubdtype(trials.dtype, np.integer) or (trials.size and not (
                0 <= trials.min() and trials.max() < self.data.num_trials)):
            raise InvalidSettingError(f"trials must be integers in 0..{self.data.num_trials - 1} for {self.name}")
        stage = self._stage(stop_halfway)
        block = self.data.values[rows, f, trials, stage]
        self.training_time_spent += float(np.nansum(block[:, COST]))
        self.total_epochs_spent += len(rows) * (epochs // 2 if stop_halfway else epochs)
        return BatchResult(
            rows=rows,
            valid_accuracy=block[:, VALID],
            test_accuracy=block[:, TEST],
            cost_seconds=block[:, COST],
            train_accuracy=block[:, TRAIN],
            trials=trials,
            fidelity=epochs,
            halfway=stop_halfway,
        )

    def optimum(self, metric: str = "test_accuracy") -> float:
        """Best mean over trials at the highest fidelity; for ``test_accuracy`` the regret metric,
        which is validation accuracy where the data has no test accuracy at the highest fidelity
        (NB201 CIFAR-100 and ImageNet16-120 at 200 epochs): ``describe()`` and every report say so."""
        if metric == "test_accuracy":
            metric = self.regret_metric
        if metric not in self._optima:  # once per metric (~1 ms over NB101's rows; every run asks)
            self._optima[metric] = float(np.nanmax(self.mean_over_trials(metric)))
        return self._optima[metric]

    def final_test_accuracy(self, arch) -> float:
        """Mean over trials at the highest fidelity of the regret metric (normally test accuracy;
        a benchmark without test accuracy there says so in ``describe()``)."""
        if self._final_test is None:
            self._final_test = self.mean_over_trials(self.regret_metric)
        return self._final_test.item(self.row(arch))

    def describe(self) -> Description:
        return self._description

    # --- beyond the protocol -------------------------------------------------------------
    def row(self, arch) -> int:
        """The row of one architecture: a row index in ``0..len(self) - 1`` (never counted from
        the end), or whatever the space's ``row_of`` accepts (a cell, its text form)."""
        if arch is None or _is_row_index_type(type(arch)):
            if isinstance(arch, (bool, np.bool_)) or arch is None:
                raise InvalidArchitectureError(f"{arch!r} is not an architecture of {self.name}: pass a row index, "
                                               "a cell or its text form")
            if not 0 <= arch < len(self._values):
                raise InvalidArchitectureError(
                    f"row {arch} is outside {self.name}'s rows 0..{len(self._values) - 1:,}")
            return int(arch)
        return self._row_of(arch)

    def rows(self, archs) -> np.ndarray:
        """Row indices of architectures (integer arrays pass through, after a range check)."""
        if isinstance(archs, np.ndarray) and np.issubdtype(archs.dtype, np.integer):
            if archs.size and not (0 <= archs.min() and archs.max() < len(self._values)):
                bad = archs[(archs < 0) | (archs >= len(self._values))][0]
                raise InvalidArchitectureError(f"row {bad} is outside {self.name}'s rows 0..{len(self._values) - 1:,}")
            return archs.astype(np.int64, copy=False)
        if isinstance(archs, (str, bytes)) or not hasattr(archs, "__iter__"):
            raise InvalidArchitectureError(f"query_batch takes a sequence of architectures, got {type(archs).__name__}")
        return np.array([self.row(a) for a in archs], dtype=np.int64)

    def mean_over_trials(self, metric: str = "test_accuracy", fidelity: int | None = None) -> np.ndarray:
        """Per architecture, the mean of ``metric`` over the trials at the end of ``fidelity``."""
        f = self._fidelity(self.data.fidelities[-1] if fidelity is None else fidelity)
        with warnings.catch_warnings():  # architectures the data does not hold stay NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(self.data.values[:, f, :, END, METRICS.index(metric)], axis=1)

    def reset_budget_counters(self) -> None:
        self.training_time_spent = 0.0
        self.total_epochs_spent = 0

    def get_budget_counters(self) -> tuple[float, int]:
        """(training time spent, epochs spent) since the last reset, as the original API."""
        return self.training_time_spent, self.total_epochs_spent

    def __len__(self) -> int:
        return len(self.data.values)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} v{self.version}: {len(self):,} architectures>"

    # --- helpers -------------------------------------------------------------------------
    def _fidelity(self, epochs: int) -> int:
        if not isinstance(epochs, (int, np.integer)) or isinstance(epochs, (bool, np.bool_)):
            raise InvalidSettingError(f"fidelity must be an integer number of epochs, one of "
                                      f"{list(self.data.fidelities)}; got {epochs!r} ({type(epochs).__name__})")
        try:
            return self._fidelity_index[int(epochs)]
        except KeyError:
            hint = ("; fidelity 0 (a zero-cost proxy) needs the benchmark loaded with proxy=NAME"
                    if epochs == ZERO_COST and self.zero_cost is None and self.offers_zero_cost else "")
            raise InvalidSettingError(
                f"{self.name} has no fidelity of {epochs} epochs; available: {list(self.data.fidelities)}{hint}"
            ) from None

    def _trial(self, trial: int | None, rng: np.random.Generator | None) -> int:
        trials = self.data.num_trials
        if trial is not None:
            if not isinstance(trial, (int, np.integer)) or isinstance(trial, (bool, np.bool_)) \
                    or not 0 <= trial < trials:
                raise InvalidSettingError(f"trial must be an integer in 0..{trials - 1} for {self.name}, got {trial!r}")
            return int(trial)
        if trials == 1:
            return 0
        if rng is not None:
            try:
                return int(rng.random() * trials)
            except AttributeError:
                raise _not_a_generator(rng) from None
        if self._compatible is not None:
            return self._compatible.randint(0, trials - 1)
        return int(self._own_rng.random() * trials)

    def _stage(self, stop_halfway: bool) -> int:
        if stop_halfway and not self.data.has_halfway:
            raise InvalidSettingError(f"{self.name} holds no halfway evaluations: stop_halfway needs a benchmark "
                                      "with them (nb101 imported from the official file)")
        return HALFWAY if stop_halfway else END

    def _modelled_field_sets(self) -> tuple[np.ndarray, dict[int, frozenset[str]]]:
        """Per (row, fidelity) a key into shared frozensets of modelled Result fields."""
        n, f = self.data.values.shape[:2]
        if not self.data.modelled:  # a read-only broadcast: no per-row memory
            return np.broadcast_to(np.zeros(1, dtype=np.int64), (n, f)), {0: frozenset()}
        keys = np.zeros((n, f), dtype=np.int64)
        ordered = sorted(self.data.modelled)
        for bit, name in enumerate(ordered):
            mask = np.asarray(self.data.modelled[name], dtype=np.int64)
            keys |= np.broadcast_to(mask.reshape(n, -1), (n, f)) << bit
        sets = {k: frozenset(m for b, m in enumerate(ordered) if k >> b & 1) for k in np.unique(keys).tolist()}
        return keys, sets


#: Per type of architecture passed to ``row``, whether it is a row index (an integer or a bool,
#: which is refused). ``isinstance`` against numpy's scalar types costs ~0.15 us, as much as
#: the rest of a look-up; the handful of types a process sees are checked once each.
_ROW_INDEX_TYPES: dict[type, bool] = {}


def _is_row_index_type(kind: type) -> bool:
    known = _ROW_INDEX_TYPES.get(kind)
    if known is None:
        known = _ROW_INDEX_TYPES[kind] = issubclass(kind, (int, np.integer, np.bool_))
    return known


def _not_a_generator(rng) -> InvalidSettingError:
    """The error for an ``rng`` that is not a numpy Generator (a seed passed where one belongs)."""
    hint = f" (for seed {rng}: np.random.default_rng({rng}))" if isinstance(rng, (int, np.integer)) else ""
    return InvalidSettingError(f"rng must be a numpy Generator or None, got {type(rng).__name__} {rng!r}{hint}")
