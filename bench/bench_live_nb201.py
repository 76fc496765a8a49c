"""The live benchmark on real CIFAR-10 against NAS-Bench-201's own numbers, at a CPU-sized scale.

Run: .venv/bin/python bench/bench_live_nb201.py [--cells 12] [--epochs 4] [--subset 250]
     [--image-size 16] [--channels 8] [--store DIR]

Trains ``--cells`` NB201 cells drawn with a fixed seed (``nasarena.benchmark("live",
space="nb201")`` under NB201's protocol with batch 128, a reduced network and data) and
prints, per cell, the live validation/test accuracy and measured seconds next to NB201's
real 200-epoch CIFAR-10 test accuracy (the embedded ``nb201-cifar10`` benchmark), then the
Kendall tau between the two: how far a few CPU minutes per cell rank cells like the full
protocol does. Results are kept in the store, so a second run prints at once.

Measured (defaults, 2 shared CPU cores, one thread): 53 s per cell; every cell reached 33.6-35.6 %
test accuracy, and the Kendall tau against NB201 is -0.03 over 12 cells: at 8 channels, one cell
per stage, 16x16 images, 2,500 training images and 4 epochs the residual reduction blocks carry
the network and the cell does not matter yet (a cell that only average-pools its input scores
alike: 35.3 %, NB201 75.6 %).
The live path works end to end; ranking like NB201 needs more of its scale than a CPU minute.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
from scipy import stats

import nasarena


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=12)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--subset", type=int, default=250)
    parser.add_argument("--image-size", type=int, default=16)
    parser.add_argument("--channels", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--store", default=None, help="live store (default: a temporary folder)")
    args = parser.parse_args()
    store = args.store or tempfile.mkdtemp(prefix="nasarena-live-")
    live = nasarena.benchmark("live", space="nb201", store=store, settings=("batch_size=128",),
                              fidelities=(args.epochs,), image_size=args.image_size, subset=args.subset,
                              channels=args.channels, cells_per_stage=1)
    table = nasarena.benchmark("nb201-cifar10")
    rng = np.random.default_rng(args.seed)
    cells = [live.space.sample(rng) for _ in range(args.cells)]
    print(live.describe().to_text())
    print(f"{'cell':64s} {'live valid':>10s} {'live test':>9s} {'seconds':>8s} {'NB201 test':>10s}")
    live_test, real_test, seconds = [], [], []
    for cell in cells:
        start = time.perf_counter()
        result = live.query(cell)
        real = table.final_test_accuracy(cell)
        live_test.append(result.test_accuracy)
        real_test.append(real)
        seconds.append(result.cost_seconds)
        print(f"{live.space.to_text(cell):64s} {result.valid_accuracy:10.4f} {result.test_accuracy:9.4f} "
              f"{result.cost_seconds:8.1f} {real:10.4f}   ({time.perf_counter() - start:.1f} s now)")
    tau = stats.kendalltau(live_test, real_test).statistic
    print(f"Kendall tau (live test accuracy vs NB201 200-epoch test accuracy, {len(cells)} cells): {tau:.3f}; "
          f"mean measured training time {np.mean(seconds):.1f} s per cell; store {store}")


if __name__ == "__main__":
    main()
