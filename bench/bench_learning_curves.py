"""Learning curves of several surrogate models on real NB201 CIFAR-10 data, and their crossovers.

Run: .venv/bin/python bench/bench_learning_curves.py [--models xgb,lgb,rf,gin] [--sizes 100,...]
     [--gin-epochs 30]

The NAS-Bench-301 paper's Fig. 4: which model is best depends on how many architectures it is
trained on (there, the GIN overtakes the tree ensembles as data grows). Every model is fitted
on the same nested subsets of the same training split (one member each) and measured on the
same test split of the real 200-epoch validation accuracies; the script prints MAE and sparse
Kendall tau per size and, per pair of models, the smallest size from which the first ranks at
least as well as the second at every larger size.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from nasarena.studies.builtin_surrogates import nb201_cifar10_data
from nasarena.surrogates.learning_curves import learning_curve
from nasarena.surrogates.settings import FitSettings

FIDELITY = 200


def curves(models: list[str], sizes: list[int], gin_epochs: int) -> dict[str, dict[int, tuple[float, float]]]:
    data, _ = nb201_cifar10_data()
    result: dict[str, dict[int, tuple[float, float]]] = {}
    for model in models:
        settings = FitSettings(model, members=1, seed=0, runtime=False,
                               encoding="graph" if model == "gin" else None,
                               model_settings=(("epochs", gin_epochs),) if model == "gin" else ())
        started = time.perf_counter()
        points = [p for p in learning_curve(data, "nb201", sizes, settings) if p.fidelity == FIDELITY]
        result[model] = {p.training_architectures: (p.metrics.mae, p.metrics.sparse_kendall_tau) for p in points}
        print(f"{model}: {time.perf_counter() - started:.0f} s", flush=True)
    return result


def crossover(first: dict[int, tuple[float, float]], second: dict[int, tuple[float, float]]) -> int | None:
    """Smallest size from which ``first``'s sparse tau is >= ``second``'s at every size measured."""
    sizes = sorted(set(first) & set(second))
    for i, size in enumerate(sizes):
        if all(first[s][1] >= second[s][1] for s in sizes[i:]):
            return size
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="xgb,lgb,rf,gin")
    parser.add_argument("--sizes", default="100,300,1000,3000,12500")
    parser.add_argument("--gin-epochs", type=int, default=30)
    args = parser.parse_args()
    models = args.models.split(",")
    table = curves(models, [int(s) for s in args.sizes.split(",")], args.gin_epochs)
    sizes = sorted(set().union(*table.values()))
    print(f"\n{'training cells':>14s} " + " ".join(f"{m + ' MAE':>10s} {m + ' sp.tau':>10s}" for m in models))
    for size in sizes:
        cells = " ".join(f"{table[m][size][0]:10.4f} {table[m][size][1]:10.4f}" for m in models)
        print(f"{size:14d} {cells}")
    print("\ncrossovers (A ranks at least as well as B from this training size on):")
    for a, b in itertools.permutations(models, 2):
        point = crossover(table[a], table[b])
        if point is not None and point != sizes[0]:
            print(f"  {a} >= {b} from {point} cells")
    print("  (pairs not listed: one model is at least as good at every size, or never)")
    print("\nbest at each size: " + ", ".join(
        f"{s}: {max(models, key=lambda m: np.nan_to_num(table[m][s][1], nan=-1.0))}" for s in sizes))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
