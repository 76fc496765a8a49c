"""Exact size and cost of the NAS-Bench-201 network built from a cell.

The macro network: a 3x3 conv (3 -> 16, no bias) + BN stem; three stages of 5 cells at 16,
32 and 64 channels, separated by residual reduction blocks (ReLU-conv3x3/2-BN,
ReLU-conv3x3-BN, and a 2x2 average pool + 1x1 conv shortcut); BN + ReLU, global average
pooling and a linear classifier with bias. Every conv is bias-free and every BN is affine
(a scale and a shift per channel), in the cells as elsewhere; ``nor_conv_kxk`` is ReLU-conv-BN
and ``none``, ``skip_connect`` and ``avg_pool_3x3`` have no parameters. Each edge builds its
own op, so the count depends on the number of convs of each size only.

With these conventions the counts equal the benchmark's CIFAR-10 ``params`` for 15,421 of
the 15,625 cells. The benchmark's value is a mean over its training seeds' records, and for
the other 204 cells one or two of the 2 or 3 records carry the count of another cell of the
same equivalence class (:mod:`.canonical`) with a different number of convs, as if records
had been shared within classes. Those values are mostly not integers, and cells with the same
ops (hence the same count under any convention) get different ones, so no count can equal
them; the tests check both the 15,421 and this account of the 204.

FLOPs are multiply-accumulates of one image's forward pass: every conv (``k * k * C_in * C_out``
per output pixel) and the classifier (``C * classes``); BN, ReLU, pooling, additions and
biases are not counted. Inputs are 32x32 (CIFAR) or 16x16 (ImageNet16-120) and every stage
after the first halves the side.
"""

from __future__ import annotations

from .cell import Cell201

STAGE_CHANNELS = (16, 32, 64)
CELLS_PER_STAGE = 5
NUM_CLASSES = {"cifar10": 10, "cifar100": 100, "imagenet16-120": 120}
RESOLUTION = {"cifar10": 32, "cifar100": 32, "imagenet16-120": 16}
_KERNEL = {"nor_conv_3x3": 9, "nor_conv_1x1": 1}
_AFFINE_BN = 2  # parameters per channel of a BN


def _dataset(name: str) -> str:
    """The lower-case key of a dataset (the benchmark writes ``ImageNet16-120``)."""
    key = name.lower()
    if key not in NUM_CLASSES:
        raise ValueError(f"unknown dataset {name!r}; expected one of {', '.join(NUM_CLASSES)}")
    return key


def _as_cell(cell) -> Cell201:
    """A cell given as a :class:`Cell201` or its string (as the NB201 API takes either)."""
    return Cell201.from_string(cell) if isinstance(cell, str) else cell


def trainable_parameters(cell: Cell201 | str, dataset: str = "cifar10") -> int:
    """Number of trainable parameters of the network for ``dataset``'s classifier (``cell``: a
    :class:`Cell201` or its string)."""
    cell = _as_cell(cell)
    classes = NUM_CLASSES[_dataset(dataset)]
    total = 3 * 3 * 3 * STAGE_CHANNELS[0] + _AFFINE_BN * STAGE_CHANNELS[0]  # stem conv + BN
    for stage, channels in enumerate(STAGE_CHANNELS):
        if stage:
            previous = STAGE_CHANNELS[stage - 1]
            total += 9 * previous * channels + _AFFINE_BN * channels  # ReLU-conv3x3 stride 2-BN
            total += 9 * channels * channels + _AFFINE_BN * channels  # ReLU-conv3x3-BN
            total += previous * channels  # shortcut 1x1 conv after the 2x2 average pool
        per_cell = sum(_KERNEL[op] * channels * channels + _AFFINE_BN * channels
                       for op in cell.ops if op in _KERNEL)
        total += CELLS_PER_STAGE * per_cell
    last = STAGE_CHANNELS[-1]
    return total + _AFFINE_BN * last + last * classes + classes  # final BN, classifier weights + bias


def flops(cell: Cell201 | str, dataset: str = "cifar10") -> int:
    """Multiply-accumulates of one forward pass of one image (see the module for what counts);
    ``cell``: a :class:`Cell201` or its string."""
    cell = _as_cell(cell)
    key = _dataset(dataset)
    side = RESOLUTION[key]
    total = 3 * 3 * 3 * STAGE_CHANNELS[0] * side * side
    for stage, channels in enumerate(STAGE_CHANNELS):
        if stage:
            previous = STAGE_CHANNELS[stage - 1]
            side //= 2
            total += (9 * previous * channels + 9 * channels * channels + previous * channels) * side * side
        per_cell = sum(_KERNEL[op] * channels * channels for op in cell.ops if op in _KERNEL)
        total += CELLS_PER_STAGE * per_cell * side * side
    return total + STAGE_CHANNELS[-1] * NUM_CLASSES[key]
