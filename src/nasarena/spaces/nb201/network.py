"""Exact size of the NAS-Bench-201 network built from a cell.

The macro network: a 3x3 conv (3 -> 16) + BN stem; three stages of 5 cells at 16, 32 and 64
channels, separated by residual reduction blocks (ReLU-conv3x3/2-BN, ReLU-conv3x3-BN, and a
2x2 average pool + 1x1 conv shortcut); BN + ReLU, global average pooling and a linear
classifier. Cell convs are ReLU-conv-BN without bias, BN with affine parameters; pooling and
skip connections have no parameters. These counts equal the benchmark's reported parameter
counts for all 15,625 cells (tested against the real CIFAR-10 values).

FLOPs here are multiply-accumulates of the convolutions and the classifier at the dataset's
input resolution (BN, ReLU, pooling and additions are not counted).
"""

from __future__ import annotations

from .cell import Cell201

STAGE_CHANNELS = (16, 32, 64)
CELLS_PER_STAGE = 5
NUM_CLASSES = {"cifar10": 10, "cifar100": 100, "imagenet16-120": 120}
RESOLUTION = {"cifar10": 32, "cifar100": 32, "imagenet16-120": 16}
_KERNEL = {"nor_conv_3x3": 9, "nor_conv_1x1": 1}

def _classes(dataset: str) -> int:
    try:
        return NUM_CLASSES[dataset]
    except KeyError:
        raise ValueError(f"unknown dataset {dataset!r}; expected one of {', '.join(NUM_CLASSES)}") from None

def trainable_parameters(cell: Cell201, dataset: str = "cifar10") -> int:
    classes = _classes(dataset)
    total = 3 * 3 * 3 * STAGE_CHANNELS[0] + 2 * STAGE_CHANNELS[0]  # stem conv + BN
    for stage, channels in enumerate(STAGE_CHANNELS):
        if stage:
            previous = STAGE_CHANNELS[stage - 1]
            total += 9 * previous * channels + 2 * channels  # ReLU-conv3x3 stride 2-BN
            total += 9 * channels * channels + 2 * channels  # ReLU-conv3x3-BN
            total += previous * channels  # shortcut 1x1 conv after the 2x2 average pool
        per_cell = sum(_KERNEL[op] * channels * channels + 2 * channels for op in cell.ops if op in _KERNEL)
        total += CELLS_PER_STAGE * per_cell
    last = STAGE_CHANNELS[-1]
    return total + 2 * last + last * classes + classes  # final BN, classifier

def flops(cell: Cell201, dataset: str = "cifar10") -> int:
    """Multiply-accumulates of one forward pass of one image."""
    classes = _classes(dataset)
    side = RESOLUTION[dataset]
    total = 3 * 3 * 3 * STAGE_CHANNELS[0] * side * side
    for stage, channels in enumerate(STAGE_CHANNELS):
        if stage:
            previous = STAGE_CHANNELS[stage - 1]
            side //= 2
            total += (9 * previous * channels + 9 * channels * channels + previous * channels) * side * side
        per_cell = sum(_KERNEL[op] * channels * channels for op in cell.ops if op in _KERNEL)
        total += CELLS_PER_STAGE * per_cell * side * side
    return total + STAGE_CHANNELS[-1] * classes
