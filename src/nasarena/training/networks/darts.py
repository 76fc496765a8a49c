"""The DARTS evaluation network (Liu et al. 2019, Sec. 3; NB301's training network).

A 3x3 conv + BN stem to ``3 * channels``, then ``layers`` cells; the cells at one and two
thirds of the depth are reduction cells (stride 2 on the edges from the two cell inputs,
channels doubled). A cell's inputs are the outputs of the two previous cells, each
preprocessed to the cell's width (a ReLU-conv1x1-BN, or a factorized reduction when the
previous-but-one cell reduced the side); each of the four intermediate nodes sums two ops of
earlier nodes, and the output concatenates the four nodes. Global average pooling and a
linear classifier follow; with ``auxiliary`` an auxiliary head reads the cell at two thirds of
the depth (it needs an 8 x 8 map there, i.e. 32 x 32 images) and, in training mode, the
network returns ``(logits, auxiliary_logits)``.

Drop path (the loop sets ``drop_path_prob``) zeroes a whole op output per image with that
probability during training, except identities, and rescales the kept ones.

Every conv is bias-free and every BN affine; the papers' parameter counts exclude the
auxiliary head (it lives under ``auxiliary_head``).
"""

from __future__ import annotations

import torch
from torch import nn

from ...errors import InvalidSettingError
from ...spaces.darts.structure import INTERMEDIATE_NODES


class ReluConvBn(nn.Sequential):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0):
        super().__init__(nn.ReLU(inplace=False),
                         nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False),
                         nn.BatchNorm2d(out_channels))


class DilConv(nn.Sequential):
    """ReLU -> dilated depthwise conv -> pointwise conv -> BN."""

    def __init__(self, channels: int, kernel_size: int, stride: int, padding: int, dilation: int):
        super().__init__(nn.ReLU(inplace=False),
                         nn.Conv2d(channels, channels, kernel_size, stride, padding, dilation=dilation,
                                   groups=channels, bias=False),
                         nn.Conv2d(channels, channels, 1, bias=False),
                         nn.BatchNorm2d(channels))


class SepConv(nn.Sequential):
    """Two stacked (ReLU -> depthwise conv -> pointwise conv -> BN), the first with the stride."""

    def __init__(self, channels: int, kernel_size: int, stride: int, padding: int):
        super().__init__(DilConv(channels, kernel_size, stride, padding, 1),
                         DilConv(channels, kernel_size, 1, padding, 1))


class FactorizedReduce(nn.Module):
    """Halves the side with two stride-2 1x1 convs on offset grids, concatenated, then BN."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.relu = nn.ReLU(inplace=False)
        self.conv_1 = nn.Conv2d(in_channels, out_channels // 2, 1, stride=2, bias=False)
        self.conv_2 = nn.Conv2d(in_channels, out_channels - out_channels // 2, 1, stride=2, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.relu(x)
        shifted = x[:, :, 1:, 1:]
        if x.shape[2] % 2 or x.shape[3] % 2:  # odd sides: pad the shifted grid to the same output size
            shifted = nn.functional.pad(shifted, (0, x.shape[3] % 2, 0, x.shape[2] % 2))
        return self.bn(torch.cat([self.conv_1(x), self.conv_2(shifted)], dim=1))


def darts_op(name: str, channels: int, stride: int) -> nn.Module:
    """The module of DARTS op ``name`` at ``channels`` channels and ``stride`` (1 or 2)."""
    if name == "max_pool_3x3":
        return nn.MaxPool2d(3, stride=stride, padding=1)
    if name == "avg_pool_3x3":
        return nn.AvgPool2d(3, stride=stride, padding=1, count_include_pad=False)
    if name == "skip_connect":
        return nn.Identity() if stride == 1 else FactorizedReduce(channels, channels)
    if name == "sep_conv_3x3":
        return SepConv(channels, 3, stride, 1)
    if name == "sep_conv_5x5":
        return SepConv(channels, 5, stride, 2)
    if name == "dil_conv_3x3":
        return DilConv(channels, 3, stride, 2, 2)
    if name == "dil_conv_5x5":
        return DilConv(channels, 5, stride, 4, 2)
    raise ValueError(f"unknown DARTS op {name!r}")


def drop_path(x: torch.Tensor, probability: float) -> torch.Tensor:
    """Zero each image's tensor with ``probability`` and scale the kept ones by 1 / (1 - p)."""
    keep = 1.0 - probability
    mask = torch.bernoulli(torch.full((x.shape[0], 1, 1, 1), keep, device=x.device, dtype=x.dtype))
    return x / keep * mask


class DartsCell(nn.Module):
    """A normal or reduction cell from its written (op, input) pairs (two per intermediate node)."""

    def __init__(self, edges, prev_prev_channels: int, prev_channels: int, channels: int, reduction: bool,
                 reduction_prev: bool):
        super().__init__()
        self.preprocess0 = (FactorizedReduce(prev_prev_channels, channels) if reduction_prev
                            else ReluConvBn(prev_prev_channels, channels, 1))
        self.preprocess1 = ReluConvBn(prev_channels, channels, 1)
        self.inputs = tuple(source for _, source in edges)
        self.ops = nn.ModuleList(darts_op(op, channels, 2 if reduction and source < 2 else 1)
                                 for op, source in edges)
        self.reduction = reduction

    def forward(self, s0: torch.Tensor, s1: torch.Tensor, drop_prob: float) -> torch.Tensor:
        states = [self.preprocess0(s0), self.preprocess1(s1)]
        for node in range(len(INTERMEDIATE_NODES)):
            total = None
            for position in (2 * node, 2 * node + 1):
                op = self.ops[position]
                h = op(states[self.inputs[position]])
                if self.training and drop_prob > 0 and not isinstance(op, nn.Identity):
                    h = drop_path(h, drop_prob)
                total = h if total is None else total + h
            states.append(total)
        return torch.cat(states[2:], dim=1)


class AuxiliaryHead(nn.Module):
    """The DARTS CIFAR auxiliary classifier on an 8 x 8 map."""

    def __init__(self, channels: int, num_classes: int):
        super().__init__()
        self.features = nn.Sequential(
            nn.ReLU(inplace=False), nn.AvgPool2d(5, stride=3, padding=0, count_include_pad=False),
            nn.Conv2d(channels, 128, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU(inplace=True),
            nn.Conv2d(128, 768, 2, bias=False), nn.BatchNorm2d(768), nn.ReLU(inplace=True))
        self.classifier = nn.Linear(768, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if min(x.shape[-2:]) < 5:
            raise InvalidSettingError(f"the DARTS auxiliary head needs at least a 5 x 5 map at two thirds of the "
                                      f"depth (8 x 8 from 32 x 32 images), got {tuple(x.shape[-2:])}; build the "
                                      "network with auxiliary=False for smaller images")
        return self.classifier(self.features(x).flatten(1))


class DartsNetwork(nn.Module):
    """The DARTS / NB301 evaluation network of one architecture (normal + reduction cell)."""

    def __init__(self, arch, channels: int = 36, layers: int = 20, auxiliary: bool = True, num_classes: int = 10):
        super().__init__()
        self.drop_path_prob = 0.0
        self.auxiliary_position = 2 * layers // 3
        stem_channels = 3 * channels
        self.stem = nn.Sequential(nn.Conv2d(3, stem_channels, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(stem_channels))
        prev_prev, prev, width = stem_channels, stem_channels, channels
        self.cells = nn.ModuleList()
        reduction_prev = False
        auxiliary_channels = prev
        for index in range(layers):
            reduction = index in (layers // 3, 2 * layers // 3)
            if reduction:
                width *= 2
            edges = arch.reduce if reduction else arch.normal
            self.cells.append(DartsCell(edges, prev_prev, prev, width, reduction, reduction_prev))
            reduction_prev = reduction
            prev_prev, prev = prev, len(INTERMEDIATE_NODES) * width
            if index == self.auxiliary_position:
                auxiliary_channels = prev
        self.auxiliary_head = AuxiliaryHead(auxiliary_channels, num_classes) if auxiliary else None
        self.classifier = nn.Linear(prev, num_classes)

    def forward(self, x: torch.Tensor):
        s0 = s1 = self.stem(x)
        auxiliary_logits = None
        for index, cell in enumerate(self.cells):
            s0, s1 = s1, cell(s0, s1, self.drop_path_prob)
            if index == self.auxiliary_position and self.auxiliary_head is not None and self.training:
                auxiliary_logits = self.auxiliary_head(s1)
        logits = self.classifier(s1.mean(dim=(2, 3)))
        return (logits, auxiliary_logits) if auxiliary_logits is not None else logits
