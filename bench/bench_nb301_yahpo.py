"""The nb301 benchmark (YAHPO Gym's model of NB301's training data): speed, rank agreement, curves.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_nb301_yahpo.py [--archs 10000] [--curves 1000] [--seed 0]

1. Speed: ``query_batch`` of ``--archs`` architectures drawn uniformly (``--seed``), encoding
   included, one onnxruntime call on 1 thread (best of 3), against the baseline in the same run:
   one plain ``session.run`` per architecture on its own encoded row (encoding included), and
   ``query`` per architecture (the protocol's single query). Queries per second and the ratio.
2. Rank agreement with the 214 real DARTS architectures of ``../shared/data/darts/`` (GPL-3.0:
   read here, never shipped): Kendall tau and Spearman of the model's validation accuracy at
   epoch 98 against their CIFAR-10 test accuracy, with a 95 % bootstrap interval of tau (1,000
   resamples of the architectures, seeded). Their protocol differs from NB301's: DARTS's final
   evaluation (600 epochs, 20 cells, 36 channels, test accuracy on the CIFAR-10 test set) against
   NB301's (100 epochs, 8 cells, 32 channels, validation accuracy on 10k images held out of the
   training set), so only the ranking is compared, and it is bounded by how far the two
   protocols rank architectures alike. Control: the same architectures fed with the 28 edge
   columns in the encoding file's alphabetical key order (edge_normal_0, 1, 10, 11, ...)
   instead of YAHPO's numeric ``cat_names`` order, the order nasarena feeds.
3. Learning curves of ``--curves`` drawn architectures at every epoch 1-98 (one model call): the
   mean curve, how many curves never decrease, the largest drop between two epochs, how many
   cumulative-runtime curves never decrease, and the rank correlation of each Hyperband rung's
   epochs (eta 3: 1, 4, 11, 33) with epoch 98 (what a multi-fidelity search relies on).
4. Noise: the model has no noise output; checked: repeated queries, and a batch against single
   queries, are bit-identical.

Measured 2026-12-02 (nasarena 0.1.0, onnxruntime 1.31.1 CPU wheel, 1 thread, seed 0, defaults; 2
AMD EPYC cores shared with other jobs at a load average of ~7, so absolute speeds are low and vary
between runs: an earlier run the same day gave 15,975 queries/s for the batch, 1,419/s plain):

- speed, 10,000 architectures: query_batch 14,669 queries/s (0.68 s); one plain ONNX call per
  architecture 1,257/s; query per architecture 1,152/s; batch / plain per-architecture 11.7x
  (11.3x in the earlier run).
- 214 real architectures, against their final-epoch test accuracy (600 epochs): Kendall tau 0.278
  (95 % bootstrap 0.19-0.35), Spearman 0.404; best over the 600 epochs 0.275 / 0.400; at epoch
  450 0.235 / 0.341; at epoch 300 0.210 / 0.305. Control (edges in alphabetical key order): tau
  0.201, so the column order matters and YAHPO's numeric order agrees better.
- curves of 1,000 architectures, mean validation accuracy at epoch 1 / 5 / 10 / 25 / 50 / 75 / 98:
  0.548 / 0.643 / 0.721 / 0.817 / 0.879 / 0.911 / 0.924. Validation accuracy never decreases in
  81.4 % of the curves; the others dip at the end (largest drop per curve: median 0.0001, max
  0.0007, at epochs 89-98). Cumulative runtime never decreases in 42.5 % of the curves; the
  others dip at the end too (median 11.9 s, max 75.2 s, at epochs 89-98, of ~5,000 s in all).
  Spearman with epoch 98: epoch 1 0.36, 4 0.40, 11 0.53, 33 0.63.
- noise: repeated and batched queries bit-identical (deterministic; the model has no noise output).
- optimum (optimum.json, 1,000 local searches): 0.94545, against 0.9367 for the best of the 10,000
  drawn architectures.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from nasarena.benchmarks.nb301_encoding import COLUMNS
from nasarena.benchmarks.nb301_yahpo import X_CAT, X_CONT, NB301Benchmark

DARTS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "darts" / "darts214-random-cifar10.csv"
TARGETS = ("final_epoch_test_acc", "best_test_acc", "test_acc_epoch450", "test_acc_epoch300")
RUNGS = (1, 4, 11, 33)
SHOWN_EPOCHS = (1, 5, 10, 25, 50, 75, 98)


def speed(benchmark: NB301Benchmark, archs: list) -> None:
    batch = min(_timed(lambda: benchmark.query_batch(archs)) for _ in range(3))
    session, encoding = benchmark._session, benchmark._encoding
    epoch = np.full((1, 1), benchmark.fidelities[-1], dtype=np.float32)
    plain = _timed(lambda: [session.run(None, {X_CAT: encoding.encode([a]), X_CONT: epoch}) for a in archs])
    single = _timed(lambda: [benchmark.query(a) for a in archs])
    n = len(archs)
    print(f"speed, {n:,} architectures: query_batch {n / batch:,.0f} queries/s ({batch:.2f} s); one plain ONNX "
          f"call per architecture {n / plain:,.0f}/s; query per architecture {n / single:,.0f}/s; batch / plain "
          f"per-architecture {plain / batch:.1f}x")


def _timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def rank_agreement(benchmark: NB301Benchmark, seed: int) -> None:
    table = pd.read_csv(DARTS)
    archs = [benchmark.space.from_text(g) for g in table["genotype"]]
    predicted = benchmark.query_batch(archs).valid_accuracy
    rng = np.random.default_rng(seed)
    for target in TARGETS:
        real = table[target].to_numpy()
        tau = stats.kendalltau(predicted, real).statistic
        line = f"{target}: Kendall tau {tau:.3f}, Spearman {stats.spearmanr(predicted, real).statistic:.3f}"
        if target == TARGETS[0]:
            draws = rng.integers(len(real), size=(1000, len(real)))
            taus = [stats.kendalltau(predicted[d], real[d]).statistic for d in draws]
            line += f" (95 % bootstrap {np.quantile(taus, 0.025):.2f}-{np.quantile(taus, 0.975):.2f})"
        print(line)
    alphabetical = [COLUMNS.index(name) for half in (COLUMNS[:14], COLUMNS[14:28]) for name in sorted(half)]
    x_cat = benchmark._encoding.encode(archs)[:, alphabetical + list(range(28, len(COLUMNS)))]
    epochs = np.full((len(archs), 1), benchmark.fidelities[-1], dtype=np.float32)
    control = benchmark._session.run(None, {X_CAT: x_cat, X_CONT: epochs})[0][:, 0]
    print(f"control, edges in alphabetical key order: Kendall tau "
          f"{stats.kendalltau(control, table[TARGETS[0]]).statistic:.3f}")


def curves(benchmark: NB301Benchmark, archs: list) -> None:
    valid, seconds = benchmark.learning_curves(archs)
    epochs = np.array(benchmark.fidelities)
    mean = valid.mean(axis=0)
    print(f"curves of {len(archs):,}: mean validation accuracy at epochs "
          + ", ".join(f"{e}: {mean[epochs == e][0]:.3f}" for e in SHOWN_EPOCHS))
    print(f"validation accuracy {_dips(valid, epochs, '.4f')}")
    print(f"cumulative runtime (s) {_dips(seconds, epochs, '.1f')}")
    print("Spearman with epoch 98: " + ", ".join(
        f"epoch {e} {stats.spearmanr(valid[:, e - 1], valid[:, -1]).statistic:.2f}" for e in RUNGS))


def _dips(curves: np.ndarray, epochs: np.ndarray, form: str) -> str:
    """How monotone the curves are: the share that never decrease, and the drops of the others."""
    steps = np.diff(curves, axis=1)
    dipping = steps.min(axis=1) < 0
    text = f"never decreases in {100 * np.mean(~dipping):.1f} % of the curves"
    if dipping.any():
        drops = -steps[dipping].min(axis=1)
        after = epochs[1:][np.argmin(steps[dipping], axis=1)]
        text += (f"; the others' largest drop: median {np.median(drops):{form}}, max {drops.max():{form}}, "
                 f"at epochs {after.min()}-{after.max()} (median {np.median(after):.0f})")
    return text


def noise(benchmark: NB301Benchmark, archs: list) -> None:
    first, again = benchmark.query_batch(archs), benchmark.query_batch(archs)
    singles = np.array([benchmark.query(a).valid_accuracy for a in archs])
    same = np.array_equal(first.valid_accuracy, again.valid_accuracy) and np.array_equal(first.valid_accuracy, singles)
    print(f"noise: repeated and batched queries bit-identical: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archs", type=int, default=10_000)
    parser.add_argument("--curves", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    benchmark = NB301Benchmark(threads=1)
    rng = np.random.default_rng(args.seed)
    archs = [benchmark.space.sample(rng) for _ in range(args.archs)]
    speed(benchmark, archs)
    rank_agreement(benchmark, args.seed)
    curves(benchmark, archs[: args.curves])
    noise(benchmark, archs[:200])
    best = benchmark.query_batch(archs).valid_accuracy.max()
    print(f"optimum {benchmark.optimum():.5f} (optimum.json) against {best:.4f}, the best of the {len(archs):,} drawn")


if __name__ == "__main__":
    main()
