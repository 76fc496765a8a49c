"""Evaluating supernets of weight-sharing NAS: top-architecture ID rate, sampling probability
mass, structural clustering and correlations, per training checkpoint."""

from .checkpoints import SupernetScores, evaluate_checkpoints, read_scores
from .clustering import cluster_architectures, cluster_summary
from .identification import correlations, id_rate, id_rate_curve, random_baseline, regret_thresholds_to_k
from .sampling import (
    ArchitectureSampler,
    ChoiceSoftmaxSampler,
    IndependentSoftmaxSampler,
    cumulative_sampling_probability,
    sampling_probabilities,
)

__all__ = [
    "ArchitectureSampler", "ChoiceSoftmaxSampler", "IndependentSoftmaxSampler", "SupernetScores", "cluster_architectures", "cluster_summary",
    "correlations", "cumulative_sampling_probability", "evaluate_checkpoints", "id_rate", "id_rate_curve",
    "random_baseline", "read_scores", "regret_thresholds_to_k", "sampling_probabilities",
]
