"""The NAS-Bench-201 network (Dong & Yang 2020, Sec. 2.1; the benchmark's ``TinyNetwork``).

A 3x3 conv + BN stem, three stages of ``cells_per_stage`` cells at ``channels``, twice and four
times ``channels``, joined by residual reduction blocks, then BN + ReLU, global average pooling
and a linear classifier. A cell has nodes 0-3; node ``j`` sums one op per earlier node (6 edges)
and node 3 is the output. Ops: ``none`` (zeros), ``skip_connect`` (identity),
``nor_conv_1x1`` / ``nor_conv_3x3`` (ReLU-conv-BN), ``avg_pool_3x3`` (stride 1, padding not
counted). Every conv is bias-free and every BN affine, so the parameters equal
:func:`nasarena.spaces.nb201.network.trainable_parameters` (the benchmark's count).
"""

from __future__ import annotations

import torch
from torch import nn

from ...spaces.nb201.vocabulary import EDGES


class ReluConvBn(nn.Sequential):
    """ReLU -> conv (no bias) -> affine BN."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1):
        super().__init__(nn.ReLU(inplace=False),
                         nn.Conv2d(in_channels, out_channels, kernel_size, stride, kernel_size // 2, bias=False),
                         nn.BatchNorm2d(out_channels))


class Zero(nn.Module):
    """The ``none`` op: an all-zero output of the input's shape (keeps the graph connected)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.mul(0.0)


def nb201_op(name: str, channels: int) -> nn.Module:
    """The module of NB201 op ``name`` on an edge of ``channels`` channels (stride 1)."""
    if name == "none":
        return Zero()
    if name == "skip_connect":
        return nn.Identity()
    if name == "nor_conv_1x1":
        return ReluConvBn(channels, channels, 1)
    if name == "nor_conv_3x3":
        return ReluConvBn(channels, channels, 3)
    if name == "avg_pool_3x3":
        return nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)
    raise ValueError(f"unknown NB201 op {name!r}")


class NB201Cell(nn.Module):
    """Nodes 1-3 each sum the ops of their edges from the earlier nodes; node 3 is the output."""

    def __init__(self, ops, channels: int):
        super().__init__()
        self.edges = EDGES
        self.ops = nn.ModuleList(nb201_op(op, channels) for op in ops)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        nodes = [x]
        for node in (1, 2, 3):
            terms = [op(nodes[source]) for (to, source), op in zip(self.edges, self.ops) if to == node]
            total = terms[0]
            for term in terms[1:]:
                total = total + term
            nodes.append(total)
        return nodes[3]


class ResidualReduction(nn.Module):
    """Halves the side and maps ``in_channels`` to ``out_channels``: two ReLU-conv3x3-BN (the
    first with stride 2) plus a shortcut of a 2x2 average pool and a bias-free 1x1 conv."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv_a = ReluConvBn(in_channels, out_channels, 3, stride=2)
        self.conv_b = ReluConvBn(out_channels, out_channels, 3)
        self.shortcut = nn.Sequential(nn.AvgPool2d(kernel_size=2, stride=2),
                                      nn.Conv2d(in_channels, out_channels, 1, bias=False))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shortcut(x) + self.conv_b(self.conv_a(x))


class NB201Network(nn.Module):
    """The full NB201 network of one cell."""

    def __init__(self, cell, channels: int = 16, cells_per_stage: int = 5, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels))
        layers: list[nn.Module] = []
        width = channels
        for stage in range(3):
            if stage:
                layers.append(ResidualReduction(width, width * 2))
                width *= 2
            layers.extend(NB201Cell(cell.ops, width) for _ in range(cells_per_stage))
        self.cells = nn.Sequential(*layers)
        self.last = nn.Sequential(nn.BatchNorm2d(width), nn.ReLU(inplace=False))
        self.classifier = nn.Linear(width, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.last(self.cells(self.stem(x)))
        return self.classifier(x.mean(dim=(2, 3)))
