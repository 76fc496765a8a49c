"""Build nasarena's embedded benchmark data from the real files in ../shared/data.

Run: .venv/bin/python scripts/build_embedded_data.py [nb101] [nb201]
Needs scikit-learn (for the NB101 runtime model; not a runtime dependency). Writes the
package data files and records their sha256 and provenance in the manifest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from nasarena.io.packaged import save_arrays
from nasarena.spaces.nb101 import unique_cells
from nasarena.spaces.nb101.parameters import trainable_parameters

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NB101_SLICES = {"nb101-slice-0-20000.json": 0, "nb101-slice-36202-46201.json": 36202}


def nb101_features(table, parameters: np.ndarray, flops: np.ndarray) -> np.ndarray:
    """Per cell: log params, log FLOPs, vertices, edges and the count of each interior op."""
    op_counts = np.stack([(table.labellings == k).sum(axis=1) for k in range(3)], axis=1)
    return np.column_stack([np.log(parameters), np.log(flops), table.num_vertices, table.num_edges, op_counts])


def fit_runtime_model(features: np.ndarray, times: np.ndarray, real: np.ndarray) -> tuple[np.ndarray, str]:
    """Predict 108-epoch training time from features; returns predictions and a held-out summary."""
    from scipy.stats import kendalltau
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.metrics import r2_score

    x, y = features[real], np.log(times[real])
    order = np.random.default_rng(0).permutation(len(y))
    cut = int(0.8 * len(y))
    train, held_out = order[:cut], order[cut:]
    model = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, random_state=0)
    model.fit(x[train], y[train])
    predicted = np.exp(model.predict(x[held_out]))
    r2 = r2_score(np.exp(y[held_out]), predicted)
    tau = kendalltau(np.exp(y[held_out]), predicted).statistic
    summary = (f"gradient-boosted trees on log time from parameters, FLOPs, vertices, edges and op counts; "
               f"held-out (20% of the real cells) R^2 = {r2:.3f}, Kendall tau = {tau:.3f}")
    model.fit(x, y)
    return np.exp(model.predict(features)), summary


def build_nb101() -> None:
    table = unique_cells()
    test = np.load(SHARED / "nb101" / "nb101-test-accuracy-trial0-108.npy")
    flops = np.load(SHARED / "nb101" / "nb101-flops.npy")
    assert len(test) == len(flops) == len(table)
    assert np.array_equal(test.astype(np.float32).astype(np.float64), test), "test accuracies are float32 values"
    print("counting trainable parameters of all cells ...", flush=True)
    parameters = np.array([trainable_parameters(table.cell(i)) for i in range(len(table))], dtype=np.int64)

    times = np.full(len(table), np.nan)
    validation = []
    for name, start in NB101_SLICES.items():
        columns = json.loads((SHARED / "nb101" / name).read_text())
        rows = slice(start, start + len(columns["key"]))
        assert np.array_equal(table.hashes[rows], np.array(columns["key"])), f"{name} keys are not at their positions"
        assert np.array_equal(parameters[rows], columns["trainable_parameters"]), f"{name}: parameter counts differ"
        times[rows] = columns["final_training_time"]
        validation.append(np.column_stack([columns[f"{e}_final_validation_accuracy"] for e in (4, 12, 36, 108)]))
    real = ~np.isnan(times)
    predicted, summary = fit_runtime_model(nb101_features(table, parameters, flops), times, real)
    print("runtime model:", summary)
    training_time = np.where(real, times, predicted)
    save_arrays(
        "nb101-lite.npz.xz",
        {
            "test_accuracy_108": test.astype(np.float32),
            "flops": flops,
            "trainable_parameters": parameters.astype(np.int32),
            "training_time_108": training_time.astype(np.float32),
            "training_time_is_real": real,
            "slice_validation_accuracy": np.concatenate(validation).astype(np.float32),
            "runtime_model_summary": np.array(summary),
        },
        description=(
            "NAS-Bench-101 (CIFAR-10), rows in sorted-hash order: real test accuracy (108 epochs, trial 0) and "
            "FLOPs of all 423,624 cells; exact trainable parameters; real validation accuracy at 4/12/36/108 epochs "
            "and training time for the 30,001 cells at positions 0-20000 and 36202-46201; modelled training time "
            "elsewhere"
        ),
        provenance=(
            "test accuracy and FLOPs: Tongzhou0101/ObfuNAS data/test.npy and data/flops.npy; slices: "
            "tiga1231/nasbench-vis static/data/data-20k.json (a6f5839) and data-10k.json (b85bd62); "
            "built by scripts/build_embedded_data.py"
        ),
    )


if __name__ == "__main__":
    targets = sys.argv[1:] or ["nb101", "nb201"]
    if "nb101" in targets:
        build_nb101()
    if "nb201" in targets:
        from build_nb201_data import build_nb201

        build_nb201()
