"""One-shot optimizers on NAS-Bench-1Shot1 space 3: quick CPU runs and the paper configuration's epoch time.

Two measurements (NAS-Bench-1Shot1 issue, "Proof"):

1. the quick configuration (:func:`nasarena.oneshot.quick_settings`: 4 channels, 16 x 16 images,
   50 images per class, 2 epochs) of every optimizer on ``nb1shot1-3``, one seed each: final
   test regret (nb101-lite) and seconds per epoch;
2. seconds per epoch at the paper's configuration (batch 96, Random-WS 64; 16 channels;
   32 x 32; 40,000 training images) on this machine, *extrapolated*: a few training steps are
   timed after one warm-up step and multiplied by the steps of an epoch, plus the end-of-epoch
   work (choosing the architecture and the one-shot validation pass over 10,000 images) from
   timed no-gradient forward passes times their count.

    OMP_NUM_THREADS=1 python bench/bench_oneshot.py [--threads 1] [--steps 3] [--out DIR]

Writes ``bench_oneshot.json`` and prints two tables. Slow (minutes); not part of the tests.

Measured 2026-11-25 on the project's 2-core CPU machine, one torch thread, with one other
single-process job running (load average 1.4-1.6), seed 0, nb101-lite, optimum of space 3 =
0.9466, after the class-mixed validation batches (319b2af):

    optimizer   quick regret  quick s/epoch | paper s/step  steps  total h/epoch (extrapolated)
    darts             0.0137            5.1 |         8.92    417   1.10
    darts-2nd         0.1108           11.4 |        21.54    417   2.56
    gdas              0.0587            2.9 |         4.31    417   0.51
    pc-darts          0.0691            4.0 |         4.30    417   0.53
    random-ws         0.0212            1.5 |         0.64    625   0.85 (0.74 h of it: 1000 samples x 10 batches)
    enas              0.0625            1.4 |         1.63    417   0.30

An earlier measurement on the same machine under a load average of 15-20 gave 7-14x these
times (darts 71.5 s per quick epoch, 7.36 h per paper epoch), which is why the load is stated.

Two quick epochs are far too few for the regrets to rank the optimizers; they show the pipeline.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import time
from pathlib import Path

import torch

from nasarena.oneshot import OPTIMIZERS, paper_settings, quick_settings
from nasarena.oneshot.lookup import Nb101Lookup
from nasarena.oneshot.optimizers import search_class
from nasarena.oneshot.run import run_search
from nasarena.oneshot.scoring import one_shot_accuracy
from nasarena.oneshot.supernet import PathWeights
from nasarena.training.data import batches, load_cifar10

SPACE = "nb1shot1-3"
TRAIN_IMAGES = 40_000
VALID_IMAGES = 10_000


def quick_runs(lookup: Nb101Lookup, seed: int) -> list[dict]:
    data = load_cifar10(image_size=16, subset=50)
    rows = []
    for optimizer in OPTIMIZERS:
        with tempfile.TemporaryDirectory() as folder:
            records = run_search(quick_settings(optimizer, SPACE), seed, Path(folder) / "run", data=data, lookup=lookup)
        last = records[-1]
        rows.append({"optimizer": optimizer, "epochs": last.epoch, "final_regret": last.test_regret,
                     "architecture": last.architecture, "seconds_per_epoch": statistics.mean(r.seconds for r in records)})
        print(f"quick {optimizer}: regret {last.test_regret:.4f}, {rows[-1]['seconds_per_epoch']:.1f} s/epoch", flush=True)
    return rows


def paper_epoch_time(lookup: Nb101Lookup, steps: int, seed: int) -> list[dict]:
    data = load_cifar10(image_size=32, subset=100)  # enough images for a few full batches
    rows = []
    for optimizer in OPTIMIZERS:
        settings = paper_settings(optimizer, SPACE)
        search = search_class(optimizer)(settings, data, lookup, seed, "cpu")
        search.supernet.train()
        size = settings.batch_size
        train = list(batches(data.train, size, augment=True, generator=torch.Generator().manual_seed(0),
                             mean=data.mean, std=data.std))[:steps + 1]
        valid = list(batches(data.valid, size, augment=False, generator=None, mean=data.mean, std=data.std))
        timings = []
        for i, batch in enumerate(train):
            start = time.perf_counter()
            search.train_step(0, batch, valid[i % len(valid)])
            timings.append(time.perf_counter() - start)
        step = statistics.mean(timings[1:])
        arch = search.final_architecture(0) if optimizer not in ("random-ws", "enas") else None
        path = search.validation_path(0, arch) if arch is not None else None
        start = time.perf_counter()
        if path is None:
            from nasarena.oneshot.optimizers import uniform_architecture

            path = PathWeights.of_architecture(uniform_architecture(SPACE, search.sampler))
        one_shot_accuracy(search.supernet, path, valid[:2])
        forward = (time.perf_counter() - start) / 2
        valid_batches = math.ceil(VALID_IMAGES / size)
        forwards = valid_batches  # the one-shot validation pass
        if optimizer == "random-ws":
            forwards += settings.samples * settings.screen_batches + settings.finalists * valid_batches
        elif optimizer == "enas":
            forwards += settings.samples * settings.screen_batches
        steps_per_epoch = math.ceil(TRAIN_IMAGES / size)
        rows.append({"optimizer": optimizer, "batch": size, "seconds_per_step": step, "steps_per_epoch": steps_per_epoch,
                     "train_seconds": step * steps_per_epoch, "forward_seconds": forward,
                     "end_of_epoch_forwards": forwards, "end_of_epoch_seconds": forward * forwards,
                     "seconds_per_epoch": step * steps_per_epoch + forward * forwards})
        print(f"paper {optimizer}: {step:.2f} s/step x {steps_per_epoch} + {forwards} forwards x {forward:.2f} s = "
              f"{rows[-1]['seconds_per_epoch'] / 3600:.2f} h/epoch (extrapolated)", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=3, help="timed training steps per optimizer (after 1 warm-up)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-quick", action="store_true")
    parser.add_argument("--skip-paper", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lookup = Nb101Lookup(SPACE)
    result = {"space": SPACE, "threads": args.threads, "optimum_test_accuracy": lookup.optimum,
              "quick": [] if args.skip_quick else quick_runs(lookup, args.seed),
              "paper": [] if args.skip_paper else paper_epoch_time(lookup, args.steps, args.seed)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_oneshot.json").write_text(json.dumps(result, indent=1))
    print("\noptimizer   quick regret  quick s/epoch")
    for row in result["quick"]:
        print(f"{row['optimizer']:<11} {row['final_regret']:>12.4f} {row['seconds_per_epoch']:>13.1f}")
    print("\noptimizer   paper s/step  steps  train h/epoch  end-of-epoch h  total h/epoch (extrapolated)")
    for row in result["paper"]:
        print(f"{row['optimizer']:<11} {row['seconds_per_step']:>12.2f} {row['steps_per_epoch']:>6} "
              f"{row['train_seconds'] / 3600:>14.2f} {row['end_of_epoch_seconds'] / 3600:>15.2f} "
              f"{row['seconds_per_epoch'] / 3600:>14.2f}")


if __name__ == "__main__":
    main()
