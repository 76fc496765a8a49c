"""Exact trainable-parameter count of the NAS-Bench-101 network (paper Sec. 2.1, 2.3).

The network: a 3x3 conv-BN-ReLU stem (3 -> 128 channels), then 3 stacks of 3 modules (cells);
before stacks 2 and 3 a 2x2 max-pool halves the resolution and the channel count doubles (the
first module of a stack maps the old width to the new one); global average pooling; a dense
layer to the classes. Convolutions have no bias; batch norm has gamma and beta. Inside a
module the vertex channel counts follow the original ``compute_vertex_channels``.
"""

from __future__ import annotations

from .cell import CONV1X1, CONV3X3, Cell

_KERNEL_AREA = {CONV3X3: 9, CONV1X1: 1}


def vertex_channels(input_channels: int, output_channels: int, matrix) -> list[int]:
    """Channels of every vertex of a pruned module, as the original ``compute_vertex_channels``.

    The output's interior in-degree k splits ``output_channels``: each vertex feeding the
    output gets ``output_channels // k``, the first ``output_channels % k`` of them one more;
    then, from the back, a vertex not feeding the output takes the max over its interior
    successors.
    """
    n = len(matrix)
    channels = [0] * n
    channels[0] = input_channels
    channels[-1] = output_channels
    if n == 2:
        return channels
    feeding_output = [v for v in range(1, n - 1) if matrix[v][n - 1]]
    share, remainder = divmod(output_channels, len(feeding_output))
    for position, v in enumerate(feeding_output):
        channels[v] = share + (1 if position < remainder else 0)
    for v in range(n - 3, 0, -1):
        if not matrix[v][n - 1]:
            channels[v] = max([channels[v]] + [channels[w] for w in range(v + 1, n - 1) if matrix[v][w]])
    return channels


def _conv_bn(in_channels: int, out_channels: int, kernel_area: int) -> int:
    return kernel_area * in_channels * out_channels + 2 * out_channels


def module_parameters(matrix, ops, input_channels: int, output_channels: int) -> int:
    """Trainable parameters of one module (cell) mapping ``input_channels`` to ``output_channels``."""
    n = len(matrix)
    channels = vertex_channels(input_channels, output_channels, matrix)
    total = 0
    for v in range(1, n - 1):
        if matrix[0][v]:  # the input is projected by a 1x1 conv-BN-ReLU to the vertex width
            total += _conv_bn(input_channels, channels[v], 1)
        if ops[v] in _KERNEL_AREA:
            total += _conv_bn(channels[v], channels[v], _KERNEL_AREA[ops[v]])
    if matrix[0][n - 1]:
        total += _conv_bn(input_channels, output_channels, 1)
    return total


def trainable_parameters(
    cell: Cell, stem_channels: int = 128, num_stacks: int = 3, modules_per_stack: int = 3, num_classes: int = 10
) -> int:
    """Exact trainable-parameter count of the full network built from a valid ``cell``."""
    if not cell.is_valid:
        raise ValueError(f"invalid cell has no network: {cell.reason}")
    total = _conv_bn(3, stem_channels, 9)
    in_channels = channels = stem_channels
    for stack in range(num_stacks):
        if stack > 0:
            channels *= 2
        for _ in range(modules_per_stack):
            total += module_parameters(cell.matrix, cell.ops, in_channels, channels)
            in_channels = channels
    return total + channels * num_classes + num_classes
