"""The shared bilevel search loop of every one-shot optimizer (NAS-Bench-1Shot1, Sec. 4).

One base class does everything the optimizers share: the supernet, the data, the weight step
(SGD with cosine annealing and gradient clipping on a training batch), an architecture step on
a validation batch before each weight step, and after every epoch the discretised
architecture, its NB101 lookup, the epoch's record, the architecture weights and a checkpoint.
Subclasses (:mod:`.optimizers`) override a few hooks, the paper's point that the optimizers
differ in a few lines (Algorithms 1-5):

- :meth:`OneShotSearch.training_path`: how the weight step weights or samples the supernet;
- :meth:`OneShotSearch.architecture_step`: the architecture update (none for Random-WS);
- :meth:`OneShotSearch.final_architecture`: the architecture the optimizer returns now;
- :meth:`OneShotSearch.validation_path`: what the one-shot validation error measures.

One-shot errors are measured by the one supernet scorer (:mod:`.scoring`), which ``nasarena
oneshot correlate`` uses too: batch statistics in the batch norms (training mode, no gradient),
as the shared running statistics belong to no single sub-network. Batch statistics make the
composition of a batch matter, so the fixed validation batches (the epoch's one-shot
error, Random-WS's and ENAS's screening, the correlation scores) come from one seeded, class-mixed
order of the split (:func:`fixed_validation_batches`): the split is stored ordered by class (a JPEG
source is read class by class), and batches in stored order would each hold one class, whose batch
statistics erase what tells the classes apart (a one-shot error near chance however well the
supernet fits).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import ClassVar

import torch
from torch import nn

from ..spaces.oneshot import OneShotArch
from ..training.data import Cifar10, batches
from .lookup import Nb101Lookup
from .records import SearchEpochRecord
from .scoring import Batch, one_shot_accuracy
from .settings import SearchSettings
from .supernet import PathWeights, Supernet

#: Seed of the one fixed order of the validation split that every fixed validation batch is cut from.
FIXED_ORDER_SEED = 0


def fixed_validation_batches(data: Cifar10, batch_size: int, limit: int | None = None) -> list[Batch]:
    """The first ``limit`` (default: all) batches of the validation split in a fixed class-mixed
    order (a permutation seeded by :data:`FIXED_ORDER_SEED`, the same on every machine and call),
    normalised, not augmented, on the CPU. The split itself is ordered by class, and the supernet
    measures with batch statistics: see the module docstring."""
    out: list[Batch] = []
    order = torch.Generator().manual_seed(FIXED_ORDER_SEED)
    for images, labels in batches(data.valid, batch_size, augment=False, generator=order, mean=data.mean,
                                  std=data.std):
        if limit is not None and len(out) >= limit:
            break
        out.append((images, labels))
    return out


class OneShotSearch:
    """One search: a supernet, its optimizers and the state of the hooks; :meth:`run_epoch` advances
    it. It is the epoch step of the one epoch driver (:class:`nasarena.training.epochs.EpochStep`)."""

    name: ClassVar[str]
    #: Whether the architecture step needs a validation batch per weight step.
    uses_validation_batches: ClassVar[bool] = True

    def __init__(self, settings: SearchSettings, data: Cifar10, lookup: Nb101Lookup, seed: int,
                 device: torch.device | str = "cpu"):
        self.settings = settings
        self.data = data
        self.lookup = lookup
        self.seed = seed
        self.device = torch.device(device)
        self.space = lookup.space
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.supernet = self.build_supernet().to(self.device)
        self.data_generator = torch.Generator().manual_seed(seed)
        self.valid_generator = torch.Generator().manual_seed(seed + 10_007)
        self.sampler = torch.Generator().manual_seed(seed + 20_011)  # arch samples, Gumbel noise, controller
        self.weight_optimizer = torch.optim.SGD(self.supernet.parameters(), lr=settings.learning_rate,
                                                momentum=settings.momentum, weight_decay=settings.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.weight_optimizer, T_max=settings.epochs,
                                                                    eta_min=settings.learning_rate_min)
        self.loss = nn.CrossEntropyLoss()
        self.setup()

    # --- hooks ---------------------------------------------------------------------------
    def build_supernet(self) -> Supernet:
        s = self.settings
        return Supernet(self.space, s.channels, s.stacks, s.cells_per_stack)

    def setup(self) -> None:
        """Create the optimizer's own state (architecture weights, a controller, ...)."""

    def training_path(self, epoch: int) -> PathWeights:
        """The weighting of the supernet for one weight step (no gradient to architecture weights)."""
        raise NotImplementedError

    def architecture_step(self, epoch: int, train: Batch, valid: Batch | None) -> None:
        """Update the architecture (weights or controller) once, before a weight step."""

    def final_architecture(self, epoch: int) -> OneShotArch:
        """The discrete architecture the optimizer would return after ``epoch``."""
        raise NotImplementedError

    def validation_path(self, epoch: int, arch: OneShotArch) -> PathWeights:
        """The weighting whose validation error is the epoch's one-shot validation error."""
        return PathWeights.of_architecture(arch, self.device)

    def architecture_weights(self) -> dict[str, object] | None:
        """alpha, beta and gamma as numpy arrays, or None for optimizers without them."""
        return None

    def extra_state(self) -> dict:
        """The hooks' state for the checkpoint (modules, optimizers, numbers)."""
        return {}

    def load_extra_state(self, state: dict) -> None:
        """Restore :meth:`extra_state`."""

    # --- the shared loop -----------------------------------------------------------------
    def run_epoch(self, epoch: int) -> SearchEpochRecord:
        """Train one epoch (``epoch`` counts from 0), choose the architecture and look it up."""
        s = self.settings
        start = time.perf_counter()
        self.supernet.train()
        valid_stream = self._validation_stream() if self.uses_validation_batches else None
        learning_rate = self.weight_optimizer.param_groups[0]["lr"]
        wrong = seen = 0
        loss_sum = 0.0
        for images, labels in batches(self.data.train, s.batch_size, augment=s.augment, generator=self.data_generator,
                                      mean=self.data.mean, std=self.data.std, cutout=s.cutout):
            train = (images.to(self.device), labels.to(self.device))
            valid = next(valid_stream) if valid_stream is not None else None
            loss, errors = self.train_step(epoch, train, valid)
            wrong += errors
            seen += len(train[1])
            loss_sum += loss * len(train[1])
        self.scheduler.step()
        search_seconds = time.perf_counter() - start
        arch = self.final_architecture(epoch)
        valid_error = 1.0 - one_shot_accuracy(self.supernet, self.validation_path(epoch, arch),
                                              self.validation_batches())
        found = self.lookup.look_up(arch)
        return SearchEpochRecord(
            epoch=epoch + 1, optimizer=self.name, space=self.space, seed=self.seed,
            train_error=wrong / seen, train_loss=loss_sum / seen, valid_error=valid_error,
            architecture=arch.to_string(), nb101_hash=found.nb101_hash,
            nb101_valid_accuracy=found.valid_accuracy, nb101_test_accuracy=found.test_accuracy,
            test_regret=found.test_regret, learning_rate=learning_rate, search_seconds=search_seconds,
            seconds=time.perf_counter() - start,
        )

    def train_step(self, epoch: int, train: Batch, valid: Batch | None) -> tuple[float, int]:
        """One architecture step and one weight step; the training batch's loss and number of errors."""
        self.architecture_step(epoch, train, valid)
        path = self.training_path(epoch)
        self.weight_optimizer.zero_grad(set_to_none=True)
        logits = self.supernet(train[0], path)
        loss = self.loss(logits, train[1])
        loss.backward()
        nn.utils.clip_grad_norm_(self.supernet.parameters(), self.settings.grad_clip)
        self.weight_optimizer.step()
        return loss.item(), int((logits.argmax(1) != train[1]).sum())

    def _validation_stream(self) -> Iterator[Batch]:
        """Shuffled validation batches for the architecture steps, cycling as long as needed."""
        s = self.settings
        while True:
            for images, labels in batches(self.data.valid, s.batch_size, augment=False,
                                          generator=self.valid_generator, mean=self.data.mean, std=self.data.std):
                yield images.to(self.device), labels.to(self.device)

    def validation_batches(self, limit: int | None = None) -> list[Batch]:
        """The first ``limit`` fixed validation batches (:func:`fixed_validation_batches`), on the device."""
        return [(images.to(self.device), labels.to(self.device))
                for images, labels in fixed_validation_batches(self.data, self.settings.batch_size, limit)]

    def best_of(self, archs: list[OneShotArch], finalists: int) -> OneShotArch:
        """Random-WS's and ENAS's choice: score ``archs`` on the first ``screen_batches`` validation
        batches, then the best ``finalists`` on the whole validation split; the best (first on ties)."""
        screen = self.validation_batches(self.settings.screen_batches)
        scores = [one_shot_accuracy(self.supernet, PathWeights.of_architecture(a, self.device), screen)
                  for a in archs]
        order = sorted(range(len(archs)), key=lambda i: -scores[i])[:finalists]
        if finalists == 1:
            return archs[order[0]]
        whole = self.validation_batches()
        final = [one_shot_accuracy(self.supernet, PathWeights.of_architecture(archs[i], self.device), whole)
                 for i in order]
        return archs[order[max(range(len(order)), key=lambda i: final[i])]]

    # --- checkpoints ---------------------------------------------------------------------
    def state_dict(self) -> dict:
        return {
            "supernet": self.supernet.state_dict(),
            "weight_optimizer": self.weight_optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "data_generator": self.data_generator.get_state(),
            "valid_generator": self.valid_generator.get_state(),
            "sampler": self.sampler.get_state(),
            "extra": self.extra_state(),
        }

    def load_state_dict(self, state: dict) -> None:
        self.supernet.load_state_dict(state["supernet"])
        self.weight_optimizer.load_state_dict(state["weight_optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.data_generator.set_state(state["data_generator"])
        self.valid_generator.set_state(state["valid_generator"])
        self.sampler.set_state(state["sampler"])
        self.load_extra_state(state["extra"])


