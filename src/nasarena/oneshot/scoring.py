"""The one supernet scorer: how well an architecture classifies under the supernet's shared weights.

Every one-shot number of nasarena comes from here: the search's one-shot validation error of an
epoch (:meth:`.search.OneShotSearch.run_epoch`), Random-WS's and ENAS's screening of candidates
and ENAS's reward (:mod:`.optimizers`), and the scores of ``nasarena oneshot correlate``
(:func:`.correlation.score_task`). So the validation error a run records and the score
``correlate`` gives the same architecture on the same batches of that epoch's supernet are one
number.

Batch norm, the one treatment: **batch statistics**. The supernet is put in training mode and
run without gradient, so every batch norm normalises with the statistics of the batch it sees.
The running statistics are shared by all sub-networks, belong to none of them, and move at
NB101's momentum of 0.003, so they would describe no architecture (and stay near their initial
values for many epochs). Neither the NAS-Bench-1Shot1 paper nor the supernet-evaluation paper
says how they treat batch norm when scoring; batch statistics are what this package has measured
with since its first one-shot search (the choice the search module documents). Batch statistics make the composition of a batch matter, hence the fixed class-mixed validation
batches (:func:`.search.fixed_validation_batches`).

The running statistics are left to the network's own momentum: a forward in training mode moves
them as any training step does. Nothing reads them (no supernet is ever put in evaluation mode),
so this changes no score: ``correlate`` used to set the momentum to 0 on its private copy of a
supernet and the search did not, and both gave the same numbers, because in training mode the
output does not depend on the momentum. Leaving it alone keeps the search's checkpoints and kept
supernets byte for byte what they were.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .supernet import PathWeights, Supernet

Batch = tuple[torch.Tensor, torch.Tensor]


@torch.no_grad()
def correct_predictions(supernet: Supernet, path: PathWeights, batches: Sequence[Batch]) -> torch.Tensor:
    """How many images of ``batches`` the supernet under ``path`` classifies correctly, with batch
    statistics (see the module docstring): a 0-dimensional tensor on the supernet's device, so
    that scoring many architectures on a GPU does not wait for each count."""
    supernet.train()
    return sum(((supernet(images, path).argmax(1) == labels).sum() for images, labels in batches),
               torch.zeros((), dtype=torch.int64, device=supernet.classifier.weight.device))


def one_shot_accuracy(supernet: Supernet, path: PathWeights, batches: Sequence[Batch]) -> float:
    """The fraction of ``batches`` the supernet under ``path`` classifies correctly (batch statistics)."""
    return int(correct_predictions(supernet, path, batches)) / sum(len(labels) for _, labels in batches)
