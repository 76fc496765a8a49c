"""How far the ``nb301`` benchmark (YAHPO Gym's model of NB301's training data) can be trusted,
checked as the NB301 paper checks its surrogates, as far as the data here allows.

* **rank agreement** with the 214 real DARTS-space architectures of ``shared/data/darts`` (read,
  never shipped): Kendall tau and Spearman of the model's validation accuracy at its last epoch
  against their CIFAR-10 test accuracy, with a seeded 95 % bootstrap interval of tau. Their
  protocol differs from NB301's (DARTS's final evaluation: 600 epochs, 20 cells, 36 channels,
  the CIFAR-10 test set; NB301: 100 epochs, 8 cells, 32 channels, 10k images held out of the
  training set), so only rankings are compared, bounded by how alike the two protocols rank.
  Control: the same architectures with the 28 edge columns in the encoding file's alphabetical
  key order instead of YAHPO's numeric order (the one nasarena feeds);
* **learning curves** at every epoch of drawn architectures: the mean curve, how many never
  decrease (validation accuracy and cumulative runtime), and how each Hyperband rung (eta 3:
  epochs 1, 4, 11, 33) ranks like the last epoch, which multi-fidelity search relies on;
* **noise**: the model has none; repeated and batched queries must be bit-identical;
* **speed**: ``query_batch`` against one plain onnxruntime call per architecture (encoding
  included in both) and the protocol's ``query`` per architecture, in the same run.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..benchmarks.nb301_encoding import COLUMNS
from ..benchmarks.nb301_yahpo import X_CAT, X_CONT, NB301Benchmark
from ..errors import DataFileError

#: The shared data folder beside the repository (the checkout's sibling ``shared``).
DARTS214 = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "darts" / "darts214-random-cifar10.csv"
#: Their accuracies: after the 600th epoch, the best of the 600, after epochs 450 and 300.
TARGETS = ("final_epoch_test_acc", "best_test_acc", "test_acc_epoch450", "test_acc_epoch300")
RUNGS = (1, 4, 11, 33)
SHOWN_EPOCHS = (1, 5, 10, 25, 50, 75, 98)
BOOTSTRAP = 1_000


def drawn(benchmark: NB301Benchmark, count: int, seed: int) -> list:
    """``count`` architectures drawn uniformly from the DARTS space with ``seed``."""
    rng = np.random.default_rng(seed)
    return [benchmark.space.sample(rng) for _ in range(count)]


def rank_agreement(benchmark: NB301Benchmark, seed: int, path: Path = DARTS214) -> dict[str, float]:
    """``TARGET/kendall``, ``TARGET/spearman``, the bootstrap interval of the first target's tau
    (``bootstrap_low``/``_high``) and the control's tau (``control_kendall``)."""
    if not path.is_file():
        raise DataFileError(f"the 214 DARTS architectures are not at {path}: this check reads the shared data "
                            "folder beside the repository (shared/data/darts)")
    table = pd.read_csv(path)
    archs = [benchmark.space.from_text(genotype) for genotype in table["genotype"]]
    predicted = benchmark.query_batch(archs).valid_accuracy
    values = {"architectures": float(len(archs))}
    for target in TARGETS:
        real = table[target].to_numpy()
        values[f"{target}/kendall"] = float(stats.kendalltau(predicted, real).statistic)
        values[f"{target}/spearman"] = float(stats.spearmanr(predicted, real).statistic)
    real = table[TARGETS[0]].to_numpy()
    draws = np.random.default_rng(seed).integers(len(real), size=(BOOTSTRAP, len(real)))
    taus = [stats.kendalltau(predicted[d], real[d]).statistic for d in draws]
    values["bootstrap_low"], values["bootstrap_high"] = (float(q) for q in np.quantile(taus, [0.025, 0.975]))
    alphabetical = [COLUMNS.index(name) for half in (COLUMNS[:14], COLUMNS[14:28]) for name in sorted(half)]
    x_cat = benchmark._encoding.encode(archs)[:, alphabetical + list(range(28, len(COLUMNS)))]
    epochs = np.full((len(archs), 1), benchmark.fidelities[-1], dtype=np.float32)
    control = benchmark._session.run(None, {X_CAT: x_cat, X_CONT: epochs})[0][:, 0]
    values["control_kendall"] = float(stats.kendalltau(control, real).statistic)
    return values


def curve_shape(benchmark: NB301Benchmark, archs: list) -> dict[str, float]:
    """The mean curve at :data:`SHOWN_EPOCHS`, the share of monotone curves, the largest drops,
    and each rung's Spearman with the last epoch."""
    valid, seconds = benchmark.learning_curves(archs)
    epochs = np.array(benchmark.fidelities)
    values = {"curves": float(len(archs))}
    values.update({f"mean_at_{e}": float(valid[:, epochs == e].mean()) for e in SHOWN_EPOCHS})
    for name, curves in (("valid", valid), ("runtime", seconds)):
        steps = np.diff(curves, axis=1)
        dipping = steps.min(axis=1) < 0
        values[f"{name}/monotone_share"] = float(np.mean(~dipping))
        values[f"{name}/largest_drop"] = float(-steps.min()) if dipping.any() else 0.0
        values[f"{name}/first_drop_epoch"] = float(epochs[1:][np.argmin(steps[dipping], axis=1)].min()) \
            if dipping.any() else float("nan")
    values.update({f"rung_{e}/spearman": float(stats.spearmanr(valid[:, epochs == e][:, 0], valid[:, -1]).statistic)
                   for e in RUNGS})
    return values


def deterministic(benchmark: NB301Benchmark, archs: list) -> bool:
    """Whether repeated batches and single queries give bit-identical accuracies."""
    first, again = benchmark.query_batch(archs), benchmark.query_batch(archs)
    singles = np.array([benchmark.query(arch).valid_accuracy for arch in archs])
    return bool(np.array_equal(first.valid_accuracy, again.valid_accuracy)
                and np.array_equal(first.valid_accuracy, singles))


def speed(benchmark: NB301Benchmark, archs: list, repeats: int = 3) -> dict[str, float]:
    """Queries per second: ``batch`` (best of ``repeats``), ``plain`` (one onnxruntime call per
    architecture on its own encoded row), ``single`` (``query`` per architecture), and
    ``batch_over_plain``."""
    batch = min(_timed(lambda: benchmark.query_batch(archs)) for _ in range(repeats))
    session, encoding = benchmark._session, benchmark._encoding
    epoch = np.full((1, 1), benchmark.fidelities[-1], dtype=np.float32)
    plain = _timed(lambda: [session.run(None, {X_CAT: encoding.encode([arch]), X_CONT: epoch}) for arch in archs])
    single = _timed(lambda: [benchmark.query(arch) for arch in archs])
    n = len(archs)
    return {"batch": n / batch, "plain": n / plain, "single": n / single, "batch_over_plain": plain / batch}


def _timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start
