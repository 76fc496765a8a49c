"""Embed YAHPO Gym's nb301 surrogate (the model of the ``nb301`` benchmark) and find its optimum.

Run: .venv/bin/python scripts/build_nb301_data.py [--copy] [--optimum] [--starts 1000] [--seed 0]
(no --copy/--optimum: both)

- ``--copy``: copies ``model_v2.onnx``, ``encoding_v2.json`` and ``config_space_v2.json`` from
  ../shared/data/nb301-yahpo byte for byte into ``nasarena/data/nb301-yahpo/``, beside YAHPO's
  ``README.txt`` and the Apache-2.0 licence, and records the three files in the manifest (sha256,
  provenance, licence). The model is YAHPO's, unmodified: nothing is refitted here.
- ``--optimum``: ``optimum.json``, the best validation accuracy at the last epoch found on the
  embedded model, the optimum the benchmark measures regret against: from each of ``--starts``
  architectures drawn uniformly (``--seed``), a steepest-ascent local search (all 120 neighbours of
  the current architecture per step, one batched model call for all climbers) until no neighbour is
  better. The DARTS space has about 1e18 architectures, so this is a lower bound of the true
  optimum; the file says how it was found. Climbs from 200 starts ended between 0.9450 and 0.9455
  depending on the seed (and from the best 100 of 20,000 drawn architectures at 0.9452): 1,000
  starts make the bound harder for an optimizer's few thousand evaluations to beat.

Each file is rebuilt only when its step runs, since a rebuild changes the manifest entry.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np

from nasarena.benchmarks.nb301_yahpo import (
    CONFIG_SPACE_FILE,
    DATA_FOLDER,
    ENCODING_FILE,
    MODEL_FILE,
    OPTIMUM_FILE,
    NB301Benchmark,
)
from nasarena.io.files import atomic_write_bytes
from nasarena.io.packaged import data_dir, record_in_manifest

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "nb301-yahpo"
#: Files copied beside the data: YAHPO's provenance note and the licence.
BESIDE = ("README.txt", "LICENSE-2.0.txt")
SOURCE = ("YAHPO Gym's nb301 surrogate, version 2 (Pfisterer et al., AutoML 2022), fitted by YAHPO Gym's authors on "
          "the NAS-Bench-301 training data (Zimmer 2020, nasbench301_full_data, figshare, "
          "https://doi.org/10.6084/m9.figshare.13286105.v1, Apache-2.0): slds-lmu/yahpo_data, branch v2_final @ "
          "0e28806, nb301/{name}, unmodified; licence Apache-2.0 (nb301-yahpo/LICENSE-2.0.txt and NOTICE.txt); via "
          "/work/shared/data/nb301-yahpo; copied by scripts/build_nb301_data.py")
DESCRIPTIONS = {
    MODEL_FILE: ("ONNX model of YAHPO Gym's nb301 scenario: x_cat int32 (n, 34), the DARTS architecture parameters "
                 "coded by encoding_v2.json, and x_cont float32 (n, 1), the epoch 1-98 -> float32 (n, 4): "
                 "val_accuracy, val_cross_entropy, runtime (cumulative seconds), runtime_increase"),
    ENCODING_FILE: "integer code of every level of the nb301 model's 34 categorical inputs ('#na#': inactive)",
    CONFIG_SPACE_FILE: "ConfigSpace JSON of the nb301 model's inputs: NB301's 34 architecture parameters and the epoch",
}


def copy() -> None:
    target = data_dir() / DATA_FOLDER
    target.mkdir(exist_ok=True)
    for name in BESIDE:
        shutil.copyfile(SHARED / name, target / name)
    for file, description in DESCRIPTIONS.items():
        name = Path(file).name
        content = (SHARED / name).read_bytes()
        atomic_write_bytes(data_dir() / file, content)
        record_in_manifest(file, content, description, SOURCE.format(name=name), data_dir())


def climb(benchmark: NB301Benchmark, starts: list) -> tuple[object, float, int]:
    """(best architecture, its value, model queries) of a steepest-ascent local search from each start."""
    space = benchmark.space
    current = list(starts)
    values = benchmark.query_batch(current).valid_accuracy
    queries = len(current)
    active = list(range(len(current)))
    while active:
        neighbourhoods = [space.neighbours(current[i]) for i in active]
        flat = [n for neighbourhood in neighbourhoods for n in neighbourhood]
        scores = benchmark.query_batch(flat).valid_accuracy
        queries += len(flat)
        still, offset = [], 0
        for i, neighbourhood in zip(active, neighbourhoods):
            part = scores[offset : offset + len(neighbourhood)]
            offset += len(neighbourhood)
            best = int(np.argmax(part))
            if part[best] > values[i]:
                current[i], values[i] = neighbourhood[best], part[best]
                still.append(i)
        active = still
    best = int(np.argmax(values))
    return current[best], float(values[best]), queries


def optimum(starts: int, seed: int) -> None:
    benchmark = NB301Benchmark()
    rng = np.random.default_rng(seed)
    arch, value, queries = climb(benchmark, [benchmark.space.sample(rng) for _ in range(starts)])
    assert benchmark.query(arch).valid_accuracy == value, "a single query disagrees with the batch"
    record = {
        "epoch": benchmark.fidelities[-1],
        "valid_accuracy": value,
        "genotype": benchmark.space.to_text(arch),
        "queries": queries,
        "search": (f"found by a steepest-ascent local search (all 120 neighbours per step) from each of {starts:,} "
                   f"uniformly drawn architectures (seed {seed}) to a local optimum, {queries:,} model queries"),
    }
    content = (json.dumps(record, indent=2, sort_keys=True) + "\n").encode()
    atomic_write_bytes(data_dir() / OPTIMUM_FILE, content)
    record_in_manifest(OPTIMUM_FILE, content,
                       "the best validation accuracy at the last epoch found on the nb301 model, and its genotype: "
                       "the optimum the nb301 benchmark measures regret against (a lower bound of the space's)",
                       "computed by scripts/build_nb301_data.py --optimum on nb301-yahpo/model_v2.onnx "
                       f"(onnxruntime, 1 thread): {record['search']}", data_dir())
    print(f"optimum {value:.6f}: {record['genotype']} ({record['queries']:,} queries)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copy", action="store_true")
    parser.add_argument("--optimum", action="store_true")
    parser.add_argument("--starts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    both = not (args.copy or args.optimum)
    if args.copy or both:
        copy()
    if args.optimum or both:
        optimum(args.starts, args.seed)


if __name__ == "__main__":
    main()
