"""Our zero-cost proxies against NAS-Bench-Suite-Zero's published values, architecture by architecture.

Run: .venv/bin/python bench/bench_suite_zero_agreement.py [--architectures N] [--seed S] [--proxies a,b]

NAS-Bench-Suite-Zero (Krishnakumar et al. 2022) publishes the proxies of 725 NB201 architectures
per dataset, computed with NASLib's port of the reference code (zero-cost-nas), and NASLib
publishes Zen-score for all 15,625 cells (``../shared/data/nb201/``). This script draws ``N`` of
the 725 (seeded), computes ours on CIFAR-10 (one minibatch, seed 0, one torch thread, as
``nasarena estimators compute`` does) and prints, per proxy, Spearman's rho between our value
and theirs over those architectures: 1 means the same ranking. What cannot agree exactly: the
data batch (theirs a NASLib loader's batch, ours a seeded CIFAR-10 minibatch), augmentation and
normalisation of that batch, and the weight initialisation's random draws; a proxy whose
definition differs (a missing weighting, another distance) shows up as a clearly lower rho.
Only CIFAR-10: our networks here have CIFAR-10's 10 classes.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np
import torch
from scipy.stats import spearmanr

from nasarena.estimators.compute import compute_proxies, minibatch
from nasarena.spaces.nb201.space import NB201Space
from nasarena.training import load_cifar10

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "nb201"
#: NASLib's NB201 op order and edge order in its tuples (the data README's encoding).
NASLIB_OPS = ("skip_connect", "none", "nor_conv_3x3", "nor_conv_1x1", "avg_pool_3x3")
#: Our proxy name -> Suite-Zero's.
THEIRS = {"params": "params", "flops": "flops", "synflow": "synflow", "snip": "snip", "grasp": "grasp",
          "fisher": "fisher", "grad_norm": "grad_norm", "jacob_cov": "jacov"}


def cell_text(naslib_tuple: str) -> str:
    e = [NASLIB_OPS[int(i)] for i in naslib_tuple.strip("()").split(",")]
    return f"|{e[0]}~0|+|{e[1]}~0|{e[3]}~1|+|{e[2]}~0|{e[4]}~1|{e[5]}~2|"


def published_zen() -> dict[str, float]:
    with open(SHARED / "nb201-naslib-val-200epochs.csv", newline="") as stream:
        return {row["naslib_tuple"]: float(row["zen_score"]) for row in csv.DictReader(stream)
                if row["dataset"] == "cifar10"}


def main(architectures: int, seed: int, proxies: list[str]) -> None:
    suite = json.loads((SHARED / "suite-zero-zc-nasbench201.json").read_text())["cifar10"]
    keys = sorted(suite)
    chosen = [keys[i] for i in np.random.default_rng(seed).choice(len(keys), architectures, replace=False)]
    zen = published_zen()
    space = NB201Space()
    data = load_cifar10()
    images, labels = minibatch(data, 64, 0)
    torch.set_num_threads(1)
    ours: dict[str, list[float]] = {name: [] for name in proxies}
    started = time.perf_counter()
    for key in chosen:
        values = compute_proxies("nb201", space.from_text(cell_text(key)), proxies, images=images, labels=labels).values
        for name in proxies:
            ours[name].append(values[name])
    print(f"{len(chosen)} of the 725 Suite-Zero NB201 architectures (seed {seed}), CIFAR-10, "
          f"{time.perf_counter() - started:.0f} s")
    print(f"{'proxy':12s} {'published':>10s} {'rho(ours, theirs)':>18s} {'undefined (ours)':>17s}")
    for name in proxies:
        if name.startswith("zen"):
            theirs = [zen.get(key, np.nan) for key in chosen]
            source = "NASLib zen"
        elif name in THEIRS:
            theirs = [suite[key][THEIRS[name]]["score"] for key in chosen]
            source = THEIRS[name]
        else:
            continue
        a, b = np.asarray(ours[name], dtype=float), np.asarray(theirs, dtype=float)
        both = np.isfinite(a) & np.isfinite(b)
        rho = spearmanr(a[both], b[both]).statistic if both.sum() > 2 else float("nan")
        print(f"{name:12s} {source:>10s} {rho:18.3f} {int((~np.isfinite(a)).sum()):17d}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--architectures", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--proxies", default="params,synflow,snip,grad_norm,fisher,zen,zen_paper")
    arguments = parser.parse_args()
    main(arguments.architectures, arguments.seed, arguments.proxies.split(","))
