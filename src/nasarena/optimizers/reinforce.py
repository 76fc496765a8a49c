"""REINFORCE with independent categorical distributions (NB101 paper, Supplement S4).

The policy is one categorical distribution per dimension of the space's categorical encoding
(NB101: each of the 21 edges and 5 ops). A sampled architecture's validation accuracy is the
reward; the logits move by ``learning_rate * (reward - baseline) * (one_hot(choice) -
probabilities)``, and the baseline is an exponential moving average of the rewards. An invalid
architecture is resampled without an update, as invalid cells are never trained: a reward of 0
for them would be ~100x larger than the accuracy differences between valid cells and would
teach the policy only to avoid invalid cells.
"""

from __future__ import annotations

import numpy as np

from .base import Observation, Optimizer, Setting, Trial


class Reinforce(Optimizer):
    name = "reinforce"
    summary = "REINFORCE over independent categoricals per edge and op (learning rate 0.5)"

    SETTINGS = {
        "learning_rate": Setting(float, "step size of the policy-gradient update of the logits", low=0, low_open=True),
        "baseline_decay": Setting(float, "decay of the moving-average reward baseline", low=0, high=1),
    }

    def __init__(self, space, seed=0, *, learning_rate: float = 0.5, baseline_decay: float = 0.95):
        super().__init__(space, seed)
        self.learning_rate = learning_rate
        self.baseline_decay = baseline_decay
        dims = np.array(space.categorical_dims())
        # one padded row of logits per dimension; padding has probability 0
        self.allowed = np.arange(dims.max())[None, :] < dims[:, None]
        self.logits = np.where(self.allowed, 0.0, -np.inf)
        self.baseline: float | None = None
        self._choices: dict[int, np.ndarray] = {}

    def probabilities(self) -> np.ndarray:
        shifted = np.exp(self.logits - self.logits.max(axis=1, keepdims=True))
        return shifted / shifted.sum(axis=1, keepdims=True)

    def _ask(self, number: int) -> Trial:
        cumulative = np.cumsum(self.probabilities(), axis=1)
        draws = self.rng.random(len(cumulative))
        choices = np.minimum((cumulative < draws[:, None]).sum(axis=1), self.allowed.sum(axis=1) - 1)
        trial = Trial(self.space.from_categorical(choices.tolist()))
        self._choices[number] = choices
        return trial

    def _tell(self, trial: Trial, observation: Observation) -> None:
        choices = self._choices.pop(trial.number)
        if not observation.valid:
            return
        reward = observation.valid_accuracy
        if self.baseline is None:
            self.baseline = reward
        gradient = -self.probabilities()
        gradient[np.arange(len(choices)), choices] += 1.0
        self.logits = np.where(self.allowed, self.logits + self.learning_rate * (reward - self.baseline) * gradient, -np.inf)
        self.baseline = self.baseline_decay * self.baseline + (1 - self.baseline_decay) * reward
