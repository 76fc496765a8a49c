"""The NAS-Bench-101 network (Ying et al. 2019, Sec. 2.1 and Fig. 1; the original ``model_builder``).

A 3x3 conv-BN-ReLU stem, ``stacks`` stacks of ``cells_per_stack`` cells with a 2x2 max-pool
(stride 2) and a doubling of the channels before every stack but the first, global average
pooling and a dense layer. Inside a cell (the pruned DAG of a :class:`~nasarena.spaces.nb101.Cell`):

- every vertex has the width :func:`~nasarena.spaces.nb101.parameters.vertex_channels` gives it;
- a vertex sums its inputs: the earlier interior vertices, truncated to its width (their first
  channels), and the cell's input projected by a 1x1 conv-BN-ReLU when the input feeds it;
  then applies its op;
- the output concatenates the interior vertices that feed it and adds the projected input
  when the input feeds it too (when only the input feeds it, the output is that projection).

So the module's trainable parameters equal
:func:`~nasarena.spaces.nb101.parameters.trainable_parameters` for every cell.
"""

from __future__ import annotations

import torch
from torch import nn

from ...spaces.nb101.parameters import vertex_channels
from .ops import ConvBnRelu, Projection, nb101_op


class NB101Cell(nn.Module):
    """One module (cell) mapping ``in_channels`` to ``out_channels`` at the same resolution."""

    def __init__(self, matrix, ops, in_channels: int, out_channels: int):
        super().__init__()
        self.matrix = tuple(tuple(row) for row in matrix)
        self.channels = tuple(vertex_channels(in_channels, out_channels, self.matrix))
        last = len(self.matrix) - 1
        self.interior = range(1, last)
        self.projections = nn.ModuleDict({str(v): Projection(in_channels, self.channels[v])
                                          for v in self.interior if self.matrix[0][v]})
        self.vertex_ops = nn.ModuleDict({str(v): nb101_op(ops[v], self.channels[v]) for v in self.interior})
        self.output_sources = tuple(v for v in self.interior if self.matrix[v][last])
        self.output_projection = Projection(in_channels, out_channels) if self.matrix[0][last] else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tensors = [x]
        for v in self.interior:
            width = self.channels[v]
            fan_in = [tensors[u][:, :width] for u in range(1, v) if self.matrix[u][v]]
            if self.matrix[0][v]:
                fan_in.append(self.projections[str(v)](x))
            total = fan_in[0]
            for term in fan_in[1:]:
                total = total + term
            tensors.append(self.vertex_ops[str(v)](total))
        if not self.output_sources:
            return self.output_projection(x)
        out = torch.cat([tensors[v] for v in self.output_sources], dim=1)
        if self.output_projection is not None:
            out = out + self.output_projection(x)
        return out


class NB101Network(nn.Module):
    """The full NB101 network of one cell (the same cell in every position)."""

    def __init__(self, cell, stem_channels: int = 128, stacks: int = 3, cells_per_stack: int = 3,
                 num_classes: int = 10):
        super().__init__()
        self.stem = ConvBnRelu(3, stem_channels, 3)
        layers: list[nn.Module] = []
        in_channels = channels = stem_channels
        for stack in range(stacks):
            if stack > 0:
                # TF's "same" 2x2/2 pooling: odd sides round up, as ceil_mode does
                layers.append(nn.MaxPool2d(kernel_size=2, stride=2, ceil_mode=True))
                channels *= 2
            for _ in range(cells_per_stack):
                layers.append(NB101Cell(cell.matrix, cell.ops, in_channels, channels))
                in_channels = channels
        self.layers = nn.Sequential(*layers)
        self.classifier = nn.Linear(channels, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layers(self.stem(x))
        return self.classifier(x.mean(dim=(2, 3)))
