"""The NAS-Bench-101 building blocks (Ying et al. 2019, Sec. 2.1; the original ``base_ops``).

Shared by the NB101 network (:mod:`.nb101`) and the NAS-Bench-1Shot1 supernet, so both use
exactly the benchmark's conventions:

- convolutions have no bias and "same" padding;
- batch norm uses the original's TensorFlow settings, momentum 0.997 and epsilon 1e-5. TF's
  momentum is the weight of the *old* running statistic, torch's that of the *new* batch
  statistic, so torch's momentum is ``1 - 0.997 = 0.003``;
- max pooling inside a cell is 3x3 with stride 1 and padding 1, so it keeps the size;
- a projection (input vertex -> a vertex of another width) is a 1x1 conv-BN-ReLU.
"""

from __future__ import annotations

from torch import nn

from ...errors import unknown_name

#: TensorFlow's batch-norm momentum in the original code and its torch equivalent.
TF_BN_MOMENTUM = 0.997
BN_MOMENTUM = 1.0 - TF_BN_MOMENTUM
BN_EPSILON = 1e-5


def batch_norm(channels: int) -> nn.BatchNorm2d:
    """A batch norm in NB101's convention (affine: a scale and a shift per channel)."""
    return nn.BatchNorm2d(channels, eps=BN_EPSILON, momentum=BN_MOMENTUM)


class ConvBnRelu(nn.Sequential):
    """Conv (no bias, "same" padding) -> batch norm -> ReLU, the original ``conv_bn_relu``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__(
            nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=False),
            batch_norm(out_channels),
            nn.ReLU(inplace=False),
        )


class MaxPool3x3(nn.MaxPool2d):
    """3x3 max pooling with stride 1 and padding 1 (the cell's size-keeping ``maxpool3x3``)."""

    def __init__(self):
        super().__init__(kernel_size=3, stride=1, padding=1)


class Projection(ConvBnRelu):
    """The 1x1 conv-BN-ReLU that maps the cell's input to a vertex's (or the output's) width."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__(in_channels, out_channels, 1)


#: The cell's interior ops by NB101 name; each maps a vertex's width to the same width.
NB101_OPS = {
    "conv3x3-bn-relu": lambda channels: ConvBnRelu(channels, channels, 3),
    "conv1x1-bn-relu": lambda channels: ConvBnRelu(channels, channels, 1),
    "maxpool3x3": lambda channels: MaxPool3x3(),
}


def nb101_op(name: str, channels: int) -> nn.Module:
    """The module of the interior op ``name`` at a vertex of ``channels`` channels."""
    try:
        factory = NB101_OPS[name]
    except KeyError:
        raise unknown_name("NB101 op", name, NB101_OPS) from None
    return factory(channels)
