"""Cross-validated Kendall tau of surrogates fitted on the 214 real DARTS architectures.

Run: .venv/bin/python bench/bench_darts214_surrogate.py [--models xgb,lgb,rf,svr] [--folds 10]
     [--target final_epoch_test_acc] [--seed 0] [--no-parameters]

Data: ``../shared/data/darts/darts214-random-cifar10.csv`` (NAS-Benchmark, GPL-3.0: read here,
never shipped): 214 random DARTS-space architectures, each trained once for 600 epochs with the
DARTS evaluation pipeline (20 cells, 36 channels). A small-data point for the surrogate learning
curve (NB301 fitted on ~60,000), with an honest number, not a target.

Method: the existing tooling end to end: ``training_data_from_frame`` reads the genotypes and
accuracies as ``nasarena surrogate fit`` would, the space's default encoding encodes them, and
``fit_ensembles`` fits each model (its defaults for the DARTS space, ``--members`` seeded
members, early stopping on a tenth of the training folds where the model uses it). K-fold cross
validation (seeded folds over architectures): every architecture is predicted once by the fit
that did not see it; Kendall tau is reported over the pooled out-of-fold predictions and as the
mean and standard deviation over folds, with sparse Kendall tau (0.1 % rounding), Spearman, R^2
and MAE. Baseline: the trainable parameter count of each architecture's network (DARTS
evaluation network, counted by ``nasarena.training``) as the predictor, a zero-cost proxy.

Measured (2 shared CPU cores, seed 0, 10 folds, final-epoch accuracy): pooled Kendall tau
lgb 0.314 (per fold 0.306 +- 0.114), rf 0.255, xgb -0.083 and svr 0.039 (their defaults, made for
NB301's tens of thousands of runs, predict one constant per fold, in all 10 folds, on ~170
training architectures whose accuracies spread over 0.2 %: svr's epsilon of 0.1 exceeds the
whole range); parameter-count baseline 0.167.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from nasarena.spaces.darts import DartsSpace
from nasarena.surrogates.data import training_data_from_frame
from nasarena.surrogates.encoding import ArchitectureEncoder
from nasarena.surrogates.evaluation import predict_in_chunks
from nasarena.surrogates.fitting import fit_ensembles
from nasarena.surrogates.metrics import fit_metrics
from nasarena.surrogates.settings import FitSettings
from nasarena.surrogates.spaces import default_encoding

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "darts" / "darts214-random-cifar10.csv"
TARGETS = ("final_epoch_test_acc", "best_test_acc", "test_acc_epoch450", "test_acc_epoch300")


def read(target: str):
    table = pd.read_csv(DATA)
    frame = pd.DataFrame({"arch": table["genotype"], "valid_accuracy": table[target], "fidelity": 600,
                          "source": "rs"})
    return training_data_from_frame(frame, DartsSpace(), description=f"{DATA.name}, {target}")


def cross_validated(data, x: np.ndarray, model: str, folds: int, seed: int, members: int):
    """Out-of-fold predictions of every architecture and the Kendall tau of each fold."""
    rng = np.random.default_rng(seed)
    fold_of = rng.permutation(np.arange(len(data)) % folds)
    predicted = np.full(len(data), np.nan)
    taus = []
    settings = FitSettings(model=model, members=members, seed=seed)
    for fold in range(folds):
        test = np.flatnonzero(fold_of == fold)
        rest = rng.permutation(np.flatnonzero(fold_of != fold))
        stop = rest[: max(1, len(rest) // 10)]
        train = rest[len(stop):]
        ensemble = fit_ensembles(DartsSpace(), settings, x, data, train, stop)[600]
        predicted[test] = predict_in_chunks(ensemble, x[test])[0]
        taus.append(stats.kendalltau(data.valid_accuracy[test], predicted[test]).statistic)
    return predicted, np.array(taus)


def parameter_counts(data) -> np.ndarray:
    """Trainable parameters of each architecture's DARTS evaluation network (36 channels, 20 cells)."""
    import torch

    from nasarena.training import build_network, count_parameters

    counts = []
    with torch.device("meta"):  # shapes only: counting needs no memory or initialisation
        for arch in data.archs:
            counts.append(count_parameters(build_network("darts", arch)))
    return np.array(counts, dtype=float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="xgb,lgb,rf,svr")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--target", default=TARGETS[0], choices=TARGETS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--members", type=int, default=1)
    parser.add_argument("--no-parameters", action="store_true", help="skip the parameter-count baseline")
    args = parser.parse_args()
    if not DATA.exists():
        raise SystemExit(f"the 214 DARTS architectures are not at {DATA}")
    data = read(args.target)
    x = ArchitectureEncoder(DartsSpace(), default_encoding("darts")).encode_many(data.archs, data.identities)
    y = data.valid_accuracy
    print(f"{len(data)} DARTS architectures, target {args.target} (fraction: mean {y.mean():.4f}, sd {y.std():.4f}, "
          f"range {y.min():.4f}-{y.max():.4f}); {args.folds}-fold CV, seed {args.seed}, encoding "
          f"{default_encoding('darts')} ({x.shape[1]} features), {args.members} member(s)")
    print(f"{'predictor':24s} {'tau (pooled)':>12s} {'tau per fold':>16s} {'sparse tau':>10s} {'spearman':>9s} "
          f"{'R^2':>7s} {'MAE':>7s} {'seconds':>8s}")
    if not args.no_parameters:
        start = time.perf_counter()
        counts = parameter_counts(data)
        m = fit_metrics(y, counts / counts.max())
        print(f"{'baseline: parameters':24s} {m.kendall_tau:12.3f} {'':>16s} {'':>10s} {m.spearman:9.3f} {'':>7s} "
              f"{'':>7s} {time.perf_counter() - start:8.1f}")
    for model in [m.strip() for m in args.models.split(",") if m.strip()]:
        start = time.perf_counter()
        predicted, taus = cross_validated(data, x, model, args.folds, args.seed, args.members)
        m = fit_metrics(y, predicted)
        constant = int(np.isnan(taus).sum())  # a fit that predicts one value for a whole fold has no tau
        note = f"  ({constant} fold(s) predicted constant)" if constant else ""
        per_fold = f"{np.nanmean(taus):8.3f} +- {np.nanstd(taus):5.3f}" if constant < len(taus) else f"{'-':>16s}"
        print(f"{model:24s} {m.kendall_tau:12.3f} {per_fold} "
              f"{m.sparse_kendall_tau:10.3f} {m.spearman:9.3f} {m.r2:7.3f} {m.mae:7.4f} "
              f"{time.perf_counter() - start:8.1f}{note}")


if __name__ == "__main__":
    main()
