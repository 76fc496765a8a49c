"""Embed the 52 NAS-Bench-101 cells with all three real trials (108 epochs) as package data.

Source: ``/work/shared/data/nb101/nb101-pertrial-108-52cells.csv`` (automl/NASLib
tests/assets/nb101_dummy.pkl, Apache-2.0). Rows are sorted-hash positions of ``unique_cells()``.
Run once: ``python scripts/build_nb101_pertrial.py [CSV]``.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from nasarena.io.packaged import save_arrays
from nasarena.spaces.nb101 import unique_cells

NAME = "nb101-pertrial-52.npz"


def main(csv: str = "/work/shared/data/nb101/nb101-pertrial-108-52cells.csv") -> None:
    frame = pd.read_csv(csv)
    table = unique_cells()
    frame["row"] = [table.index_of(h) for h in frame["hash"]]
    frame = frame.sort_values(["row", "trial"])

    def pivot(column: str) -> np.ndarray:
        return frame.pivot(index="row", columns="trial", values=column).to_numpy(np.float32)

    rows = np.sort(frame["row"].unique()).astype(np.int64)
    save_arrays(
        NAME,
        {"rows": rows, "valid_accuracy": pivot("final_validation_accuracy"),
         "test_accuracy": pivot("final_test_accuracy"), "training_time": pivot("final_training_time")},
        description="NAS-Bench-101: 52 cells x 3 real trials at 108 epochs (validation and test accuracy, training "
                    "time), rows in sorted-hash order; the per-trial noise of nb101-noisy is fitted on them",
        provenance="automl/NASLib tests/assets/nb101_dummy.pkl (Apache-2.0), via /work/shared/data/nb101/"
                   "nb101-pertrial-108-52cells.csv; built by scripts/build_nb101_pertrial.py",
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
