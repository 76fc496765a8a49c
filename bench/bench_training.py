"""Training stack (issue 13): parameter parity over whole spaces, and training-step speed.

Run (from the repository root):

    .venv/bin/python bench/bench_training.py --speed [--device cpu|cuda|mps] [--epoch]
    .venv/bin/python bench/bench_training.py --parity [--start 0 --stop 423624] [--sample N] [--jobs 2]
    .venv/bin/python bench/bench_training.py --parity-nb201 [--jobs 2]

``--parity`` builds the full-size NB101 network of every unique cell (rows ``start`` to
``stop`` of the sorted-hash order) with ``build_network`` and compares its trainable parameters
with ``trainable_parameters(cell)``, the count that matches the real data. Modules are built
shape-only (meta device, no weight initialisation: see ``networks.counting.shapes_only``), in
``--jobs`` processes; shards (``--start/--stop``) let a long check run in parts or on many
machines. ``--parity-nb201`` does the same for all 15,625 NB201 cells.

``--speed`` times training steps (forward, backward, SGD step; random inputs, one warm-up
step) of each full-size network and of the quick configuration (NB101, 16 channels, one cell
per stack, 16 x 16 images) and prints images/s. ``--epoch`` on a GPU also times one epoch
(40,000 images, batch 256) of the full-size NB101 network next to the TPU time the NB101 data
records for the same cell (``final_training_time`` / 108 epochs).

Measured 2026-11-25 on the 2-core development machine while ~9 other jobs ran (load average
15-20, so speeds are several times below an idle machine's), one torch thread:

- ``--parity-nb201``: 15,625 of 15,625 networks have the exact count (1,503 s, 2 processes).
- ``--parity --sample 4000 --seed 1``: 4,000 of 4,000 (445 s, 2 processes, ~9 networks/s);
  ``--parity --start 0 --stop 12000 --jobs 1``: 12,000 of 12,000 (1,137 s). So 16,000 cells
  checked in all, none wrong. Later, with the machine otherwise idle: ``--parity --start 0
  --stop 423624 --jobs 2``: **423,624 of 423,624** networks have the exact count (2,383 s,
  178 networks/s).
- ``--speed`` (images/s of a training step; batch in brackets), under that load: NB101 full 2.6
  (32), NB101 quick 444 (256), NB201 full 9.8 (64), NB301 training network 2.9 (32), DARTS
  evaluation network with auxiliary head 0.9 (16). Re-measured with one other job on the second
  core (load average ~1.5), one thread: NB101 full 22.5, NB101 quick 2,942, NB201 full 81.3,
  NB301 training network 26.6, DARTS evaluation network 7.7 (27 s for the whole ``--speed`` run);
  an NB101 full-size epoch (40,000 images) is ~30 minutes on one CPU thread here.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
from pathlib import Path

import numpy as np

INCEPTION_MATRIX = [[0, 1, 1, 1, 0, 1, 0], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 1, 0, 0],
                    [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0]]
INCEPTION_OPS = ["input", "conv1x1-bn-relu", "conv3x3-bn-relu", "conv3x3-bn-relu", "conv3x3-bn-relu", "maxpool3x3",
                 "output"]
DARTS_V2 = ("Genotype(normal=[('sep_conv_3x3', 0), ('sep_conv_3x3', 1), ('sep_conv_3x3', 0), ('sep_conv_3x3', 1), "
            "('sep_conv_3x3', 1), ('skip_connect', 0), ('skip_connect', 0), ('dil_conv_3x3', 2)], "
            "normal_concat=[2, 3, 4, 5], reduce=[('max_pool_3x3', 0), ('max_pool_3x3', 1), ('skip_connect', 2), "
            "('max_pool_3x3', 1), ('max_pool_3x3', 0), ('skip_connect', 2), ('skip_connect', 2), "
            "('max_pool_3x3', 1)], reduce_concat=[2, 3, 4, 5])")
SHARED_NB101 = Path(__file__).resolve().parents[2] / "shared" / "data" / "nb101"
NB101_SLICES = {"nb101-slice-0-20000.json": 0, "nb101-slice-36202-46201.json": 36202}
NB201_CELL = "|nor_conv_3x3~0|+|nor_conv_3x3~0|avg_pool_3x3~1|+|skip_connect~0|nor_conv_3x3~1|skip_connect~2|"


# --- parity --------------------------------------------------------------------------------


def _nb101_rows(rows: list[int]) -> list[int]:
    """The rows (of the sorted-hash order) whose built network's count differs from the formula's."""
    from nasarena.spaces.nb101 import unique_cells
    from nasarena.spaces.nb101.parameters import trainable_parameters
    from nasarena.training.networks import build_network, count_parameters
    from nasarena.training.networks.counting import shapes_only

    cells = unique_cells()
    wrong = []
    with shapes_only():
        for row in rows:
            cell = cells.cell(row)
            if count_parameters(build_network("nb101", cell)) != trainable_parameters(cell):
                wrong.append(row)
    return wrong


def _nb201_indices(indices: list[int]) -> list[int]:
    """The official indices whose built network's count differs from the exact count."""
    from nasarena.spaces.nb201.network import trainable_parameters
    from nasarena.spaces.nb201.space import cell_at
    from nasarena.training.networks import build_network, count_parameters
    from nasarena.training.networks.counting import shapes_only

    wrong = []
    with shapes_only():
        for index in indices:
            cell = cell_at(index)
            if count_parameters(build_network("nb201", cell)) != trainable_parameters(cell):
                wrong.append(index)
    return wrong


def parity(check, items: list[int], jobs: int, label: str, chunk: int = 250) -> None:
    """Run ``check`` over ``items`` in chunks on ``jobs`` processes, reporting progress."""
    chunks = [items[a:a + chunk] for a in range(0, len(items), chunk)]
    began = time.perf_counter()
    wrong: list[int] = []
    done = 0
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for part, bad in zip(chunks, pool.imap(check, chunks)):
            wrong += bad
            done += len(part)
            elapsed = time.perf_counter() - began
            print(f"{label}: {done:,}/{len(items):,} built, {len(wrong)} mismatches, {elapsed:,.0f} s "
                  f"({done / elapsed:,.1f} networks/s)", flush=True)
    print(f"{label} parity: {len(items) - len(wrong):,} of {len(items):,} networks have the exact count"
          + (f"; mismatching {wrong[:20]}" if wrong else ""))


# --- speed ---------------------------------------------------------------------------------


def _networks():
    """(name, builder, image side, batch size) of every timed configuration."""
    from nasarena.spaces.nb101 import Cell
    from nasarena.training import build_network

    inception = Cell(INCEPTION_MATRIX, INCEPTION_OPS)
    return [
        ("nb101 full (128 ch, 3x3 cells), 32x32", lambda: build_network("nb101", inception), 32, 32),
        ("nb101 quick (16 ch, 1 cell/stack), 16x16", lambda: build_network("nb101", inception, stem_channels=16,
                                                                           cells_per_stack=1), 16, 256),
        ("nb201 full (16 ch, 5 cells/stage), 32x32", lambda: build_network("nb201", NB201_CELL), 32, 64),
        ("nb301 train (32 ch, 8 cells), 32x32", lambda: build_network("darts", DARTS_V2, channels=32, layers=8,
                                                                      auxiliary=False), 32, 32),
        ("darts eval (36 ch, 20 cells, aux), 32x32", lambda: build_network("darts", DARTS_V2), 32, 16),
    ]


def _step_speed(network, side: int, batch: int, device, steps: int) -> float:
    import torch
    import torch.nn.functional as F

    network.to(device).train()
    optimizer = torch.optim.SGD(network.parameters(), lr=0.01, momentum=0.9)
    generator = torch.Generator().manual_seed(0)
    images = torch.randn(batch, 3, side, side, generator=generator).to(device)
    labels = torch.randint(0, 10, (batch,), generator=generator).to(device)

    def step():
        outputs = network(images)
        logits, auxiliary = outputs if isinstance(outputs, tuple) else (outputs, None)
        loss = F.cross_entropy(logits, labels)
        if auxiliary is not None:
            loss = loss + 0.4 * F.cross_entropy(auxiliary, labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    step()  # warm-up
    if device.type == "cuda":
        torch.cuda.synchronize()
    began = time.perf_counter()
    for _ in range(steps):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return batch * steps / (time.perf_counter() - began)


def speed(device_name: str | None, steps: int) -> None:
    import torch

    from nasarena.training.device import pick_device
    from nasarena.training.networks import count_flops, count_parameters

    device = pick_device(device_name)
    print(f"device {device}, torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"{'network':44s} {'params':>10s} {'MFLOPs':>8s} {'batch':>5s} {'images/s':>9s}")
    for name, build, side, batch in _networks():
        torch.manual_seed(0)
        network = build()
        params, flops = count_parameters(network), count_flops(network, side)
        rate = _step_speed(network, side, batch if device.type == "cpu" else 256, device, steps)
        print(f"{name:44s} {params:>10,d} {flops / 1e6:>8.1f} {batch if device.type == 'cpu' else 256:>5d} "
              f"{rate:>9.1f}", flush=True)


def gpu_epoch(device_name: str | None) -> None:
    """One epoch (40,000 images, batch 256) of the full-size Inception-like NB101 network, and the
    TPU time per epoch the NB101 data records for that cell where the shared slices hold it."""
    from nasarena.spaces.nb101 import Cell, unique_cells
    from nasarena.training import build_network
    from nasarena.training.device import pick_device

    device = pick_device(device_name)
    cell = Cell(INCEPTION_MATRIX, INCEPTION_OPS)
    rate = _step_speed(build_network("nb101", cell), 32, 256, device, steps=20)
    print(f"NB101 full-size epoch on {device}: {40_000 / rate:.1f} s ({rate:,.0f} images/s)")
    row = unique_cells().index_of(cell.hash)
    for name, start in NB101_SLICES.items():
        path = SHARED_NB101 / name
        if path.exists():
            columns = json.loads(path.read_text())
            if start <= row < start + len(columns["key"]):
                print(f"NB101 data (TPU) for this cell: {columns['final_training_time'][row - start] / 108:.1f} s "
                      "per epoch")
                return
    print(f"the NB101 slices do not hold this cell (sorted-hash row {row}); no TPU time to compare")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parity", action="store_true", help="NB101: every cell's network vs the formula")
    parser.add_argument("--parity-nb201", action="store_true", help="NB201: all 15,625 cells")
    parser.add_argument("--speed", action="store_true", help="images/s of training steps")
    parser.add_argument("--epoch", action="store_true", help="full-size NB101 epoch time (for GPUs)")
    parser.add_argument("--start", type=int, default=0, help="first NB101 row (sorted-hash order)")
    parser.add_argument("--stop", type=int, default=423_624, help="NB101 row after the last")
    parser.add_argument("--sample", type=int, default=None, help="NB101: a seeded sample of this many rows "
                        "of [start, stop) instead of all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--steps", type=int, default=3, help="timed steps per network")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    if not (args.parity or args.parity_nb201 or args.speed or args.epoch):
        parser.error("choose at least one of --parity, --parity-nb201, --speed, --epoch")
    if args.parity:
        rows = range(args.start, args.stop)
        if args.sample is not None:
            rows = sorted(np.random.default_rng(args.seed).choice(rows, args.sample, replace=False).tolist())
        parity(_nb101_rows, list(rows), args.jobs, "nb101")
    if args.parity_nb201:
        parity(_nb201_indices, list(range(15_625)), args.jobs, "nb201")
    if args.speed:
        speed(args.device, args.steps)
    if args.epoch:
        gpu_epoch(args.device)


if __name__ == "__main__":
    main()
