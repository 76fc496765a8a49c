"""Speed of scoring architectures with a kept supernet ('nasarena oneshot correlate').

For one run directory with kept supernets (``--set snapshot_every=1``) and one epoch, scores the
first ``--architectures`` of the space's set without loose ends on ``--batches`` validation
batches: in this process on one torch thread (seconds per architecture, the reference), then
the same architectures split over ``--jobs`` spawned processes as the command does
(architectures per second of wall time once the workers have started and loaded the data). Both in one run, with the load
average printed, since the machine is shared. Scores must agree exactly (same forward).

    OMP_NUM_THREADS=1 python bench/bench_oneshot_correlation.py RUN_DIR [--epoch 3] [--architectures 200]

Slow (a minute or more); not part of the tests.

Measured 2026-11-25 on the project's 2-core CPU machine with one other single-process job
running (load average 1.3-1.6), on the quick DARTS run of space 3 (4 channels, 16 x 16 images,
batch 32, class-mixed validation batches), epoch 3, one validation batch, 300 architectures:

    one process, one thread: 16.9 ms per architecture (59.3 architectures/s)
    2 processes: 90.1 architectures/s after start-up; scores equal to the reference: True

'oneshot correlate' on the six quick runs of space 3 (2,000 architectures x 3 epochs each)
scored 30,031 architectures in 322.5 s on 2 workers (93.1/s). Under a load average of 6.5-6.9
the same bench had given 67.7 ms per architecture and 15.5/s on 2 processes.
A masked forward of 16-128 architectures at once (every op of every block computed, 0/1
weights per sample, batch norms per architecture) gave identical accuracies but took 2.5-5.5x
longer per architecture on the CPU, so the command scores one architecture per forward.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import time
from pathlib import Path

import numpy as np
import torch

from nasarena.spaces.oneshot import architectures
from nasarena.studies.oneshot_correlation import Task, run_settings, score_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--epoch", type=int, default=1)
    parser.add_argument("--architectures", type=int, default=200)
    parser.add_argument("--batches", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    settings, _ = run_settings(args.run_dir)
    chosen = architectures(settings.space, loose_ends=False)
    texts = tuple(chosen[i].to_string() for i in range(args.architectures))
    torch.set_num_threads(1)
    print(f"load average before: {os.getloadavg()}")
    score_task(Task(args.run_dir, args.epoch, texts[:2], args.batches, None))  # data and supernet loaded once
    reference, seconds = score_task(Task(args.run_dir, args.epoch, texts, args.batches, None))
    print(f"one process, one thread: {seconds / len(texts) * 1000:.1f} ms per architecture "
          f"({len(texts) / seconds:.1f} architectures/s)")
    chunk = -(-len(texts) // args.workers)
    tasks = [Task(args.run_dir, args.epoch, texts[i : i + chunk], args.batches, None)
             for i in range(0, len(texts), chunk)]
    warm = Task(args.run_dir, args.epoch, texts[:1], args.batches, None)
    with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=_warm_up, initargs=(warm,)) as pool:
        list(pool.map(_pid, range(args.workers)))  # every worker started, its data and supernet loaded
        start = time.perf_counter()
        parts = list(pool.map(score_task, tasks))
        wall = time.perf_counter() - start
    scores = np.concatenate([p[0] for p in parts])
    print(f"{args.workers} processes: {len(texts) / wall:.1f} architectures/s over {wall:.1f} s of wall time "
          f"(after start-up); scores equal to the reference: {np.array_equal(scores, reference)}")
    print(f"load average after: {os.getloadavg()}")


def _warm_up(task: Task) -> None:
    torch.set_num_threads(1)
    score_task(task)


def _pid(_: int) -> int:
    time.sleep(0.5)  # keeps one worker from taking every start-up call
    return os.getpid()


if __name__ == "__main__":
    main()
