"""How well a fitted surrogate predicts a set of training runs (NB301 Sec. 3.1.3, 3.1.5, Table 3).

Per fidelity: R^2, MAE, Kendall, sparse Kendall and Spearman of the ensemble's mean against
the runs' validation accuracy; where the set holds repeated runs of an architecture, the mean
KL divergence from the ground-truth normal (mean and sample standard deviation of the
repeats) to the ensemble's predictive normal; and the same fit metrics for the runtime model
against the recorded training times.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .artifact import SurrogateArtifact, Validation
from .data import TrainingData
from .encoding import ArchitectureEncoder
from .metrics import fit_metrics, normal_kl_divergence
from .spaces import IndexedArchitectures

#: Standard deviations are floored here before the KL divergence (zero spread would make it infinite).
STD_FLOOR = 1e-6
#: Rows predicted per model call (bounds memory on whole-table evaluations).
CHUNK = 200_000


def predict_in_chunks(ensemble, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ensemble mean and standard deviation over many rows, a chunk at a time."""
    means, stds = [], []
    for start in range(0, len(x), CHUNK):
        mean, std = ensemble.predict(x[start:start + CHUNK])
        means.append(mean)
        stds.append(std)
    return np.concatenate(means), np.concatenate(stds)


def evaluate(artifact: SurrogateArtifact, data: TrainingData, rows, data_name: str,
             encoder: ArchitectureEncoder, x: np.ndarray | None = None) -> tuple[Validation, ...]:
    """Validations of ``artifact`` on ``rows`` of ``data`` (``x``: their encodings, if at hand).

    When the artefact has a prediction table and the data's architectures are rows of its space,
    the accuracy predictions come from the table (what the benchmark answers), else from the models.
    """
    rows = np.asarray(rows, dtype=np.int64)
    table = artifact.prediction_table
    space_rows = data.archs.rows[rows] if table is not None and isinstance(data.archs, IndexedArchitectures) else None
    if x is None and space_rows is None:  # the table path needs no encodings
        x = encoder.encode_many([data.archs[i] for i in rows.tolist()], data.identities[rows])
    results = []
    for fidelity in artifact.fidelities:
        at = np.flatnonzero(data.fidelity[rows] == fidelity)
        if len(at) < 2:
            continue
        if space_rows is not None:
            mean, std = table.predict(space_rows[at], fidelity)
        else:
            mean, std = predict_in_chunks(artifact.ensemble(fidelity), x[at])
        true = data.valid_accuracy[rows[at]]
        kl, repeated = repeated_runs_kl(data.identities[rows[at]], true, mean, std)
        results.append(Validation(data_name, fidelity, "valid_accuracy", fit_metrics(true, mean), kl, repeated))
        if artifact.runtime_model is not None:
            timed = np.flatnonzero(data.cost_seconds[rows[at]] > 0)
            if len(timed) >= 2:
                predicted = (table.cost(space_rows[at][timed], fidelity) if space_rows is not None
                             else artifact.runtime_model.predict(x[at][timed], fidelity))
                results.append(Validation(data_name, fidelity, "cost_seconds",
                                          fit_metrics(data.cost_seconds[rows[at]][timed], predicted)))
    return tuple(results)


def repeated_runs_kl(identities, true, mean, std) -> tuple[float, int]:
    """Mean KL(N(repeats) || N(ensemble)) over architectures with at least two runs, and their number."""
    frame = pd.DataFrame({"id": identities, "true": true, "mean": mean, "std": std})
    groups = frame.groupby("id", sort=False)
    counts = groups["true"].transform("size")
    repeated = frame[counts >= 2].groupby("id", sort=False)
    if repeated.ngroups == 0:
        return float("nan"), 0
    truth_mean, truth_std = repeated["true"].mean(), repeated["true"].std(ddof=1)
    kl = normal_kl_divergence(truth_mean.to_numpy(), np.maximum(truth_std.to_numpy(), STD_FLOOR),
                              repeated["mean"].first().to_numpy(),
                              np.maximum(repeated["std"].first().to_numpy(), STD_FLOOR))
    return float(np.mean(kl)), repeated.ngroups
