"""``docs/reproduce/nas-bench-301.md``'s small-data point: cross-validated Kendall tau of
surrogates fitted on the 214 real DARTS-space architectures, against the parameter count.

Data: ``shared/data/darts/darts214-random-cifar10.csv`` beside the repository (NAS-Benchmark,
GPL-3.0: read, never shipped): 214 random DARTS-space architectures, each trained once for 600
epochs with the DARTS evaluation pipeline (20 cells, 36 channels). NB301 fitted on ~60,000, so this
is a point for the surrogate learning curve, not a target.

Method: the tooling of ``nasarena surrogate fit`` end to end: ``training_data_from_frame`` reads
the genotypes and accuracies, the space's default encoding encodes them, ``fit_ensembles`` fits
each model (its DARTS-space defaults, ``members`` seeded members, early stopping on a tenth of the
training folds where the model uses it). K-fold cross-validation over seeded folds: every
architecture is predicted once by the fit that did not see it; Kendall tau over the pooled
out-of-fold predictions, its mean and standard deviation over folds (a fold predicted as one
constant has no tau and is counted instead), sparse Kendall tau (0.1 % rounding), Spearman, R^2
and MAE. Baseline: the trainable parameter count of each architecture's evaluation network
(counted by ``nasarena.training`` on PyTorch's meta device), a zero-cost predictor.

Full scale: xgb, lgb, rf and svr, 10 folds, seed 0, the final-epoch accuracy, and the baseline
(about 2 CPU minutes, most of it building 214 networks to count parameters). Cheap scale: rf
(scikit-learn's forest, double precision: the same splits on every CPU) with 3 folds, no baseline.
``bench/bench_darts214_surrogate.py`` runs the same for other models, targets and seeds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import DataFileError, InvalidSettingError
from ...spaces.darts import DartsSpace
from ...surrogates.data import training_data_from_frame
from ...surrogates.encoding import ArchitectureEncoder
from ...surrogates.evaluation import predict_in_chunks
from ...surrogates.fitting import fit_ensembles
from ...surrogates.metrics import fit_metrics
from ...surrogates.settings import FitSettings
from ...surrogates.spaces import default_encoding
from .pages import Generated
from .recorded import CHEAP

#: The shared data folder beside the repository (the checkout's sibling ``shared``).
DATA = Path(__file__).resolve().parents[4].parent / "shared" / "data" / "darts" / "darts214-random-cifar10.csv"
TARGETS = ("final_epoch_test_acc", "best_test_acc", "test_acc_epoch450", "test_acc_epoch300")
EPOCHS = 600


@dataclass(frozen=True)
class Study:
    """What one cross-validation study runs."""

    models: tuple[str, ...]
    folds: int
    seed: int = 0
    members: int = 1
    target: str = TARGETS[0]
    parameters: bool = True


FULL_STUDY = Study(("xgb", "lgb", "rf", "svr"), folds=10)
CHEAP_STUDY = Study(("rf",), folds=3, parameters=False)


def read(target: str, path: Path = DATA):
    """The 214 architectures and ``target`` as surrogate training data."""
    if not path.is_file():
        raise DataFileError(f"the 214 DARTS architectures are not at {path}: this study reads the shared data "
                            "folder beside the repository (shared/data/darts)")
    if target not in TARGETS:
        raise InvalidSettingError(f"unknown target {target!r}; the file holds {', '.join(TARGETS)}")
    table = pd.read_csv(path)
    frame = pd.DataFrame({"arch": table["genotype"], "valid_accuracy": table[target], "fidelity": EPOCHS,
                          "source": "rs"})
    return training_data_from_frame(frame, DartsSpace(), description=f"{path.name}, {target}")


def encode(data) -> np.ndarray:
    return ArchitectureEncoder(DartsSpace(), default_encoding("darts")).encode_many(data.archs, data.identities)


def cross_validated(data, x: np.ndarray, model: str, folds: int, seed: int, members: int):
    """Out-of-fold predictions of every architecture and the Kendall tau of each fold (NaN where
    the fit predicted one constant for the whole fold)."""
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
        ensemble = fit_ensembles(DartsSpace(), settings, x, data, train, stop)[EPOCHS]
        predicted[test] = predict_in_chunks(ensemble, x[test])[0]
        taus.append(stats.kendalltau(data.valid_accuracy[test], predicted[test]).statistic)
    return predicted, np.array(taus)


def parameter_counts(data) -> np.ndarray:
    """Trainable parameters of each architecture's DARTS evaluation network (36 channels, 20 cells)."""
    import torch

    from ...training import build_network, count_parameters

    with torch.device("meta"):  # shapes only: counting needs no memory or initialisation
        return np.array([count_parameters(build_network("darts", arch)) for arch in data.archs], dtype=float)


def run_study(study: Study, path: Path = DATA) -> tuple[dict[str, float], dict[str, float]]:
    """(values, timings): the data's summary, the baseline's and every model's metrics; seconds per predictor."""
    data = read(study.target, path)
    x = encode(data)
    y = data.valid_accuracy
    values = {"architectures": float(len(data)), "features": float(x.shape[1]), "target_mean": float(y.mean()),
              "target_sd": float(y.std()), "target_min": float(y.min()), "target_max": float(y.max())}
    timings: dict[str, float] = {}
    if study.parameters:
        start = time.process_time()
        counts = parameter_counts(data)
        metrics = fit_metrics(y, counts / counts.max())
        values.update({"parameters/tau": metrics.kendall_tau, "parameters/spearman": metrics.spearman})
        timings["parameters/cpu_seconds"] = time.process_time() - start
    for model in study.models:
        start = time.process_time()
        predicted, taus = cross_validated(data, x, model, study.folds, study.seed, study.members)
        metrics = fit_metrics(y, predicted)
        values.update({f"{model}/tau": metrics.kendall_tau, f"{model}/constant_folds": float(np.isnan(taus).sum()),
                       f"{model}/fold_tau_mean": float(np.nanmean(taus)) if not np.isnan(taus).all() else np.nan,
                       f"{model}/fold_tau_sd": float(np.nanstd(taus)) if not np.isnan(taus).all() else np.nan,
                       f"{model}/sparse_tau": metrics.sparse_kendall_tau, f"{model}/spearman": metrics.spearman,
                       f"{model}/r2": metrics.r2, f"{model}/mae": metrics.mae})
        timings[f"{model}/cpu_seconds"] = time.process_time() - start
    return values, timings


def generate(scale: str, results: Path, jobs: int) -> Generated:
    study = CHEAP_STUDY if scale == CHEAP else FULL_STUDY
    values, timings = run_study(study)
    configuration = (f"{DATA.name}/{study.target}/{study.folds}-fold/members {study.members}/"
                     + ",".join(study.models) + ("/parameters" if study.parameters else ""))
    return Generated(table(values, timings, study), values, (configuration,), (study.seed,), timings)


def _fold_tau(values: dict[str, float], model: str, folds: int) -> str:
    constant = int(values[f"{model}/constant_folds"])
    if constant == folds:
        return f"- (all {folds} folds predicted one constant)"
    spread = f"{values[f'{model}/fold_tau_mean']:.3f} +- {values[f'{model}/fold_tau_sd']:.3f}"
    return spread + (f" ({constant} constant)" if constant else "")


def predictors(values: dict[str, float]) -> list[str]:
    """The fitted models, best pooled tau first."""
    names = {key.split("/")[0] for key in values if key.endswith("/constant_folds")}
    return sorted(names, key=lambda name: (-values[f"{name}/tau"], name))


def table(values: dict[str, float], timings: dict[str, float], study: Study) -> str:
    lines = [f"{values['architectures']:.0f} architectures, target `{study.target}` (mean {values['target_mean']:.4f}, "
             f"sd {values['target_sd']:.4f}, range {values['target_min']:.4f}-{values['target_max']:.4f}); "
             f"{study.folds}-fold cross-validation, seed {study.seed}, {values['features']:.0f} features, "
             f"{study.members} member{'s' if study.members != 1 else ''} per model:", "",
             "| predictor | Kendall tau (pooled) | tau per fold | sparse tau | Spearman | R^2 | MAE | CPU s |",
             "|---|---|---|---|---|---|---|---|"]
    if "parameters/tau" in values:
        lines.append(f"| parameter count (zero-cost baseline) | {values['parameters/tau']:.3f} | | | "
                     f"{values['parameters/spearman']:.3f} | | | {timings.get('parameters/cpu_seconds', np.nan):.0f} |")
    for model in predictors(values):
        lines.append(f"| {model} | {values[f'{model}/tau']:.3f} | {_fold_tau(values, model, study.folds)} | "
                     f"{values[f'{model}/sparse_tau']:.3f} | {values[f'{model}/spearman']:.3f} | "
                     f"{values[f'{model}/r2']:.3f} | {values[f'{model}/mae']:.4f} | "
                     f"{timings.get(f'{model}/cpu_seconds', np.nan):.1f} |")
    return "\n".join(lines)
