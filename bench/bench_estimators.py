"""The zero-cost proxy tables of issue 32: NB201 CIFAR-10 (all 6,466 unique architectures or a seeded
sample of them) and a seeded sample of NB101 cells, at the papers' full network size.

Run: nice -n 10 .venv/bin/python bench/bench_estimators.py [OUT] [NB201_SAMPLE] [NB101_SAMPLE] [JOBS] [DEVICE]
 or: .venv/bin/python bench/bench_estimators.py embed TABLE  (ship a computed NB201 table as package data)
  OUT: folder of the two Parquet tables, resumable (default results/bench-estimators)
  NB201_SAMPLE: unique NB201 architectures (one cell per class of the benchmark's de-duplication),
    or "all" (the 6,466 of them; default 3000, the embedded table's sample); NB101_SAMPLE: NB101 cells (default 500)
  JOBS: processes, one torch thread each (default 1; on a GPU keep 1); DEVICE: auto, cpu or cuda

Each table is `nasarena estimators compute` (:func:`nasarena.studies.estimator_table.compute_table`) with
every registered proxy, seed 0, 32 x 32 CIFAR-10 from the shared tarball; an interrupted run
resumes where it stopped. Afterwards it prints, per proxy, the mean measured seconds per
architecture and the Spearman correlation with the mean validation accuracy over the benchmark's
trials (NB201 CIFAR-10 at 200 epochs; NB101: nb101-lite, one real 108-epoch draw per cell), over the
architectures computed.

What each proxy costs per architecture on this machine's CPU is in docs/estimators.md ("Speed on
this machine", timed by ``nasarena reproduce estimators``, block ``proxy-speed``): with every
proxy the defaults (3,000 NB201 + 500 NB101 cells) take CPU hours, so the GPU run is the
intended one.

The embedded tables (``nasarena.estimators.embedded_table("nb201")`` and ``("nb101")``) are the cheap
part: params, flops and synflow of all 6,466 unique NB201 architectures (``nasarena estimators
compute --space nb201 --proxies params,flops,synflow --unique --seed 0 --jobs 1 --out TABLE``) and
of 500 seeded nb101-slice cells (``--space nb101 --within nb101-slice --sample 500``), shipped with
``embed TABLE``, which records how each was computed (nasarena version and commit, seed, torch
version, CPU) in the manifest.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from nasarena.estimators import PROXIES
from nasarena.studies.estimator_table import compute_table


def accuracies(benchmark_name: str, rows) -> np.ndarray:
    """Mean validation accuracy over the benchmark's trials at its highest fidelity, of ``rows``."""
    import nasarena

    bench = nasarena.benchmark(benchmark_name)
    return np.asarray(bench.mean_over_trials("valid_accuracy"))[np.asarray(rows, dtype=np.int64)]


def summary(name: str, frame, benchmark_name: str) -> None:
    from nasarena.analysis.supernet.identification import correlations

    truth = accuracies(benchmark_name, frame["row"].to_numpy(dtype=np.int64))
    print(f"\n{name}: {len(frame):,} architectures (Spearman / Kendall with {benchmark_name} validation accuracy)")
    print(f"{'proxy':10s} {'s/arch':>8s} {'spearman':>9s} {'kendall':>8s}")
    for proxy in PROXIES:
        finite = np.isfinite(frame[proxy].to_numpy(dtype=float))
        rho, tau = correlations(truth[finite], frame[proxy].to_numpy(dtype=float)[finite])
        print(f"{proxy:10s} {frame[f'{proxy}_seconds'].mean():8.3f} {rho:9.3f} {tau:8.3f}")


def embed(table: Path) -> None:
    """Ship a computed NB201 or NB101 table as the package's embedded table of its space, with its
    provenance."""
    import platform
    import subprocess

    import pandas as pd
    import torch

    import nasarena
    from nasarena.estimators.embedded import save_embedded_table
    from nasarena.studies.estimator_table import read_settings

    settings = read_settings(table)
    frame = pd.read_parquet(table)
    space = settings["space"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip() or "unknown"
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown")
    options = "".join([" --unique" if settings["unique"] else "",
                       f" --within {settings['within']}" if settings.get("within") else "",
                       f" --sample {settings['sample']}" if settings["sample"] is not None else ""])
    cells = ("unique architectures (one cell per class of the benchmark's de-duplication)" if settings["unique"]
             else f"cells of {settings['within']}" if settings.get("within") else "cells")
    sample = (f"all {len(frame):,} {cells}" if settings["sample"] is None
              else f"a seeded sample (seed {settings['seed']}) of {settings['sample']:,} {cells}")
    complete = "" if settings["complete"] else f", stopped after {len(frame):,} of them (a uniform subsample)"
    provenance = (f"computed by `nasarena estimators compute --space {space} --proxies {','.join(settings['proxies'])}"
                  f"{options} --seed {settings['seed']} --jobs 1` (nasarena {nasarena.__version__}, commit {commit}; "
                  f"torch {torch.__version__}; CPU {cpu}, one thread): {sample}{complete}; CIFAR-10 networks at full "
                  f"size, {settings['image_size']}x{settings['image_size']} input; synflow reads one all-ones image "
                  "(float64), params and flops no data; seconds measured on that CPU while other jobs shared it")
    entry = save_embedded_table(space, frame, settings, provenance)
    print(f"{entry.name}: {len(frame):,} rows, {entry.size:,} bytes, sha256 {entry.sha256}\n{provenance}")


def main(argv: list[str]) -> None:
    if argv[:1] == ["embed"]:
        embed(Path(argv[1]))
        return
    out = Path(argv[0]) if argv else Path("results/bench-estimators")
    nb201_sample = argv[1] if len(argv) > 1 else "3000"
    nb101_sample = int(argv[2]) if len(argv) > 2 else 500
    jobs = int(argv[3]) if len(argv) > 3 else 1
    device = argv[4] if len(argv) > 4 else "auto"
    out.mkdir(parents=True, exist_ok=True)
    proxies = list(PROXIES)

    def progress(done: int, planned: int) -> None:
        print(f"  {done:,} / {planned:,}", file=sys.stderr, flush=True)

    sample = None if nb201_sample == "all" else int(nb201_sample)
    nb201 = compute_table("nb201", proxies, out / f"nb201-cifar10-{nb201_sample}.parquet", sample=sample, unique=True,
                          jobs=jobs, device=device, on_chunk=progress)
    summary("NB201 CIFAR-10", nb201, "nb201-cifar10")
    nb101 = compute_table("nb101", proxies, out / f"nb101-{nb101_sample}.parquet", sample=nb101_sample, jobs=jobs,
                          device=device, on_chunk=progress)
    summary("NB101", nb101, "nb101-lite")


if __name__ == "__main__":
    main(sys.argv[1:])
