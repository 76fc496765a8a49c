"""Surrogate benchmarks: a fitted ensemble answers queries (NAS-Bench-301, Sec. 3).

Semantics, chosen where the paper leaves them open:

- ``query(arch, fidelity, rng, noise=True)`` returns the ensemble mean plus one draw of
  Normal(0, ensemble std), the paper's noise model (Sec. 3.1.5, 3.1.7: "each architecture
  evaluation is sampled from the surrogate model's predictive distribution"), clipped to
  [0, 1]. The draw comes from ``rng`` when given, else from the benchmark's own
  ``Generator(seed)``, as tabular trials do; the same generator state gives the same value.
  ``noise=False`` returns the mean.
- There is no separate test accuracy (``test_accuracy`` is NaN): regret is measured on the
  *noise-free* predicted validation accuracy at the highest fidelity
  (:meth:`final_test_accuracy`), and the optimum is the best such prediction over the
  enumerated space when it is finite (NB101, NB201), else over the training architectures.
- ``cost_seconds`` comes from the runtime model (LightGBM, proportional to epochs), or is one
  simulated second per epoch when the data held no training times. ``trainable_parameters``
  are exact where nasarena can count them (NB101, NB201), else -1.
- Every result lists ``valid_accuracy`` and ``cost_seconds`` in ``Result.modelled``.

The model is deterministic, so each architecture's noise-free prediction (mean, std, cost) is
computed once per fidelity and kept; only the noise draw is new per query. An artefact with a
prediction table (finite spaces fitted with ``tabulate=True``, :mod:`..surrogates.tabulation`)
holds these predictions for every architecture already: queries of architectures and rows are
look-ups by row (no cache needed), and only pre-computed encodings go through the models.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InvalidSettingError
from ..surrogates.artifact import SurrogateArtifact, Validation, load, loads
from ..surrogates.chunks import map_chunks
from ..surrogates.encoding import ArchitectureEncoder
from ..surrogates.prediction import FastEnsemble
from ..surrogates.spaces import IndexedArchitectures, exact_parameters, finite_index, space_by_name
from .protocol import Benchmark, Description, InvalidArchitectureError
from .result import BatchResult, Result

MODELLED = frozenset({"valid_accuracy", "cost_seconds"})
#: Package data folder of the built-in artefacts (with its own checksummed manifest).
BUILTIN_DIRECTORY = "surrogates"
ARTIFACT_SUFFIX = ".nsa"
NAN = float("nan")


class SurrogateBenchmark(Benchmark):
    """A benchmark answered by a :class:`SurrogateArtifact` (see the module for the semantics)."""

    def __init__(self, artifact: SurrogateArtifact, seed: int = 0, origin: str = ""):
        if artifact.fidelity is None or artifact.optimum is None:
            raise ValueError(f"{artifact.name} is incomplete (no fidelity or optimum): fit it with fit_surrogate")
        self.artifact = artifact
        self.origin = origin
        self.name = artifact.name
        self.version = artifact.version
        self.fidelities = artifact.fidelities
        self.metrics = ("valid_accuracy", "cost_seconds", "trainable_parameters")
        self._space = space_by_name(artifact.space)
        self._encoder = ArchitectureEncoder(self._space, artifact.encoding)
        self._index = finite_index(artifact.space)
        self._own_rng = np.random.default_rng(seed)
        self._highest = artifact.fidelity
        self._ensembles = {f: FastEnsemble(artifact.ensemble(f)) for f in artifact.fidelities}
        self._table = artifact.prediction_table  # None: every new architecture is predicted by the models
        self._predictions: dict[tuple[str, int], tuple[float, float, float, int]] = {}
        self._parameters = None  # loaded on the first query (NB101 reads a table)

    # --- protocol ------------------------------------------------------------------------
    @property
    def space(self):
        return self._space

    def query(self, arch, fidelity: int | None = None, rng: np.random.Generator | None = None,
              noise: bool = True) -> Result:
        """One modelled training run of ``arch`` for ``fidelity`` epochs (default: the highest)."""
        epochs = self._highest if fidelity is None else fidelity
        mean, std, cost, parameters = self._prediction(arch, epochs)
        value = mean
        if noise:
            value = min(1.0, max(0.0, mean + std * (rng or self._own_rng).standard_normal()))
        return Result.from_fields(value, NAN, cost, parameters, epochs, NAN, 0, False, MODELLED)

    def query_batch(self, archs, fidelity: int | None = None, rng: np.random.Generator | None = None,
                    noise: bool = True) -> BatchResult:
        """Vectorised ``query``. ``archs`` is a sequence of architectures, an integer array of rows
        of a finite space (NB101 sorted-hash rows, NB201 indices), or a 2-D float array of
        encodings already computed (``rows`` is then -1)."""
        epochs = self._check_fidelity(self._highest if fidelity is None else fidelity)
        mean, std, cost, rows = self._batch_prediction(archs, epochs, with_cost=True)
        if noise:
            generator = rng or self._own_rng
            mean = np.clip(mean + std * generator.standard_normal(len(mean)), 0.0, 1.0)
        missing = np.full(len(mean), np.nan)
        return BatchResult(rows=rows, valid_accuracy=mean, test_accuracy=missing, cost_seconds=cost,
                           train_accuracy=missing, trials=np.zeros(len(mean), dtype=np.int64), fidelity=epochs,
                           halfway=False)

    def optimum(self, metric: str = "test_accuracy") -> float:
        """Best noise-free predicted validation accuracy at the highest fidelity (for either accuracy)."""
        if metric not in ("test_accuracy", "valid_accuracy"):
            raise ValueError(f"{self.name} has an optimum of test_accuracy or valid_accuracy only, got {metric!r}")
        return self.artifact.optimum.value

    def final_test_accuracy(self, arch) -> float:
        """The noise-free predicted validation accuracy at the highest fidelity (what regret uses)."""
        return self._prediction(arch, self._highest)[0]

    def describe(self) -> Description:
        a = self.artifact
        counted = getattr(self._space, "exact_parameters", None) is not None  # the space counts its parameters
        runtime = ("the runtime model (LightGBM on log seconds per epoch, times epochs)" if a.runtime_model
                   else "one simulated second per epoch (the training data held no training times)")
        return Description(
            name=self.name,
            version=self.version,
            num_architectures=int(self._space.size),
            fidelities=self.fidelities,
            trials=1,
            metrics=self.metrics,
            real="trainable parameters (exact count)" if counted else "nothing (trainable parameters are -1: unknown)",
            modelled=(
                f"everything else: valid_accuracy is the {a.model} ensemble's mean plus one Normal(0, ensemble std) "
                f"draw per query, clipped to [0, 1] (noise=False: the mean); cost_seconds from {runtime}; no test "
                f"accuracy (NaN): regret is measured on the noise-free predicted validation accuracy at "
                f"{self._highest} epochs, and the optimum {a.optimum.value:.5f} ({a.optimum.identity}) is the best "
                f"such prediction over {a.optimum.over}"
            ),
            provenance="\n    ".join([
                f"artefact {self.origin or a.name}; space {a.space}, encoding {a.encoding}"
                + (f", dataset {a.dataset}" if a.dataset else "")
                + (f"; fitted from {a.source_benchmark}" if a.source_benchmark else ""),
                f"training data: {a.data.description}, sha256 {a.data.sha256}, {a.data.rows:,} rows, sources "
                f"{', '.join(a.data.sources)}",
                f"fit: {a.notes}",
                *([f"queries: look-ups in a prediction table of all {self._table.size:,} architectures (mean "
                   f"{self._table.mean[self._highest].dtype}, std and seconds per epoch "
                   f"{self._table.std[self._highest].dtype}); only encodings passed in are predicted by the models"]
                  if self._table is not None else []),
                "validation:",
                *(f"  {v.to_text()}" for v in a.validations),
            ]),
        )

    # --- beyond the protocol -------------------------------------------------------------
    def predict(self, archs, fidelity: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Noise-free ensemble mean and standard deviation of many architectures (or rows, or encodings)."""
        epochs = self._check_fidelity(self._highest if fidelity is None else fidelity)
        mean, std, _, _ = self._batch_prediction(archs, epochs, with_cost=False)
        return mean, std

    def validations(self) -> tuple[Validation, ...]:
        return self.artifact.validations

    def __repr__(self) -> str:
        return f"<SurrogateBenchmark {self.name}: {self.artifact.model} on {self.artifact.space}>"

    # --- helpers -------------------------------------------------------------------------
    def _check_fidelity(self, epochs: int) -> int:
        if not isinstance(epochs, (int, np.integer)) or isinstance(epochs, (bool, np.bool_)):
            raise InvalidSettingError(f"fidelity must be an integer number of epochs, one of {list(self.fidelities)}; "
                                      f"got {epochs!r} ({type(epochs).__name__})")
        if epochs not in self._ensembles:
            raise InvalidSettingError(f"{self.name} has no fidelity of {epochs} epochs; available: "
                                      f"{list(self.fidelities)}")
        return int(epochs)

    def _prediction(self, arch, epochs: int) -> tuple[float, float, float, int]:
        """(mean, std, cost, parameters) of one architecture, computed once per fidelity."""
        arch = self._architecture(arch)
        if self._table is not None:
            mean, std, cost = self._table.row(self._index.row(arch), self._check_fidelity(epochs))
            return mean, std, cost, self._count_parameters(arch)
        identity = self._space.identity(arch)
        cached = self._predictions.get((identity, epochs))
        if cached is not None:
            return cached
        self._check_fidelity(epochs)
        x = self._encoder.encode(arch, identity)[None, :]
        mean, std = self._ensembles[epochs].predict(x)
        parameters = self._count_parameters(arch)
        cached = self._predictions[(identity, epochs)] = (mean.item(), std.item(), self._cost(x, epochs).item(),
                                                           parameters)
        return cached

    def _architecture(self, arch):
        """``arch`` as an architecture of the space: an architecture object, its text form, or
        (finite spaces) its row; anything else, or an architecture outside the space, is refused
        with the reason."""
        if isinstance(arch, str):
            try:
                arch = self._space.from_text(arch)
            except (ValueError, KeyError) as error:
                raise InvalidArchitectureError(f"{self.name}: cannot read architecture {arch[:80]!r}: "
                                               f"{error.args[0] if error.args else error}") from None
        elif isinstance(arch, (int, np.integer)) and not isinstance(arch, bool):
            if self._index is None:
                raise InvalidArchitectureError(f"{self.name}: the {self._space.name} space has no rows; "
                                               "query an architecture or its text form")
            size = self._space.size
            if not 0 <= arch < size:
                raise InvalidArchitectureError(f"{self.name}: row {arch} is outside 0..{size - 1}")
            arch = self._space.enumerate()[int(arch)]
        problem = self._space.violation(arch)
        if problem is not None:
            raise InvalidArchitectureError(f"{self.name}: cannot query this architecture: {problem}")
        return arch

    def _read(self, archs) -> list:
        """The architectures of a batch, with text forms and rows read as in ``query``."""
        if isinstance(archs, (str, bytes)) or not hasattr(archs, "__iter__"):
            raise InvalidArchitectureError(f"{self.name}: query_batch takes a sequence of architectures, got "
                                           f"{type(archs).__name__}")
        return [self._architecture(a) if isinstance(a, (str, int, np.integer)) else a for a in archs]

    def _cost(self, x: np.ndarray, epochs: int) -> np.ndarray:
        if self.artifact.runtime_model is None:
            return np.full(len(x), float(epochs))
        return self.artifact.runtime_model.predict(x, epochs)

    def _count_parameters(self, arch) -> int:
        if self._parameters is None:
            self._parameters = exact_parameters(self.artifact.space, self.artifact.dataset) or (lambda arch: -1)
        return int(self._parameters(arch))

    def _batch_prediction(self, archs, epochs: int, with_cost: bool):
        """(mean, std, cost or None, rows) of many architectures: from the table where the rows are
        known, else encoded and predicted by the models."""
        rows = self._table_rows(archs)
        if rows is not None:
            mean, std = self._table.predict(rows, epochs)
            return mean, std, self._table.cost(rows, epochs) if with_cost else None, rows
        if not isinstance(archs, (np.ndarray, list, IndexedArchitectures)):
            archs = list(archs)

        def predict(part):
            x, part_rows = self._encode_batch(part)
            mean, std = self._ensembles[epochs].predict(x)
            return mean, std, self._cost(x, epochs) if with_cost else None, part_rows

        if isinstance(archs, IndexedArchitectures) or len(archs) == 0:  # one vectorised pass (or its error)
            return predict(archs)
        parts = map_chunks(predict, archs)  # see .chunks: the same answer, on the available cores
        mean, std, cost, rows = (np.concatenate(column) if column[0] is not None else None for column in zip(*parts))
        return mean, std, cost, rows

    def _table_rows(self, archs) -> np.ndarray | None:
        """The rows of ``archs`` in the space when the table can answer them (None: use the models)."""
        if self._table is None or (isinstance(archs, np.ndarray) and archs.ndim == 2):
            return None
        if isinstance(archs, IndexedArchitectures):
            return self._table.check_rows(archs.rows)
        if isinstance(archs, np.ndarray) and np.issubdtype(archs.dtype, np.integer):
            return self._table.check_rows(archs)
        return np.array([self._index.row(a) for a in _valid(self._read(archs))], dtype=np.int64)

    def _encode_batch(self, archs) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(archs, np.ndarray) and archs.ndim == 2:
            return np.asarray(archs, dtype=np.float32), np.full(len(archs), -1, dtype=np.int64)
        if isinstance(archs, np.ndarray) and np.issubdtype(archs.dtype, np.integer):
            if self._index is None:
                raise ValueError(f"{self.name}: the {self._space.name} space has no row numbers; pass architectures")
            rows = archs.astype(np.int64)
            size = self._space.size
            if rows.size and not (0 <= rows.min() and rows.max() < size):  # never counted from the end
                raise InvalidArchitectureError(f"{self.name}: rows must be in 0..{size - 1}")
            return self._index.encode_rows(rows, self._encoder.kind), rows
        archs = _valid(self._read(archs))
        rows = (np.array([self._index.row(a) for a in archs], dtype=np.int64) if self._index is not None
                else np.full(len(archs), -1, dtype=np.int64))
        return self._encoder.encode_many(archs), rows


def _valid(archs) -> list:
    """``archs`` as a list, after refusing any invalid one (as tabular benchmarks do)."""
    archs = list(archs)
    for arch in archs:
        if getattr(arch, "is_valid", True) is False:
            raise InvalidArchitectureError(f"invalid architecture cannot be queried: {arch.reason}")
    return archs


def load_surrogate(path: str | Path, seed: int = 0) -> SurrogateBenchmark:
    """A surrogate benchmark from an artefact file (``nasarena.benchmark("surrogate", path=FILE)``)."""
    return SurrogateBenchmark(load(Path(path)), seed=seed, origin=str(path))


def load_builtin(name: str, seed: int = 0) -> SurrogateBenchmark:
    """A built-in surrogate benchmark from the package data (checked against its manifest)."""
    from ..io.packaged import data_dir, read_verified

    file_name = name + ARTIFACT_SUFFIX
    content = read_verified(file_name, data_dir() / BUILTIN_DIRECTORY)
    return SurrogateBenchmark(loads(content, f"package data {BUILTIN_DIRECTORY}/{file_name}"), seed=seed,
                              origin=f"nasarena/data/{BUILTIN_DIRECTORY}/{file_name}")


def open_surrogate(name_or_path: str | Path, seed: int = 0) -> SurrogateBenchmark:
    """A surrogate benchmark from an artefact file, or a built-in one by name."""
    from ..surrogates.builtin import BUILTINS

    path = Path(name_or_path)
    if path.is_file():
        return load_surrogate(path, seed=seed)
    if str(name_or_path) in BUILTINS:
        return load_builtin(str(name_or_path), seed=seed)
    raise FileNotFoundError(f"{name_or_path} is neither an artefact file nor a built-in surrogate "
                            f"({', '.join(BUILTINS)})")
