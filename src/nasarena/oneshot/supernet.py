"""The one-shot model of NAS-Bench-1Shot1 (Sec. 3.1): every architecture of a space in one network.

Macro skeleton as NAS-Bench-101: a 3x3 conv-BN-ReLU stem, ``stacks`` stacks of
``cells_per_stack`` cells, a 2x2 max-pool between stacks (which doubles the width), global
average pooling and a linear classifier. Every cell is the same choice-block DAG:

- the cell input reaches block ``j`` and the output through 1x1 projections of *fixed* width
  (NB101 sizes projections per architecture, which a shared model cannot; the paper does the same);
- block ``j``'s input is the weighted sum of its candidate parents (input, blocks ``1..j-1``),
  weighted by ``alpha_j`` (unweighted where the space leaves no choice: ``k == j``);
- block ``j`` is a mixed op over the three NB101 ops, weighted by ``beta_j``;
- the output concatenates blocks ``1..N`` weighted by ``gamma_1..N`` and adds the input's
  projection weighted by ``gamma_0``, as NB101 adds the projected input to the output.

Block width is ``channels * 2**stack``, so a cell outputs ``N`` times that. The optimizers
decide the weights (:class:`PathWeights`); a *single path* (GDAS, Random-WS, ENAS) names the op
of each block, and for a sampled architecture also its parents, so nothing else is computed.
All cells share one set of architecture weights (one cell type).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..spaces.oneshot import OneShotArch, OneShotSpace, oneshot_space
from ..training.networks.ops import ConvBnRelu, Projection, nb101_op


@dataclass
class PathWeights:
    """How one forward pass weights the supernet's edges and ops.

    ``inputs[j-1]``: the ``j`` weights of block ``j``'s candidate parents; ``ops[j-1]``: its 3 op
    weights; ``output``: the ``N+1`` weights of the edges into the output. ``op_choice`` (one op
    index per block) runs only that op, scaled by its weight (a straight-through one-hot keeps
    the gradient). ``arch``: a discrete architecture; only its active blocks, their parents and the
    output's parents are computed (all weights 1 unless given).
    """

    inputs: list[torch.Tensor]
    ops: list[torch.Tensor]
    output: torch.Tensor
    op_choice: tuple[int, ...] | None = None
    arch: OneShotArch | None = None

    @classmethod
    def of_architecture(cls, arch: OneShotArch, device: torch.device | str = "cpu") -> PathWeights:
        """Constant 0/1 weights of one discrete architecture (Random-WS and ENAS train and score these)."""
        space = arch.definition
        inputs = [torch.tensor([float(i in parents) for i in range(j)], device=device)
                  for j, parents in enumerate(arch.parents, start=1)]
        choice = tuple(space.ops.index(op) for op in arch.ops)
        ops = [torch.nn.functional.one_hot(torch.tensor(c), len(space.ops)).float().to(device) for c in choice]
        output = torch.tensor([float(i in arch.output) for i in range(space.num_blocks + 1)], device=device)
        return cls(inputs, ops, output, op_choice=choice, arch=arch)


class ChoiceBlock(nn.Module):
    """The mixed op over NB101's ops at one block; with ``partial > 1`` (PC-DARTS) only the first
    ``1/partial`` of the channels go through it, the rest pass by, then channels are shuffled."""

    def __init__(self, space: OneShotSpace, width: int, partial: int = 1):
        super().__init__()
        self.partial = partial
        self.ops = nn.ModuleList(nb101_op(name, width // partial) for name in space.ops)

    def forward(self, x: torch.Tensor, weights: torch.Tensor, choice: int | None) -> torch.Tensor:
        if self.partial > 1:
            width = x.shape[1] // self.partial
            mixed, bypass = x[:, :width], x[:, width:]
        else:
            mixed = x
        if choice is not None:
            y = self.ops[choice](mixed) * weights[choice]
        else:
            y = sum(w * op(mixed) for w, op in zip(weights, self.ops))
        if self.partial == 1:
            return y
        return _channel_shuffle(torch.cat([y, bypass], dim=1), self.partial)


def _channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    """Interleave ``groups`` channel groups, so the next partial op sees other channels (PC-DARTS)."""
    n, c, h, w = x.shape
    return x.view(n, groups, c // groups, h, w).transpose(1, 2).reshape(n, c, h, w)


class SupernetCell(nn.Module):
    """One cell of the one-shot model (see the module docstring)."""

    def __init__(self, space: OneShotSpace, in_channels: int, width: int, partial: int = 1):
        super().__init__()
        self.space = space
        self.width = width
        self.input_projections = nn.ModuleList(Projection(in_channels, width) for _ in range(space.num_blocks))
        self.output_projection = Projection(in_channels, width * space.num_blocks)
        self.blocks = nn.ModuleList(ChoiceBlock(space, width, partial) for _ in range(space.num_blocks))

    def forward(self, x: torch.Tensor, path: PathWeights) -> torch.Tensor:
        space, arch = self.space, path.arch
        active = set(arch.active_blocks()) if arch is not None else None
        states: list[torch.Tensor | None] = [None] * (space.num_blocks + 1)
        for j, block in enumerate(self.blocks, start=1):
            if active is not None and j not in active:
                continue
            parents = arch.parents[j - 1] if arch is not None else range(j)
            forced = space.block_parents[j - 1] == j  # no choice of parents: plain sum, as NB101
            weights = path.inputs[j - 1]
            terms = []
            for i in parents:
                source = self.input_projections[j - 1](x) if i == 0 else states[i]
                terms.append(source if forced or arch is not None else weights[i] * source)
            choice = path.op_choice[j - 1] if path.op_choice is not None else None
            states[j] = block(sum(terms), path.ops[j - 1], choice)
        zeros = None
        outputs = []
        chosen = arch.output if arch is not None else range(space.num_blocks + 1)
        for j in range(1, space.num_blocks + 1):
            if states[j] is None or j not in chosen:
                if zeros is None:
                    zeros = x.new_zeros(x.shape[0], self.width, x.shape[2], x.shape[3])
                outputs.append(zeros)
            else:
                outputs.append(states[j] if arch is not None else path.output[j] * states[j])
        out = torch.cat(outputs, dim=1)
        if 0 in chosen:
            projected = self.output_projection(x)
            out = out + (projected if arch is not None else path.output[0] * projected)
        return out


class Supernet(nn.Module):
    """The whole one-shot model: stem, stacks of :class:`SupernetCell`, classifier."""

    def __init__(self, space: str | OneShotSpace, channels: int = 16, stacks: int = 3, cells_per_stack: int = 3,
                 num_classes: int = 10, partial: int = 1):
        super().__init__()
        self.space = oneshot_space(space)
        self.stem = ConvBnRelu(3, channels, 3)
        layers: list[nn.Module] = []
        in_channels = channels
        for stack in range(stacks):
            if stack > 0:
                layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            width = channels * 2 ** stack
            for _ in range(cells_per_stack):
                layers.append(SupernetCell(self.space, in_channels, width, partial))
                in_channels = width * self.space.num_blocks
        self.layers = nn.ModuleList(layers)
        self.classifier = nn.Linear(in_channels, num_classes)

    def forward(self, images: torch.Tensor, path: PathWeights) -> torch.Tensor:
        x = self.stem(images)
        for layer in self.layers:
            x = layer(x, path) if isinstance(layer, SupernetCell) else layer(x)
        return self.classifier(x.mean(dim=(2, 3)))


class ArchitectureWeights(nn.Module):
    """alpha (block j: j weights), beta (N x 3) and gamma (N+1): the paper's shapes, as parameters.

    Initialised as DARTS does: 1e-3 times a standard normal draw from ``generator``.
    """

    def __init__(self, space: str | OneShotSpace, generator: torch.Generator | None = None):
        super().__init__()
        self.space = oneshot_space(space)
        n = self.space.num_blocks

        def draw(*shape: int) -> nn.Parameter:
            return nn.Parameter(1e-3 * torch.randn(*shape, generator=generator))

        self.alpha = nn.ParameterList(draw(j) for j in range(1, n + 1))
        self.beta = draw(n, len(self.space.ops))
        self.gamma = draw(n + 1)

    def softmax_path(self) -> PathWeights:
        """DARTS's continuous relaxation: softmax over each block's parents, ops and the output edges."""
        return PathWeights([a.softmax(0) for a in self.alpha], list(self.beta.softmax(-1)), self.gamma.softmax(0))

    def to_numpy(self) -> dict[str, object]:
        """``{"alpha": [N arrays], "beta": N x 3, "gamma": N+1}`` as numpy, for records and discretize."""
        return {"alpha": [a.detach().cpu().numpy().copy() for a in self.alpha],
                "beta": self.beta.detach().cpu().numpy().copy(), "gamma": self.gamma.detach().cpu().numpy().copy()}
