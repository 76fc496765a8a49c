"""The training loop every protocol shares: records per epoch, checkpoints, exact resume.

:func:`train` trains a built network on a :class:`~nasarena.training.data.Cifar10` under a
:class:`~nasarena.training.protocols.Protocol` and returns a :class:`TrainingRecord`.

Determinism: every random stream of epoch ``e`` (the batch order and augmentation, the global
torch stream that drop path uses, mixup's mixing weights) is seeded from ``(seed, e)``, and the
caller's global random state is restored afterwards. The same seed therefore gives identical
numbers on a CPU, and a run resumed from the checkpoint after epoch ``e`` continues exactly as
the uninterrupted run would. On a GPU, ``deterministic=True`` also asks torch and cuDNN for
deterministic kernels (slower); with ``False`` cuDNN may pick faster, non-deterministic ones.

Train accuracy and loss are the running values over the epoch's (augmented) training batches,
measured during training rather than in an extra pass; validation and test are evaluated after
every epoch without augmentation, in evaluation mode.

The epochs themselves run in the one epoch driver (:func:`~.epochs.run_epochs`), which the
one-shot search shares: this module supplies the plain epoch (:class:`_PlainEpoch`) and the run
folder's files (:class:`_RunFolder`: ``checkpoint.pt`` and ``record.json``).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import InvalidSettingError
from ..io.files import atomic_write_bytes
from ..io.outputs import own_folder
from .checkpoint import CHECKPOINT_FILE, Checkpoint, load_checkpoint
from .device import pick_device
from .epochs import EpochRecord, run_epochs
from .optim import TFRMSprop
from .preflight import check_network
from .protocols import Protocol

RECORD_FILE = "record.json"
EVAL_BATCH_SIZE = 500


@dataclass(frozen=True)
class TrainingEpochRecord(EpochRecord):
    """Measurements after one epoch of training (accuracies are fractions in [0, 1])."""

    learning_rate: float
    train_loss: float
    train_accuracy: float
    valid_loss: float
    valid_accuracy: float
    test_loss: float
    test_accuracy: float
    wall_seconds: float
    train_seconds: float
    images_per_second: float


@dataclass(frozen=True)
class TrainingRecord:
    """A training run: its settings, one record per finished epoch and the final figures.

    ``training_seconds`` is the measured wall time of all epochs (training and evaluation),
    summed over resumed parts; ``complete`` says whether all ``budget`` epochs ran.
    """

    budget: int
    seed: int
    protocol: dict
    network: dict
    data: dict
    device: str
    parameters: int
    flops: int
    training_seconds: float
    epochs: tuple[TrainingEpochRecord, ...] = field(default_factory=tuple)

    @property
    def complete(self) -> bool:
        return len(self.epochs) == self.budget

    @property
    def final(self) -> TrainingEpochRecord:
        return self.epochs[-1]

    @property
    def halfway(self) -> TrainingEpochRecord | None:
        """The record at half the budget (NB101's halfway evaluation), if it was reached."""
        half = max(1, self.budget // 2)
        return self.epochs[half - 1] if len(self.epochs) >= half else None

    def to_dict(self) -> dict:
        values = asdict(self)
        values["epochs"] = [asdict(e) for e in self.epochs]
        values["complete"] = self.complete
        return values

    @classmethod
    def from_dict(cls, values: dict) -> TrainingRecord:
        values = {k: v for k, v in values.items() if k != "complete"}
        values["epochs"] = tuple(TrainingEpochRecord.from_dict(e) for e in values["epochs"])
        return cls(**values)


def seeded_network(build, seed: int):
    """Call ``build()`` with torch's global stream seeded by ``seed`` (the caller's state is
    restored): the initial weights of a run are a function of its seed."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(_derived_seed(seed, "init"))
        return build()


def train(
    network: torch.nn.Module,
    data,
    protocol: Protocol,
    *,
    seed: int,
    epochs: int | None = None,
    out_dir: Path | None = None,
    device: str | torch.device | None = None,
    deterministic: bool = True,
    progress: bool | None = None,
    stop_after_epoch: int | None = None,
) -> TrainingRecord:
    """Train ``network`` for ``epochs`` (default: the protocol's) and return its records.

    With ``out_dir`` a checkpoint is written after every epoch and a run with the same
    settings resumes from it (a finished run returns its record at once); a checkpoint made
    with other settings is refused and kept, and so is a folder that is not this run's (see
    :class:`_RunFolder`). A network that does not classify CIFAR-10's classes, or whose
    training cannot fit in the device's memory, is refused before training
    (:mod:`~nasarena.training.preflight`). ``stop_after_epoch`` stops early (after writing
    that epoch's checkpoint) while keeping the schedule of the full budget: what a kill after
    that epoch leaves behind. ``progress``: a progress bar on stderr (default: when stderr is
    a terminal).
    """
    budget = protocol.epochs if epochs is None else epochs
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidSettingError(f"epochs={budget!r} is not accepted; epochs must be a whole number >= 1")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise InvalidSettingError(f"seed={seed!r} is not accepted; a seed is a whole number >= 0")
    target = budget if stop_after_epoch is None else min(budget, stop_after_epoch)
    device = pick_device(device if isinstance(device, str) or device is None else str(device))
    settings = _settings(network, data, protocol, budget, seed)
    parameters = sum(p.numel() for p in network.parameters() if p.requires_grad)
    flops = _flops(network, data.image_size)
    check_network(network, data.image_size, protocol, device)
    out_dir = None if out_dir is None else Path(out_dir)
    folder = None if out_dir is None else _RunFolder(out_dir, settings)
    if protocol.batch_norm_momentum is not None:
        for module in network.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                module.momentum = protocol.batch_norm_momentum
    network.to(device)
    described = TrainingRecord(budget=budget, seed=seed, protocol=protocol.to_dict(), network=settings["network"],
                               data=settings["data"], device=str(device), parameters=parameters, flops=flops,
                               training_seconds=0.0)
    step = _PlainEpoch(network, _optimizer(network, protocol), data, protocol, described, device)
    done = 0 if folder is None or folder.checkpoint is None else len(folder.checkpoint.records)
    with _determinism(deterministic, device), _progress_bar(progress, target, done,
                                                            len(data.train.labels)) as step.bar:
        records = run_epochs(step, target, folder)
    return step.training_record(records)


class _PlainEpoch:
    """The training loop's epoch for :func:`~.epochs.run_epochs`: one pass over the training
    set, then validation and test. Its state is the model's, the optimizer's and the measured
    training time; the random streams are derived from the seed and the epoch."""

    def __init__(self, network, optimizer, data, protocol: Protocol, described: TrainingRecord, device):
        self.network, self.optimizer, self.data, self.protocol = network, optimizer, data, protocol
        self.described, self.device = described, device
        self.spent = 0.0
        self.bar = None

    def run_epoch(self, epoch: int) -> TrainingEpochRecord:
        record = _train_epoch(self.network, self.optimizer, self.data, self.protocol, self.described.seed, epoch,
                              self.described.budget, self.device, self.bar)
        self.spent += record.wall_seconds
        return record

    def state_dict(self) -> dict:
        return {"model": self.network.state_dict(), "optimizer": self.optimizer.state_dict(),
                "training_seconds": self.spent}

    def load_state_dict(self, state: dict) -> None:
        self.network.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.spent = state["training_seconds"]

    def training_record(self, records: Sequence[TrainingEpochRecord]) -> TrainingRecord:
        """The run's record after ``records``: the settings, the epochs and the time spent."""
        return replace(self.described, training_seconds=self.spent, epochs=tuple(records))


class _RunFolder:
    """The output folder of one training run for :func:`~.epochs.run_epochs`: ``checkpoint.pt``
    (:mod:`.checkpoint`) and ``record.json``, written after every epoch in that order.

    It is taken before the first epoch. The checkpoint is read first, so that a folder of another
    run is refused naming the settings that differ, and a run folder of a nasarena from before
    output marks (a checkpoint, no mark) is marked only when it is this run's:
    :func:`~nasarena.io.outputs.own_folder` recognises it by its checkpoint. ``own_folder`` then
    refuses a file, a folder of files nasarena did not write (their ``record.json`` is never
    replaced), another command's folder, and another run's while it has no checkpoint yet (two
    runs started at once), and proves the folder writable, so none of these fails after an epoch
    of training.
    """

    def __init__(self, out_dir: Path, settings: dict):
        self.out_dir, self.settings = out_dir, settings
        self.checkpoint = load_checkpoint(out_dir, settings)
        own_folder(out_dir, "train", settings, recognised=[CHECKPOINT_FILE])

    def resume(self, step: _PlainEpoch) -> list[TrainingEpochRecord]:
        """The checkpoint's epochs, ``step`` put back to them; ``record.json`` is written again from
        the checkpoint, as a kill between the two files may have left the previous one behind."""
        if self.checkpoint is None:
            return []
        step.load_state_dict({"model": self.checkpoint.model, "optimizer": self.checkpoint.optimizer,
                              "training_seconds": self.checkpoint.training_seconds})
        records = [TrainingEpochRecord.from_dict(r) for r in self.checkpoint.records]
        self._write_record(step, records)
        return records

    def save(self, step: _PlainEpoch, records: Sequence[TrainingEpochRecord]) -> None:
        state = step.state_dict()
        Checkpoint(settings=self.settings, epoch=len(records), model=state["model"], optimizer=state["optimizer"],
                   records=[r.to_dict() for r in records], training_seconds=state["training_seconds"]
                   ).save(self.out_dir)
        self._write_record(step, records)

    def _write_record(self, step: _PlainEpoch, records: Sequence[TrainingEpochRecord]) -> None:
        text = json.dumps(step.training_record(records).to_dict(), indent=1) + "\n"
        atomic_write_bytes(self.out_dir / RECORD_FILE, text.encode())


def _train_epoch(network, optimizer, data, protocol: Protocol, seed: int, epoch: int, budget: int, device,
                 bar) -> TrainingEpochRecord:
    from .data import batches

    start = time.perf_counter()
    generator = torch.Generator().manual_seed(_derived_seed(seed, "data", epoch))
    mixing = np.random.default_rng([seed, epoch, 2])
    steps = _steps_per_epoch(len(data.train.labels), protocol.batch_size)
    if hasattr(network, "drop_path_prob"):
        network.drop_path_prob = protocol.drop_path * epoch / budget  # DARTS: linear ramp over the epochs
    loss_sum, correct, seen = 0.0, 0, 0
    learning_rate = protocol.learning_rate
    with torch.random.fork_rng(devices=_cuda_devices(device)):
        torch.manual_seed(_derived_seed(seed, "noise", epoch))
        network.train()
        for step, (images, labels) in enumerate(batches(data.train, protocol.batch_size, augment=True,
                                                        cutout=protocol.cutout, generator=generator,
                                                        mean=data.mean, std=data.std)):
            learning_rate = protocol.learning_rate_at(epoch, step, steps, budget)
            for group in optimizer.param_groups:
                group["lr"] = learning_rate
            images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
            loss, logits = _loss(network, images, labels, protocol, mixing, generator)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if protocol.grad_clip:
                torch.nn.utils.clip_grad_norm_(network.parameters(), protocol.grad_clip)
            optimizer.step()
            loss_value = float(loss.detach())
            if not math.isfinite(loss_value):
                raise FloatingPointError(f"the training loss became {loss_value} in epoch {epoch + 1}, step {step + 1}")
            loss_sum += loss_value * len(labels)
            correct += int((logits.detach().argmax(1) == labels).sum())
            seen += len(labels)
            if bar is not None:
                bar.advance(len(labels))
    train_seconds = time.perf_counter() - start
    valid_loss, valid_accuracy = evaluate(network, data.valid, data, device)
    test_loss, test_accuracy = evaluate(network, data.test, data, device)
    wall = time.perf_counter() - start
    return TrainingEpochRecord(epoch=epoch + 1, learning_rate=learning_rate, train_loss=loss_sum / max(1, seen),
                       train_accuracy=correct / max(1, seen), valid_loss=valid_loss, valid_accuracy=valid_accuracy,
                       test_loss=test_loss, test_accuracy=test_accuracy, wall_seconds=wall,
                       train_seconds=train_seconds, images_per_second=seen / max(train_seconds, 1e-9))


def _loss(network, images, labels, protocol: Protocol, mixing: np.random.Generator, generator: torch.Generator):
    """The training loss of one batch (cross-entropy, optional mixup, auxiliary head, smoothing)."""
    partner, weight = None, 1.0
    if protocol.mixup_alpha > 0:
        weight = float(mixing.beta(protocol.mixup_alpha, protocol.mixup_alpha))
        order = torch.randperm(len(labels), generator=generator).to(images.device)
        images = weight * images + (1.0 - weight) * images[order]
        partner = labels[order]
    outputs = network(images)
    logits, auxiliary = outputs if isinstance(outputs, tuple) else (outputs, None)

    def criterion(scores):
        loss = F.cross_entropy(scores, labels, label_smoothing=protocol.label_smoothing)
        if partner is not None:
            loss = weight * loss + (1.0 - weight) * F.cross_entropy(scores, partner,
                                                                    label_smoothing=protocol.label_smoothing)
        return loss

    loss = criterion(logits)
    if auxiliary is not None and protocol.auxiliary_weight:
        loss = loss + protocol.auxiliary_weight * criterion(auxiliary)
    return loss, logits


@torch.no_grad()
def evaluate(network, split, data, device) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of ``network`` on ``split`` (evaluation mode, no augmentation)."""
    from .data import batches

    if len(split.labels) == 0:
        return float("nan"), float("nan")
    network.eval()
    loss_sum, correct = 0.0, 0
    for images, labels in batches(split, EVAL_BATCH_SIZE, augment=False, generator=None, mean=data.mean,
                                  std=data.std):
        images, labels = images.to(device), labels.to(device)
        outputs = network(images)
        logits = outputs[0] if isinstance(outputs, tuple) else outputs
        loss_sum += float(F.cross_entropy(logits, labels, reduction="sum"))
        correct += int((logits.argmax(1) == labels).sum())
    return loss_sum / len(split.labels), correct / len(split.labels)


def _optimizer(network, protocol: Protocol) -> torch.optim.Optimizer:
    parameters = [p for p in network.parameters() if p.requires_grad]
    if protocol.optimizer == "rmsprop_tf":
        return TFRMSprop(parameters, lr=protocol.learning_rate, decay=protocol.rmsprop_decay,
                         momentum=protocol.momentum, epsilon=protocol.rmsprop_epsilon,
                         weight_decay=protocol.weight_decay)
    return torch.optim.SGD(parameters, lr=protocol.learning_rate, momentum=protocol.momentum,
                           nesterov=protocol.nesterov and protocol.momentum > 0, weight_decay=protocol.weight_decay)


def _settings(network, data, protocol: Protocol, budget: int, seed: int) -> dict:
    """What the checkpoint's fingerprint covers: protocol, budget, seed, network and data.

    The network is identified by its class, scale, architecture text (where it has them),
    parameter count and a digest of its initial weights, so a checkpoint of another
    architecture or initialisation is never resumed.
    """
    digest = hashlib.sha256()
    for name, tensor in sorted(network.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    scale = getattr(network, "scale", None)
    described = {
        "class": type(network).__name__,
        "scale": scale.to_dict() if hasattr(scale, "to_dict") else None,
        "arch": getattr(network, "arch_text", None),
        "parameters": sum(p.numel() for p in network.parameters() if p.requires_grad),
        "initial_weights_sha256": digest.hexdigest()[:16],
    }
    data_described = {
        "source": str(data.source), "image_size": data.image_size, "subset": data.subset,
        "sizes": [len(data.train.labels), len(data.valid.labels), len(data.test.labels)],
    }
    settings = {"protocol": protocol.to_dict(), "budget": budget, "seed": seed, "network": described,
                "data": data_described}
    return json.loads(json.dumps(settings, default=str))


def _flops(network, image_size: int) -> int:
    """Multiply-adds of one forward pass of one image, counted on a copy (the network's batch
    norm statistics stay untouched)."""
    from .networks import count_flops

    return int(count_flops(copy.deepcopy(network).cpu(), image_size))


def _steps_per_epoch(images: int, batch_size: int) -> int:
    return max(1, math.ceil(images / batch_size))


def _derived_seed(seed: int, purpose: str, epoch: int = 0) -> int:
    """A 63-bit seed for one random stream of one epoch."""
    text = f"{seed}:{purpose}:{epoch}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little") >> 1


def _cuda_devices(device: torch.device) -> list[int]:
    if device.type != "cuda":
        return []
    return [device.index if device.index is not None else torch.cuda.current_device()]


@contextlib.contextmanager
def _determinism(deterministic: bool, device: torch.device):
    """Deterministic kernels on a GPU while training (restored afterwards); CPUs are deterministic."""
    if device.type != "cuda":
        yield
        return
    previous = (torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.deterministic,
                torch.backends.cudnn.benchmark)
    if deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(deterministic, warn_only=True)
    torch.backends.cudnn.deterministic = deterministic
    torch.backends.cudnn.benchmark = not deterministic
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(previous[0])
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = previous[1], previous[2]


class _Bar:
    """A Rich progress bar over all training images of the run, with images/s and ETA."""

    def __init__(self, progress, task):
        self._progress, self._task = progress, task

    def advance(self, images: int) -> None:
        self._progress.advance(self._task, images)


@contextlib.contextmanager
def _progress_bar(enabled: bool | None, epochs: int, done: int, images_per_epoch: int):
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled or done >= epochs:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        ProgressColumn,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class ImagesPerSecond(ProgressColumn):
        def render(self, task):
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:,.0f} images/s")

    columns = (TextColumn("training"), BarColumn(), TaskProgressColumn(), ImagesPerSecond(), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task("training", total=epochs * images_per_epoch, completed=done * images_per_epoch)
        yield _Bar(progress, task)
