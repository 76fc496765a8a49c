"""The live benchmark: a query trains the architecture on CIFAR-10 and returns what it measured.

``nasarena.benchmark("live", space="nb201", protocol="quick", image_size=16, subset=100,
channels=8, cells_per_stage=1)`` implements the :class:`~.protocol.Benchmark` protocol by
training (:mod:`nasarena.training`): ``query`` builds the space's network at the given scale
(default: the benchmark's; for DARTS NB301's 32 channels and 8 cells), seeds its weights, trains it for ``fidelity`` epochs under the protocol (each fidelity is its
own run with its own schedule, as NB101 trained its budgets) and returns a Result with nothing
modelled; ``cost_seconds`` is the measured wall time of that training, so the runner's clock
is measured time.

Results are kept in a store folder (``store=``; default ``$NASARENA_CACHE/live``, else
``~/.cache/nasarena/live``) keyed by (architecture identity, fidelity, seed, settings hash):
a repeated query, in this process or after a restart, reads the stored result and never
trains again (it returns the cost measured when it did train). The settings hash covers the
space, the protocol, the network scale and the data knobs (image size, subset, validation
seed), so results of other settings never mix. A training that is killed resumes from its
last epoch's checkpoint on the next query; processes sharing a store (``nasarena run --jobs``)
claim a key before training it, so each is trained once.

Regret: the best test accuracy of a space under these settings is unknown (nothing was trained
exhaustively), so :meth:`optimum` is 1.0 and regret is the incumbent's test error; the
incumbent's ``final_test_accuracy`` is its stored highest-fidelity result (trained if absent).
Every command-line value may be text (``nasarena run --benchmark-option image_size=16``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DataFileError, InvalidArchitectureError, InvalidSettingError, import_extra, unknown_name
from ..io.files import atomic_write_bytes
from ..io.fingerprint import settings_fingerprint
from ..spaces.registry import space as space_named
from .protocol import Benchmark, Description
from .result import BatchResult, Result

STORE_VARIABLE = "NASARENA_CACHE"
RESULTS_DIR = "results"
TRAINING_DIR = "training"
SETTINGS_FILE = "settings.json"
FORMAT_VERSION = 1
CLAIM_POLL_SECONDS = 1.0
#: The network each space's benchmark trained where it is not the paper's full-size one: NB301
#: trained DARTS cells in a network of 32 channels and 8 cells (Appendix C.6). Knobs override it.
BENCHMARK_SCALE = {"darts": {"channels": 32, "layers": 8}}
#: Images in each training step of :meth:`LiveBenchmark.estimate_training`.
ESTIMATE_BATCH = 8
#: Timed training steps of :meth:`LiveBenchmark.estimate_training`, after one untimed step: one
#: timed step on a busy CPU gave "71.7 days" in one run and "13.8 hours" in the next.
ESTIMATE_STEPS = 5
METRICS = ("valid_accuracy", "test_accuracy", "train_accuracy", "cost_seconds")


@dataclass(frozen=True)
class TrainingEstimate:
    """The estimated work of training one architecture (see :meth:`LiveBenchmark.estimate_training`):
    ``seconds`` from the median of ``steps`` timed training steps, ``low_seconds`` and
    ``high_seconds`` from the fastest and the slowest, so that the spread is seen with the number."""

    seconds: float
    epochs: int
    images: int
    device: str
    parameters: int
    low_seconds: float
    high_seconds: float
    steps: int

    def __str__(self) -> str:
        epochs = f"{self.epochs} epoch{'s' if self.epochs != 1 else ''}"
        return (f"about {_duration(self.seconds)} per architecture ({epochs} of {self.images:,} images, "
                f"{self.parameters:,} parameters, on {self.device}; the median of {self.steps} timed training steps "
                f"after an untimed first one, which ranged from {_duration(self.low_seconds)} to "
                f"{_duration(self.high_seconds)})")


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.0f} s"


def timed_steps(step: Callable[[], object], count: int) -> list[float]:
    """Seconds of each of ``count`` calls of ``step``, after one untimed call: the first step of a
    network pays for allocations, kernel choices and lazy initialisation that later steps do not,
    and one timed step is at the mercy of whatever else the machine does at that moment."""
    step()
    seconds = []
    for _ in range(count):
        start = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - start)
    return seconds


def default_store() -> Path:
    root = os.environ.get(STORE_VARIABLE)
    return (Path(root) if root else Path.home() / ".cache" / "nasarena") / "live"


class LiveBenchmark(Benchmark):
    """Train-on-query benchmark over one space (see the module docstring)."""

    name = "live"
    version = "1"
    metrics = METRICS

    def __init__(self, space: str = "nb201", *, data=None, protocol: str | None = None, settings: tuple[str, ...] = (),
                 store=None, seed=0, image_size=32, subset=None, validation_seed=0, fidelities=None,
                 device: str = "auto", **scale):
        import_extra("torch", "the live benchmark")  # it trains: refused here, before a run writes anything
        from ..training.networks.build import SPACES
        from ..training.protocols import SPACE_PROTOCOLS
        from ..training.protocols import protocol as preset

        self._space = space_named(space, needs="network")
        self.space_name = space
        chosen = preset(protocol or SPACE_PROTOCOLS[space])
        self.protocol = chosen.with_settings(list(settings) if not isinstance(settings, str) else [settings])
        scale = {**BENCHMARK_SCALE.get(space, {}), **scale}
        self.scale = {key: _knob(space, key, value, SPACES[space]) for key, value in scale.items()}
        self.seed = _whole("seed", seed, 0)
        self.image_size = _whole("image_size", image_size, 1)
        self.subset = None if subset in (None, "", "none") else _whole("subset", subset, 1)
        self.validation_seed = _whole("validation_seed", validation_seed, 0)
        self.fidelities = _fidelities(fidelities, self.protocol.budgets or (self.protocol.epochs,))
        self.data_path = data
        self.device = device
        self._data = None
        self.settings = {"format": FORMAT_VERSION, "space": space, "protocol": self.protocol.to_dict(),
                         "scale": self.scale, "data": {"image_size": self.image_size, "subset": self.subset,
                                                       "validation_seed": self.validation_seed}}
        self.settings_hash = settings_fingerprint(self.settings, strict=True)
        self.folder = Path(store if store is not None else default_store()) / self.settings_hash

    @property
    def space(self):
        return self._space

    # -- the Benchmark protocol -------------------------------------------------------------------

    def query(self, arch, fidelity: int | None = None, rng: np.random.Generator | None = None) -> Result:
        """The stored result of ``arch`` at ``fidelity`` epochs, training it first if absent.

        ``rng`` is unused: one training run per (architecture, fidelity) with the benchmark's seed.
        """
        arch = self._architecture(arch)
        epochs = self._fidelity(fidelity)
        entry = self._stored(arch, epochs)
        if entry is None:
            entry = self._claimed_training(arch, epochs)
        return _result(entry)

    def query_batch(self, archs, fidelity: int | None = None, rng: np.random.Generator | None = None) -> BatchResult:
        results = [self.query(arch, fidelity) for arch in archs]
        column = lambda name: np.array([getattr(r, name) for r in results], dtype=float)  # noqa: E731
        return BatchResult(rows=np.full(len(results), -1, dtype=np.int64), valid_accuracy=column("valid_accuracy"),
                           test_accuracy=column("test_accuracy"), cost_seconds=column("cost_seconds"),
                           train_accuracy=column("train_accuracy"), trials=np.zeros(len(results), dtype=np.int64),
                           fidelity=self._fidelity(fidelity), halfway=False)

    def optimum(self, metric: str = "test_accuracy") -> float:
        """1.0: the space's best accuracy under these settings is unknown, so regret is the error."""
        if metric not in ("test_accuracy", "valid_accuracy"):
            raise InvalidSettingError(f"live has an optimum of test_accuracy or valid_accuracy only, got {metric!r}")
        return 1.0

    def final_test_accuracy(self, arch) -> float:
        return self.query(arch, self.fidelities[-1]).test_accuracy

    def describe(self) -> Description:
        scale = ", ".join(f"{k}={v}" for k, v in sorted(self.scale.items())) or "full size"
        return Description(
            name=self.name, version=self.version, num_architectures=int(self._space.size),
            fidelities=self.fidelities, trials=1, metrics=self.metrics,
            real=f"everything: each query trains the {self.space_name} network ({scale}) on CIFAR-10 "
                 f"({self.image_size}x{self.image_size}, {self.subset or 'all'} images per class) under protocol "
                 f"{self.protocol.name} with seed {self.seed}; cost_seconds is the measured training time",
            modelled="nothing; regret is measured against 1.0 (test error), the space's optimum being unknown",
            provenance=f"trained on this machine; results stored in {self.folder}",
        )

    def estimate_training(self, rng: np.random.Generator | None = None) -> TrainingEstimate:
        """How long one architecture takes to train at the highest fidelity, before any training:
        a training step (forward and backward pass) of a sampled architecture's network on a few
        images, on the device that would train it, times the images of every epoch. The step is
        run once untimed, then timed ``ESTIMATE_STEPS`` times (:func:`timed_steps`): the estimate
        is their median, which one slow step (the machine busy with something else) does not move,
        with the fastest and slowest beside it. A few seconds on a CPU, whatever the network's
        size; the cost per image of a larger batch is not lower on a CPU, so this is the order of
        the work to show before a long live run."""
        import torch

        from ..training import build_network
        from ..training.device import pick_device

        device = pick_device(self.device)
        arch = self._space.sample(rng if rng is not None else np.random.default_rng(0))
        self._check_fits(arch)
        network = build_network(self.space_name, arch, **self.scale).to(device)
        train_images = len(self._loaded_data().train.labels)  # read (and checked) before any training
        images = torch.zeros(ESTIMATE_BATCH, 3, self.image_size, self.image_size, device=device)
        labels = torch.zeros(ESTIMATE_BATCH, dtype=torch.long, device=device)

        def step() -> None:
            network.zero_grad(set_to_none=True)  # as every training step starts
            output = network(images)
            scores = output[0] if isinstance(output, tuple) else output
            torch.nn.functional.cross_entropy(scores, labels).backward()
            if device.type == "cuda":
                torch.cuda.synchronize(device)

        per_step = np.array(timed_steps(step, ESTIMATE_STEPS)) / ESTIMATE_BATCH * train_images * self.fidelities[-1]
        return TrainingEstimate(seconds=float(np.median(per_step)), epochs=self.fidelities[-1], images=train_images,
                                device=str(device), parameters=sum(p.numel() for p in network.parameters()),
                                low_seconds=float(per_step.min()), high_seconds=float(per_step.max()),
                                steps=ESTIMATE_STEPS)

    # -- the store --------------------------------------------------------------------------------

    def stored(self) -> Iterator[dict]:
        """Every stored entry of these settings: identity, text, fidelity, seed, result, record."""
        folder = self.folder / RESULTS_DIR
        for file in sorted(folder.glob("*.json")) if folder.exists() else ():
            yield _read_entry(file)

    def _key(self, arch, epochs: int) -> str:
        digest = hashlib.sha256(self._space.identity(arch).encode()).hexdigest()[:24]
        return f"{digest}-e{epochs}-s{self.seed}"

    def _stored(self, arch, epochs: int) -> dict | None:
        file = self.folder / RESULTS_DIR / f"{self._key(arch, epochs)}.json"
        return _read_entry(file) if file.exists() else None

    def _claimed_training(self, arch, epochs: int) -> dict:
        """Train under a claim, so that processes sharing the store train each key once: one that
        finds the key claimed by a live process waits for its result (a dead owner's claim is
        taken over, and its checkpoints resumed)."""
        from ..io.claims import claim, release

        key, folder = self._key(arch, epochs), self.folder / TRAINING_DIR
        folder.mkdir(parents=True, exist_ok=True)
        while not claim(folder, key):
            time.sleep(CLAIM_POLL_SECONDS)
            entry = self._stored(arch, epochs)
            if entry is not None:
                return entry
        try:
            return self._stored(arch, epochs) or self._train(arch, epochs)
        finally:
            release(folder, key)

    def _train(self, arch, epochs: int) -> dict:
        from ..training import build_network
        from ..training.loop import seeded_network, train

        self._write_settings()
        key = self._key(arch, epochs)
        self._check_fits(arch)
        network = seeded_network(lambda: build_network(self.space_name, arch, **self.scale), self.seed)
        checkpoints = self.folder / TRAINING_DIR / key
        record = train(network, self._loaded_data(), self.protocol, seed=self.seed, epochs=epochs, out_dir=checkpoints,
                       device=self.device, progress=False)
        entry = {"identity": self._space.identity(arch), "text": self._space.to_text(arch), "fidelity": epochs,
                 "seed": self.seed, "settings_hash": self.settings_hash, "record": record.to_dict()}
        atomic_write_bytes(self.folder / RESULTS_DIR / f"{key}.json", (json.dumps(entry) + "\n").encode())
        shutil.rmtree(checkpoints, ignore_errors=True)  # nasarena's own checkpoints, now in the stored result
        return entry

    def _check_fits(self, arch) -> None:
        """Refuse, before anything is allocated, a scale whose network cannot fit in memory."""
        from ..training.device import pick_device
        from ..training.preflight import check_before_building

        check_before_building(self.space_name, arch, self.scale, self.protocol, pick_device(self.device))

    def _loaded_data(self):
        """The CIFAR-10 splits of these settings, read once per process."""
        if self._data is None:
            from ..training import load_cifar10

            self._data = load_cifar10(self.data_path, image_size=self.image_size, subset=self.subset,
                                      validation_seed=self.validation_seed)
        return self._data

    def _write_settings(self) -> None:
        file = self.folder / SETTINGS_FILE
        if not file.exists():
            atomic_write_bytes(file, (json.dumps(self.settings, indent=1, sort_keys=True) + "\n").encode())

    def _architecture(self, arch):
        if isinstance(arch, str):
            try:
                arch = self._space.from_text(arch)
            except (ValueError, KeyError) as error:
                raise InvalidArchitectureError(f"{self.space_name} architecture {arch[:200]!r} does not parse: "
                                               f"{error}") from None
        reason = self._space.violation(arch)
        if reason is not None:
            raise InvalidArchitectureError(f"the {self.space_name} architecture is outside the space: {reason}")
        return arch

    def _fidelity(self, fidelity) -> int:
        if fidelity is None:
            return self.fidelities[-1]
        if fidelity not in self.fidelities:
            raise InvalidSettingError(f"live fidelity {fidelity!r}: this benchmark trains for "
                                      f"{', '.join(map(str, self.fidelities))} epochs (set fidelities=...)")
        return int(fidelity)


def load(space: str = "nb201", **options) -> LiveBenchmark:
    """The registry's loader (``nasarena.benchmark("live", space=..., ...)``)."""
    return LiveBenchmark(space, **options)


def _result(entry: dict) -> Result:
    record = entry["record"]
    final = record["epochs"][-1]
    return Result(valid_accuracy=final["valid_accuracy"], test_accuracy=final["test_accuracy"],
                  cost_seconds=record["training_seconds"], trainable_parameters=record["parameters"],
                  fidelity=entry["fidelity"], train_accuracy=final["train_accuracy"], trial=entry["seed"])


def _read_entry(file: Path) -> dict:
    try:
        entry = json.loads(file.read_text())
        entry["record"]["epochs"][-1]["valid_accuracy"]  # noqa: B018  (a stored entry has a final epoch)
        return entry
    except (OSError, ValueError, KeyError, IndexError, TypeError) as error:
        raise DataFileError(f"{file} is not a readable live-benchmark result ({error}); move it away and the "
                            "architecture is trained again") from None


def _whole(name: str, value, low: int) -> int:
    try:
        number = int(value) if isinstance(value, str) else value
    except ValueError:
        number = None
    if isinstance(number, bool) or not isinstance(number, int) or number < low:
        raise InvalidSettingError(f"live benchmark option {name}={value!r} must be a whole number >= {low}")
    return number


def _knob(space: str, key: str, value, accepted: dict):
    if key not in accepted:
        raise unknown_name(f"{space} scale knob (or live benchmark option)", key,
                           list(accepted) + ["data", "protocol", "settings", "store", "seed", "image_size", "subset",
                                             "validation_seed", "fidelities", "device"])
    if isinstance(accepted[key], bool):
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            raise InvalidSettingError(f"{space} scale knob {key}={value!r} must be true or false")
        return value
    return _whole(key, value, 1)


def _fidelities(value, default: tuple[int, ...]) -> tuple[int, ...]:
    if value is None:
        return tuple(default)
    parts = value.split(",") if isinstance(value, str) else list(value) if not isinstance(value, int) else [value]
    epochs = tuple(_whole("fidelities", part.strip() if isinstance(part, str) else part, 1) for part in parts)
    if not epochs or list(epochs) != sorted(set(epochs)):
        raise InvalidSettingError(f"live benchmark option fidelities={value!r} must be increasing epochs, e.g. 1,3")
    return epochs
