"""Build the embedded latency data of issue 31 from ../shared/data/latency.

Run: .venv/bin/python scripts/build_latency_data.py [nb201] [fbnet] (no argument: both)

- ``nb201-latency.npz.xz``: the measured latency (ms) of all 15,625 NB201 cells on 27 device
  settings, rows in the NB201 benchmark's index order (checked by cell string). Float64: exactly
  the CSV's decimal values as parsed, so a latency bound equal to a published latency admits that
  cell (float32 rounded some of them up, and merged distinct latencies into ties).
- ``fbnet-latency-table.npz``: per device, an additive model of FBNet latency, intercept plus
  one term per (layer, block) with ``skip`` as each layer's reference (its term is 0), fitted by
  least squares on the 5,000 measured FBNet architectures, with its 5-fold held-out error.

Writes the files and records their sha256 and provenance in the manifest. Each file is rebuilt
only when named (or when none is), since a rebuild changes its checksum even where its values do not.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from nasarena.io.packaged import FBNET_LATENCY_FILE, NB201_LATENCY_FILE, save_arrays
from nasarena.spaces.fbnet import BLOCKS, NUM_LAYERS, FBNetArch
from nasarena.spaces.nb201 import NUM_CELLS, cell_at

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "latency"
SOURCE = ("HayeonLee/HELP @ 45f70eb (MIT), data/nasbench201/latency and data/fbnet, which carry HW-NAS-Bench's "
          "measurements (GATECH-EIC/HW-NAS-Bench, MIT: pixel3, raspi4, eyeriss, fpga) and the HELP authors' own "
          "devices; via /work/shared/data/latency")
FOLDS = 5
SEED = 0


def build_nb201_latency() -> None:
    # round_trip: correctly rounded parsing (pandas' default fast parser is off by an ulp on many of
    # these values, which would break a bound equal to a published latency again)
    table = pd.read_csv(SHARED / "nb201-latency-ms-27devices.csv", float_precision="round_trip")
    assert table["nb201_index"].tolist() == list(range(NUM_CELLS)), "rows are not in NB201 index order"
    expected = [cell_at(i).to_string() for i in range(NUM_CELLS)]
    assert table["arch_str"].tolist() == expected, "cell strings differ from the NB201 benchmark's rows"
    devices = [column for column in table.columns if column not in ("nb201_index", "arch_str")]
    values = table[devices].to_numpy(dtype=np.float64)
    assert np.isfinite(values).all() and (values > 0).all()
    save_arrays(NB201_LATENCY_FILE, {"devices": np.array(devices), "latency_ms": values},
                description=("inference latency (ms, float64: the source's decimal values as parsed) of the 15,625 "
                             "NAS-Bench-201 CIFAR-10 networks (32x32 input, 10 classes; index order, checked by cell "
                             "string) on 27 device settings: GPUs 1080ti, 2080ti, titan_rtx, titanx, titanxp at batch "
                             "1/32/256, CPUs gold_6226, gold_6240, silver_4114, silver_4210r, phones pixel2, pixel3, "
                             "samsung_a50, samsung_s7, essential_ph_1, raspi4, and the eyeriss (ASIC) and fpga "
                             "simulator estimates"),
                provenance=SOURCE + "; built by scripts/build_latency_data.py")


def design(op_indices: np.ndarray) -> np.ndarray:
    """Intercept plus one-hot (layer, block) columns without ``skip`` (the reference level)."""
    n = len(op_indices)
    one_hot = np.zeros((n, NUM_LAYERS, len(BLOCKS)))
    one_hot[np.arange(n)[:, None], np.arange(NUM_LAYERS), op_indices] = 1
    return np.column_stack([np.ones(n), one_hot[:, :, :-1].reshape(n, -1)])


def held_out_errors(x: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Per device, RMSE, max |error| and R^2 of the least-squares fit over ``FOLDS`` seeded folds
    (each architecture predicted once, by the model fitted without its fold)."""
    folds = np.array_split(np.random.default_rng(SEED).permutation(len(y)), FOLDS)
    predicted = np.empty_like(y)
    for fold in folds:
        train = np.setdiff1d(np.arange(len(y)), fold)
        coefficients, *_ = np.linalg.lstsq(x[train], y[train], rcond=None)
        predicted[fold] = x[fold] @ coefficients
    error = predicted - y
    return {"cv_rmse_ms": np.sqrt((error ** 2).mean(axis=0)),
            "cv_max_abs_ms": np.abs(error).max(axis=0),
            "cv_r2": 1 - (error ** 2).sum(axis=0) / ((y - y.mean(axis=0)) ** 2).sum(axis=0)}


def build_fbnet_table() -> None:
    table = pd.read_csv(SHARED / "fbnet-latency-ms-27devices-5000archs.csv")
    op_indices = np.array([[int(i) for i in text.split()] for text in table["op_idx_list"]])
    for text, indices in zip(table["arch_str"], op_indices):  # the two columns agree with our block order
        assert FBNetArch(tuple(text.split("-"))).block_indices == tuple(indices), text
    devices = [column for column in table.columns if column not in ("idx", "arch_str", "op_idx_list")]
    y = table[devices].to_numpy(dtype=np.float64)
    x = design(op_indices)
    errors = held_out_errors(x, y)
    coefficients, *_ = np.linalg.lstsq(x, y, rcond=None)
    terms = np.zeros((NUM_LAYERS, len(BLOCKS), len(devices)))
    terms[:, :-1, :] = coefficients[1:].reshape(NUM_LAYERS, len(BLOCKS) - 1, len(devices))
    for name, value in errors.items():
        print(name, dict(zip(devices, np.round(value, 4))))
    save_arrays(FBNET_LATENCY_FILE,
                {"devices": np.array(devices), "blocks": np.array(BLOCKS), "intercept_ms": coefficients[0],
                 "terms_ms": terms, "measured": np.array(len(y)), **errors},
                description=("additive FBNet latency model per device setting (27; GPUs at batch 1/32/64): "
                             "intercept_ms[device] + sum over the 22 layers of terms_ms[layer, block, device] "
                             "(skip: 0), least squares on 5,000 measured architectures; cv_*: its 5-fold held-out "
                             "RMSE, max |error| (ms) and R^2 per device"),
                provenance=SOURCE + "; fitted by scripts/build_latency_data.py")


BUILDERS = {"nb201": build_nb201_latency, "fbnet": build_fbnet_table}

if __name__ == "__main__":
    named = sys.argv[1:] or list(BUILDERS)
    unknown = [name for name in named if name not in BUILDERS]
    if unknown:
        sys.exit(f"unknown table {', '.join(unknown)}; expected any of {', '.join(BUILDERS)}")
    for name in named:
        BUILDERS[name]()
