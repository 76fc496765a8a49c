"""DARTS (first and second order), PC-DARTS, GDAS, Random-WS and ENAS as hooks of one loop.

Each class overrides only what the paper's Algorithms 1-5 change relative to each other
(everything else is :class:`~.search.OneShotSearch`):

- DARTS: softmax-weighted supernet; Adam on the validation loss; argmax discretisation.
  Second order differentiates through one virtual SGD step (finite-difference Hessian product).
- PC-DARTS: DARTS with partial channel connections (the supernet; nothing else).
- GDAS: Gumbel-softmax samples of alpha, beta, gamma at a temperature annealed linearly from
  ``tau_max`` to ``tau_min``; one op per block (hard, straight-through), soft edge weights.
- Random-WS: one uniformly sampled architecture per weight step; no architecture step; the
  best of ``samples`` by the one-shot model (:meth:`~.search.OneShotSearch.best_of`).
- ENAS: architectures from an LSTM controller, trained by REINFORCE on validation accuracy
  with a moving-average baseline and an entropy bonus; the best of ``samples`` controller draws.
"""

from __future__ import annotations

import itertools

import torch

from ..spaces.oneshot import OneShotArch, discretize_arch, oneshot_space
from .controller import Controller
from .names import SEARCHES
from .scoring import Batch, one_shot_accuracy
from .search import OneShotSearch
from .supernet import ArchitectureWeights, PathWeights, Supernet


class DARTS(OneShotSearch):
    """DARTS, first order (Algorithm 1)."""

    name = "darts"

    def setup(self) -> None:
        s = self.settings
        generator = torch.Generator().manual_seed(self.seed + 30_011)
        self.arch = ArchitectureWeights(self.space, generator).to(self.device)
        self.arch_optimizer = torch.optim.Adam(self.arch.parameters(), lr=s.arch_learning_rate,
                                               betas=(s.arch_beta1, s.arch_beta2), weight_decay=s.arch_weight_decay)

    def relaxed_path(self, epoch: int) -> PathWeights:
        """The path the architecture gradient flows through (GDAS samples it instead)."""
        return self.arch.softmax_path()

    def training_path(self, epoch: int) -> PathWeights:
        with torch.no_grad():
            return self.relaxed_path(epoch)

    def architecture_step(self, epoch: int, train: Batch, valid: Batch | None) -> None:
        params = list(self.arch.parameters())
        loss = self.loss(self.supernet(valid[0], self.relaxed_path(epoch)), valid[1])
        grads = torch.autograd.grad(loss, params, allow_unused=True)  # no weight gradients: not needed here
        for p, g in zip(params, grads):
            p.grad = g if g is not None else torch.zeros_like(p)
        self.arch_optimizer.step()

    def final_architecture(self, epoch: int) -> OneShotArch:
        weights = self.arch.to_numpy()
        return discretize_arch(self.space, weights["alpha"], weights["beta"], weights["gamma"])

    def validation_path(self, epoch: int, arch: OneShotArch) -> PathWeights:
        with torch.no_grad():
            return self.arch.softmax_path()

    def architecture_weights(self) -> dict[str, object]:
        return self.arch.to_numpy()

    def extra_state(self) -> dict:
        return {"arch": self.arch.state_dict(), "arch_optimizer": self.arch_optimizer.state_dict()}

    def load_extra_state(self, state: dict) -> None:
        self.arch.load_state_dict(state["arch"])
        self.arch_optimizer.load_state_dict(state["arch_optimizer"])


class DARTSSecondOrder(DARTS):
    """DARTS, second order: the validation loss at the weights after one virtual SGD step
    ``w' = w - lr * (grad L_train + momentum buffer + weight decay)``, its architecture gradient
    corrected by ``-lr * Hessian-vector product``, estimated by central finite differences at
    ``w +- eps * grad_w' L_valid`` with ``eps = 0.01 / |grad_w' L_valid|`` (Liu et al., Sec. 2.3)."""

    name = "darts-2nd"

    def architecture_step(self, epoch: int, train: Batch, valid: Batch | None) -> None:
        weights = [p for p in self.supernet.parameters()]
        arch_params = list(self.arch.parameters())
        group = self.weight_optimizer.param_groups[0]
        lr, momentum, decay = group["lr"], group["momentum"], group["weight_decay"]
        original = [p.detach().clone() for p in weights]
        fixed = self.training_path(epoch)
        grads = torch.autograd.grad(self.loss(self.supernet(train[0], fixed), train[1]), weights, allow_unused=True)
        with torch.no_grad():
            for p, g in zip(weights, grads):
                buffer = self.weight_optimizer.state.get(p, {}).get("momentum_buffer")
                step = (g if g is not None else torch.zeros_like(p)) + decay * p
                if buffer is not None:
                    step = step + momentum * buffer
                p.sub_(lr * step)
        valid_loss = self.loss(self.supernet(valid[0], self.arch.softmax_path()), valid[1])
        valid_grads = torch.autograd.grad(valid_loss, arch_params + weights, allow_unused=True)
        arch_grads, weight_grads = valid_grads[:len(arch_params)], valid_grads[len(arch_params):]
        weight_grads = [g if g is not None else torch.zeros_like(p) for g, p in zip(weight_grads, weights)]
        norm = torch.sqrt(sum((g * g).sum() for g in weight_grads))
        eps = 0.01 / max(float(norm), 1e-12)
        hessian = []
        for sign in (1.0, -1.0):
            with torch.no_grad():
                for p, w, g in zip(weights, original, weight_grads):
                    p.copy_(w + sign * eps * g)
            loss = self.loss(self.supernet(train[0], self.arch.softmax_path()), train[1])
            grads = torch.autograd.grad(loss, arch_params, allow_unused=True)
            hessian.append([g if g is not None else torch.zeros_like(p) for g, p in zip(grads, arch_params)])
        with torch.no_grad():
            for p, w in zip(weights, original):
                p.copy_(w)
        self.arch_optimizer.zero_grad(set_to_none=True)
        for p, g, plus, minus in zip(arch_params, arch_grads, *hessian):
            p.grad = (g if g is not None else torch.zeros_like(p)) - lr * (plus - minus) / (2 * eps)
        self.arch_optimizer.step()


class PCDARTS(DARTS):
    """PC-DARTS (Algorithm 2): DARTS whose mixed ops see 1/K of the channels (K = ``partial_channels``)."""

    name = "pc-darts"

    def build_supernet(self) -> Supernet:
        s = self.settings
        return Supernet(self.space, s.channels, s.stacks, s.cells_per_stack, partial=s.partial_channels)


class GDAS(DARTS):
    """GDAS (Algorithm 3): Gumbel-softmax over alpha, beta and gamma; a single op per block."""

    name = "gdas"

    def temperature(self, epoch: int) -> float:
        s = self.settings
        return s.tau_max - (s.tau_max - s.tau_min) * epoch / max(s.epochs - 1, 1)

    def _gumbel(self, logits: torch.Tensor, tau: float) -> torch.Tensor:
        uniform = torch.rand(logits.shape, generator=self.sampler).clamp_(1e-10, 1.0 - 1e-10)
        noise = -torch.log(-torch.log(uniform)).to(logits.device)
        return ((logits + noise) / tau).softmax(-1)

    def relaxed_path(self, epoch: int) -> PathWeights:
        tau = self.temperature(epoch)
        inputs = [self._gumbel(a, tau) for a in self.arch.alpha]
        soft_ops = self._gumbel(self.arch.beta, tau)
        choice = tuple(int(i) for i in soft_ops.argmax(-1))
        hard = torch.nn.functional.one_hot(torch.tensor(choice, device=soft_ops.device), soft_ops.shape[1]).float()
        ops = hard - soft_ops.detach() + soft_ops  # one-hot forward, softmax gradient
        return PathWeights(inputs, list(ops), self._gumbel(self.arch.gamma, tau), op_choice=choice)

    def validation_path(self, epoch: int, arch: OneShotArch) -> PathWeights:
        return PathWeights.of_architecture(arch, self.device)


def uniform_architecture(space: str, generator: torch.Generator) -> OneShotArch:
    """An architecture with each block's parent set, op and the output's parent set uniform."""
    definition = oneshot_space(space)

    def pick(options):
        return options[int(torch.randint(len(options), (1,), generator=generator))]

    parents = tuple(pick(list(itertools.combinations(range(j), k)))
                    for j, k in enumerate(definition.block_parents, start=1))
    ops = tuple(pick(definition.ops) for _ in range(definition.num_blocks))
    output = pick(list(itertools.combinations(range(definition.num_blocks + 1), definition.output_parents)))
    return OneShotArch(definition.name, parents, ops, output)


class RandomWS(OneShotSearch):
    """Random search with weight sharing (Algorithm 4)."""

    name = "random-ws"
    uses_validation_batches = False

    def training_path(self, epoch: int) -> PathWeights:
        return PathWeights.of_architecture(uniform_architecture(self.space, self.sampler), self.device)

    def final_architecture(self, epoch: int) -> OneShotArch:
        archs = [uniform_architecture(self.space, self.sampler) for _ in range(self.settings.samples)]
        return self.best_of(archs, self.settings.finalists)


class ENAS(OneShotSearch):
    """ENAS (Algorithm 5): controller samples train the weights; REINFORCE trains the controller."""

    name = "enas"

    def setup(self) -> None:
        s = self.settings
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed + 40_009)
            self.controller = Controller(self.space, s.controller_hidden)
        self.controller_optimizer = torch.optim.Adam(self.controller.parameters(), lr=s.controller_learning_rate)
        self.baseline: float | None = None

    def training_path(self, epoch: int) -> PathWeights:
        with torch.no_grad():
            arch, _, _ = self.controller.sample(self.sampler)
        return PathWeights.of_architecture(arch, self.device)

    def architecture_step(self, epoch: int, train: Batch, valid: Batch | None) -> None:
        s = self.settings
        arch, log_prob, entropy = self.controller.sample(self.sampler)
        reward = one_shot_accuracy(self.supernet, PathWeights.of_architecture(arch, self.device), [valid])
        decay = s.controller_baseline_decay
        self.baseline = reward if self.baseline is None else decay * self.baseline + (1 - decay) * reward
        loss = -(reward - self.baseline) * log_prob - s.controller_entropy_weight * entropy
        self.controller_optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.controller_optimizer.step()

    def final_architecture(self, epoch: int) -> OneShotArch:
        with torch.no_grad():
            archs = [self.controller.sample(self.sampler)[0] for _ in range(self.settings.samples)]
        return self.best_of(archs, 1)

    def extra_state(self) -> dict:
        return {"controller": self.controller.state_dict(), "controller_optimizer": self.controller_optimizer.state_dict(),
                "baseline": self.baseline}

    def load_extra_state(self, state: dict) -> None:
        self.controller.load_state_dict(state["controller"])
        self.controller_optimizer.load_state_dict(state["controller_optimizer"])
        self.baseline = state["baseline"]


def search_class(name: str) -> type[OneShotSearch]:
    """The search class of a one-shot optimizer (the one table: :data:`.names.SEARCHES`)."""
    return SEARCHES[name]
