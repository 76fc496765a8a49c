"""ENAS's controller over a NAS-Bench-1Shot1 space: an LSTM that emits one decision after another.

Decisions, in order: for each block its op (3 options) and its parent set (every ``k``-subset
of its candidates is one option), then the output's parent set. Each decision has its own
linear head; the embedding of the chosen option is the next step's input. Logits are squashed
as ENAS does (``2.5 * tanh(logits / 5)``, its tanh constant and temperature), so early samples
stay diverse. Sampling draws from a given torch generator (deterministic); the controller lives
on the CPU, it is tiny.
"""

from __future__ import annotations

import itertools

import torch
from torch import nn

from ..spaces.oneshot import OneShotArch, oneshot_space

TANH_CONSTANT = 2.5
TEMPERATURE = 5.0


class Controller(nn.Module):
    """Samples architectures of ``space`` with their log-probability and entropy."""

    def __init__(self, space: str, hidden: int = 64):
        super().__init__()
        self.space = oneshot_space(space)
        n = self.space.num_blocks
        self.parent_options = [list(itertools.combinations(range(j), k))
                               for j, k in enumerate(self.space.block_parents, start=1)]
        self.output_options = list(itertools.combinations(range(n + 1), self.space.output_parents))
        sizes = []
        for options in self.parent_options:
            sizes += [len(self.space.ops), len(options)]
        sizes.append(len(self.output_options))
        self.start = nn.Parameter(torch.zeros(1, hidden))
        self.cell = nn.LSTMCell(hidden, hidden)
        self.heads = nn.ModuleList(nn.Linear(hidden, size) for size in sizes)
        self.embeddings = nn.ModuleList(nn.Embedding(size, hidden) for size in sizes)

    def sample(self, generator: torch.Generator) -> tuple[OneShotArch, torch.Tensor, torch.Tensor]:
        """One architecture, the sum of its decisions' log-probabilities and of their entropies."""
        x = self.start
        state = None
        choices, log_prob, entropy = [], self.start.new_zeros(()), self.start.new_zeros(())
        for head, embedding in zip(self.heads, self.embeddings):
            state = self.cell(x, state)
            logits = TANH_CONSTANT * torch.tanh(head(state[0]) / TEMPERATURE)
            log_p = logits.log_softmax(-1)[0]
            choice = int(torch.multinomial(log_p.detach().exp(), 1, generator=generator))
            log_prob = log_prob + log_p[choice]
            entropy = entropy - (log_p.exp() * log_p).sum()
            choices.append(choice)
            x = embedding(torch.tensor([choice]))
        ops = tuple(self.space.ops[c] for c in choices[0:-1:2])
        parents = tuple(options[c] for options, c in zip(self.parent_options, choices[1:-1:2]))
        output = self.output_options[choices[-1]]
        return OneShotArch(self.space.name, parents, ops, output), log_prob, entropy
