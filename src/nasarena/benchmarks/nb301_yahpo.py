"""``nb301``: the DARTS space of NAS-Bench-301 answered by YAHPO Gym's surrogate of NB301's training data.

YAHPO Gym's authors fitted a neural network (their ``nb301`` scenario, version 2) on the
NAS-Bench-301 training data: the real CIFAR-10 training runs of the DARTS-space architectures
behind NB301, each trained once for 100 epochs (SGD, cosine annealing, 32 channels, 8 cells; NB301
App. C.6), with its validation accuracy and runtime after every epoch. nasarena ships the model as
ONNX package data, unmodified (Apache-2.0, checksummed in the manifest), and answers with it:

- ``valid_accuracy`` at any epoch 1-98 (the fidelities; YAHPO's epoch range): a point on the learning
  curve of that one 100-epoch run, not the end of a shorter schedule (NB101 trains a run per budget);
- ``cost_seconds``: the model's ``runtime`` output, the cumulative training seconds up to that epoch;
- no test accuracy (NaN: the model has none); regret is measured on the validation accuracy at the
  last epoch, against the best one a seeded local search found (``optimum.json``, built by
  ``scripts/build_nb301_data.py``): a lower bound of the space's optimum, so a search that beats it
  has a negative regret;
- no noise: the model has no noise output, so it is deterministic and ``rng`` is never used.

It is not NB301's own benchmark (its XGB/GIN ensembles and LGB runtime model, which draw noisy
answers), and every value is flagged as modelled (``Result.modelled``).

The model takes int32 ``x_cat`` (architectures, 34), the categorical parameters coded as
:mod:`.nb301_encoding` says, and float32 ``x_cont`` (architectures, 1), the raw epoch (the model
scales its inputs and de-scales its outputs itself), and returns float32 (architectures, 4): YAHPO's
``y_names`` ``val_accuracy`` (a fraction), ``val_cross_entropy``, ``runtime`` and
``runtime_increase`` (seconds). A batch is one ONNX call; onnxruntime runs it on ``threads`` threads,
1 by default, so that timings compare between machines and runs do not compete for cores (on this
machine 1 and 2 threads, and a batch against one call per architecture, gave the same bits).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..errors import ArchitectureTypeError, DataFileError, InvalidSettingError, import_extra
from ..io.packaged import read_manifest, read_verified
from ..spaces.darts import SIZE, DartsArch, DartsSpace
from .nb301_encoding import COLUMNS, ModelEncoding
from .protocol import Benchmark, Description, InvalidArchitectureError
from .result import BatchResult, Result

NAME = "nb301"
#: nasarena's benchmark version, then the YAHPO model's.
VERSION = "1.0+yahpo-v2"
DATA_FOLDER = "nb301-yahpo"
MODEL_FILE = f"{DATA_FOLDER}/model_v2.onnx"
ENCODING_FILE = f"{DATA_FOLDER}/encoding_v2.json"
CONFIG_SPACE_FILE = f"{DATA_FOLDER}/config_space_v2.json"
OPTIMUM_FILE = f"{DATA_FOLDER}/optimum.json"
#: The columns of the model's output (YAHPO Gym's ``y_names`` of the nb301 scenario).
OUTPUTS = ("val_accuracy", "val_cross_entropy", "runtime", "runtime_increase")
VALID, RUNTIME = OUTPUTS.index("val_accuracy"), OUTPUTS.index("runtime")
#: The model's inputs: the coded architecture and the epoch.
X_CAT, X_CONT = "x_cat", "x_cont"
MODELLED = frozenset({"valid_accuracy", "cost_seconds"})
NAN = float("nan")


@lru_cache(maxsize=1)
def epoch_range() -> tuple[int, int]:
    """(first, last) epoch the model answers: the ``epoch`` parameter of YAHPO's configuration space."""
    parameters = json.loads(read_verified(CONFIG_SPACE_FILE))["hyperparameters"]
    epoch = next((p for p in parameters if p.get("name") == "epoch"), None)
    if epoch is None:
        raise DataFileError(f"{CONFIG_SPACE_FILE} has no epoch parameter")
    return int(epoch["lower"]), int(epoch["upper"])


@lru_cache(maxsize=1)
def model_encoding() -> ModelEncoding:
    """The integer codes of the model's categorical inputs (YAHPO's ``encoding_v2.json``)."""
    return ModelEncoding.from_levels(json.loads(read_verified(ENCODING_FILE)), ENCODING_FILE)


@lru_cache(maxsize=1)
def stored_optimum() -> dict:
    """The best architecture a seeded local search found on the model (``optimum.json``)."""
    return json.loads(read_verified(OPTIMUM_FILE))


def threads_option(value: object) -> int:
    """The ``threads`` loader option as a whole number >= 1 (the CLI passes text)."""
    text = value.strip() if isinstance(value, str) else None
    if text is not None and text.isdigit():
        value = int(text)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidSettingError(f"threads={value!r}: expected a whole number >= 1 of onnxruntime threads")
    return int(value)


class NB301Benchmark(Benchmark):
    """The nb301 benchmark (see the module for what it answers and how)."""

    name = NAME
    version = VERSION
    metrics = ("valid_accuracy", "cost_seconds")
    #: What regret is measured on (reports say so): the model has no test accuracy.
    regret_metric = "valid_accuracy"
    #: Every accuracy it answers is the surrogate's (``analysis.regret_basis`` says so).
    modelled_performance = True

    def __init__(self, threads: int | str = 1):
        self.threads = threads_option(threads)
        first, last = epoch_range()
        self.fidelities = tuple(range(first, last + 1))
        self._highest = last
        self._space = DartsSpace()
        self._encoding = model_encoding()
        self._session = _session(self.threads)

    def __reduce__(self):
        """Pickled as its settings (an onnxruntime session is not picklable); rebuilt on loading."""
        return NB301Benchmark, (self.threads,)

    # --- protocol ------------------------------------------------------------------------
    @property
    def space(self) -> DartsSpace:
        return self._space

    def query(self, arch, fidelity: int | None = None, rng: np.random.Generator | None = None) -> Result:
        """The modelled validation accuracy and training seconds of ``arch`` (a DartsArch or its
        genotype text) after ``fidelity`` epochs (default: the last). ``rng`` is not used: the
        model is deterministic."""
        epochs = self._epochs(fidelity)
        valid, cost = self._predict([self._architecture(arch)], epochs)
        return Result.from_fields(valid.item(), NAN, cost.item(), -1, epochs, NAN, 0, False, MODELLED)

    def query_batch(self, archs, fidelity: int | None = None, rng: np.random.Generator | None = None) -> BatchResult:
        """``query`` of many architectures at one fidelity, in one model call (``rows`` are -1: the
        DARTS space has no row numbers)."""
        epochs = self._epochs(fidelity)
        valid, cost = self._predict(self._read(archs), epochs)
        missing = np.full(len(valid), np.nan)
        return BatchResult(rows=np.full(len(valid), -1, dtype=np.int64), valid_accuracy=valid, test_accuracy=missing,
                           cost_seconds=cost, train_accuracy=missing.copy(),
                           trials=np.zeros(len(valid), dtype=np.int64), fidelity=epochs, halfway=False)

    def optimum(self, metric: str = "test_accuracy") -> float:
        """The best validation accuracy at the last epoch found by the stored search (for either
        accuracy: there is no test accuracy); a lower bound of the space's optimum."""
        if metric not in ("test_accuracy", "valid_accuracy"):
            raise InvalidSettingError(f"{self.name} has an optimum of test_accuracy or valid_accuracy only, "
                                      f"got {metric!r}")
        return float(stored_optimum()["valid_accuracy"])

    def final_test_accuracy(self, arch) -> float:
        """The validation accuracy at the last epoch (there is no test accuracy): what regret uses."""
        return self.query(arch).valid_accuracy

    def describe(self) -> Description:
        first, last = self.fidelities[0], self.fidelities[-1]
        optimum = stored_optimum()
        manifest = read_manifest()
        return Description(
            name=self.name,
            version=self.version,
            num_architectures=SIZE,
            fidelities=self.fidelities,
            trials=1,
            metrics=self.metrics,
            real="nothing: every value is a model's prediction (trainable parameters are -1: not counted)",
            modelled=(
                f"everything: a surrogate fitted on NB301's real training data by YAHPO Gym's authors (their nb301 "
                f"scenario, model v2), not NB301's own XGB/GIN ensembles. valid_accuracy after epoch {first}-{last} "
                "of one 100-epoch training run (SGD, cosine annealing; a lower fidelity is a point on that run's "
                "learning curve, not a shorter schedule); cost_seconds: the model's runtime output, the cumulative "
                "training seconds up to that epoch, as the model gives it (not forced monotone: late in training it "
                "can dip slightly from one epoch to the next; bench/bench_nb301_yahpo.py measures how much). No "
                "noise is modelled: the model has no noise output, so answers are deterministic (NB301 App. C.7 "
                "measured a run-to-run standard deviation of final validation accuracy of 1.6e-3, absent here). "
                "No test accuracy (NaN): the model has none, so "
                f"regret is measured on the validation accuracy at epoch {last}, against the optimum "
                f"{optimum['valid_accuracy']:.5f}, the best such value {optimum['search']}: a lower bound of the "
                "true optimum, so a search that beats it has a negative regret"
            ),
            provenance=(f"model: {manifest[MODEL_FILE].provenance}; inputs coded by {ENCODING_FILE} in YAHPO Gym's "
                        f"column order (nasarena.benchmarks.nb301_encoding); optimum: "
                        f"{manifest[OPTIMUM_FILE].provenance}"),
        )

    # --- beyond the protocol -------------------------------------------------------------
    def learning_curves(self, archs) -> tuple[np.ndarray, np.ndarray]:
        """(validation accuracy, cumulative training seconds), each (architectures, fidelities):
        every epoch of every architecture, in one model call."""
        archs = self._read(archs)
        x_cat = np.repeat(self._encoding.encode(archs), len(self.fidelities), axis=0)
        epochs = np.tile(np.array(self.fidelities, dtype=np.float32), len(archs))
        valid, cost = self._run(x_cat, epochs)
        return valid.reshape(len(archs), -1), cost.reshape(len(archs), -1)

    def __repr__(self) -> str:
        return f"<NB301Benchmark {self.name} v{self.version}: YAHPO's nb301 model, {self.threads} thread(s)>"

    # --- helpers -------------------------------------------------------------------------
    def _epochs(self, fidelity) -> int:
        if fidelity is None:
            return self._highest
        first, last = self.fidelities[0], self.fidelities[-1]
        if isinstance(fidelity, (bool, np.bool_)) or not isinstance(fidelity, (int, np.integer)):
            raise InvalidSettingError(f"{self.name}: fidelity must be a whole number of epochs from {first} to "
                                      f"{last}; got {fidelity!r} ({type(fidelity).__name__})")
        if not first <= fidelity <= last:
            raise InvalidSettingError(f"{self.name} has no fidelity of {fidelity} epochs: the model answers epochs "
                                      f"{first} to {last} (the range of NB301's training data in YAHPO Gym)")
        return int(fidelity)

    def _architecture(self, arch) -> DartsArch:
        """``arch`` as a DartsArch: one, or its genotype text; anything else is refused with the reason."""
        if isinstance(arch, DartsArch):
            return arch
        if isinstance(arch, str):
            try:
                return self._space.from_text(arch)
            except (ValueError, KeyError) as error:
                raise InvalidArchitectureError(f"{self.name}: cannot read architecture {arch[:80]!r}: "
                                               f"{error.args[0] if error.args else error}") from None
        raise ArchitectureTypeError(f"{self.name}: expected a DARTS architecture (DartsArch) or its genotype text, "
                                    f"got {type(arch).__name__} {arch!r:.80}")

    def _read(self, archs) -> list[DartsArch]:
        if isinstance(archs, (str, bytes)) or not isinstance(archs, (Sequence, np.ndarray)):
            raise ArchitectureTypeError(f"{self.name}: query_batch takes a sequence of architectures, got "
                                        f"{type(archs).__name__}")
        return [self._architecture(arch) for arch in archs]

    def _predict(self, archs: list[DartsArch], epochs: int) -> tuple[np.ndarray, np.ndarray]:
        return self._run(self._encoding.encode(archs), np.full(len(archs), epochs, dtype=np.float32))

    def _run(self, x_cat: np.ndarray, epochs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(validation accuracy, seconds) as float64 from one model call. The network's outputs are
        unbounded (YAHPO clamped its training targets, not its predictions), so accuracy is clipped
        to [0, 1] and seconds to >= 0, the protocol's ranges."""
        if len(x_cat) == 0:
            return np.empty(0), np.empty(0)
        output = self._session.run(None, {X_CAT: x_cat, X_CONT: epochs.reshape(-1, 1)})[0]
        return (np.clip(output[:, VALID].astype(np.float64), 0.0, 1.0),
                np.maximum(output[:, RUNTIME].astype(np.float64), 0.0))


def _session(threads: int):
    """An onnxruntime session of the verified model on the CPU, with ``threads`` intra-op threads
    and sequential execution (no inter-op pool); a model without the expected inputs and outputs
    is a :class:`DataFileError`."""
    onnxruntime = import_extra("onnxruntime", "the nb301 benchmark")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    session = onnxruntime.InferenceSession(read_verified(MODEL_FILE), sess_options=options,
                                           providers=["CPUExecutionProvider"])
    inputs = {i.name: i.shape[1] for i in session.get_inputs()}
    width = session.get_outputs()[0].shape[1]
    if inputs != {X_CAT: len(COLUMNS), X_CONT: 1} or width != len(OUTPUTS):
        raise DataFileError(f"{MODEL_FILE}: expected inputs x_cat ({len(COLUMNS)}) and x_cont (1) and {len(OUTPUTS)} "
                            f"outputs, got inputs {inputs} and {width} outputs")
    return session


def load(threads: int | str = 1) -> NB301Benchmark:
    """The nb301 benchmark (``nasarena.benchmark("nb301")``); ``threads``: onnxruntime's threads."""
    return NB301Benchmark(threads)
