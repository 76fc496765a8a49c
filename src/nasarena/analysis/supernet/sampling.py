"""Cumulative sampling probability of the top architectures ("Evaluating supernets", App. C.2).

A sampler turns a method's architecture weights into a probability for every architecture;
a2(k) is the probability mass it puts on the true top-k set T_k (uniform baseline: k / N).
Spaces plug in by implementing :class:`ArchitectureSampler`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from scipy.special import log_softmax, logsumexp

from .identification import top_k_membership


class ArchitectureSampler(ABC):
    """The distribution over architectures that a method's architecture weights imply."""

    @abstractmethod
    def log_probabilities(self, encodings: np.ndarray) -> np.ndarray:
        """Log-probability of each encoded architecture."""


class IndependentSoftmaxSampler(ArchitectureSampler):
    """NB201-like spaces: an independent softmax over the ops of each edge.

    ``arch_weights`` are logits of shape (edges, ops); an encoding is the op index per edge;
    the probability of a cell is the product over its edges.
    """

    def __init__(self, arch_weights):
        self.log_weights = log_softmax(np.asarray(arch_weights, dtype=float), axis=1)

    def log_probabilities(self, encodings) -> np.ndarray:
        encodings = np.asarray(encodings, dtype=np.int64)
        edges = np.arange(self.log_weights.shape[0])
        return self.log_weights[edges[None, :], encodings].sum(axis=1)


class ChoiceSoftmaxSampler(ArchitectureSampler):
    """Spaces of independent categorical choices (the NAS-Bench-1Shot1 spaces): a softmax over
    the options of each choice, given one logit vector per choice; an encoding is the option
    index per choice, the probability of an architecture the product over its choices."""

    def __init__(self, logits):
        self.log_weights = [log_softmax(np.asarray(vector, dtype=float)) for vector in logits]

    def log_probabilities(self, encodings) -> np.ndarray:
        encodings = np.asarray(encodings, dtype=np.int64)
        if encodings.ndim != 2 or encodings.shape[1] != len(self.log_weights):
            raise ValueError(f"encodings need one option index per choice ({len(self.log_weights)}), "
                             f"got shape {encodings.shape}")
        return sum(weights[encodings[:, c]] for c, weights in enumerate(self.log_weights))


def sampling_probabilities(sampler: ArchitectureSampler, encodings) -> np.ndarray:
    """Probabilities of the given architectures, renormalised over them (they should be the space)."""
    log_p = sampler.log_probabilities(encodings)
    return np.exp(log_p - logsumexp(log_p))


def cumulative_sampling_probability(true_scores, probabilities, ks, ties: str = "expected") -> np.ndarray:
    """a2(k) = the probability mass on the true top-k architectures, for each k."""
    probabilities = np.asarray(probabilities, dtype=float)
    return np.array([float(np.sum(top_k_membership(true_scores, int(k), ties) * probabilities))
                     for k in np.atleast_1d(ks)])
