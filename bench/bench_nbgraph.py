"""NAS-Bench-Graph: the cross-dataset rank correlation of architecture performance, and every optimizer on it.

Reproduces the NAS-Bench-Graph paper's (Qin et al., NeurIPS 2022) analysis of how the
ranking of architectures transfers between datasets: for every pair of the nine datasets, the
Spearman and Kendall (tau-b) rank correlation of the test performance of the networks both
measure (26,206 for pairs of the eight 9-operation datasets, the 2,021 of the proteins space for
pairs with proteins), from the embedded tables (``nbgraph-<dataset>``). It also prints, per
dataset, the rank correlation of validation and test performance. With ``--optimizers`` it runs
nasarena's conformance check of every registered optimizer (two seeded 25-evaluation runs and
the rest of ``check_optimizer``) on nbgraph-cora and nbgraph-proteins, with the seconds each took.

    OMP_NUM_THREADS=1 python bench/bench_nbgraph.py [--optimizers]

The paper's values: the paper's correlation figure is not in any stored source reachable here
(the paper itself is not in /work/shared/papers; the stored pages hold its abstract only), so
they are not printed beside ours, and none are invented.

Measured 2026-12-02 on the project's 2-core CPU machine, shared (load average 7.2 before, 7.5
after), embedded data from nas-bench-graph 1.4.0, ``--optimizers``. Correlations are
deterministic (whole tables, no sampling); they took 5.4 s, the whole script 59 s.

Spearman rho of test performance (upper triangle; lower triangle: Kendall tau-b):

                  cora  citeseer    pubmed        cs   physics     photo computers     arxiv  proteins
        cora       -       0.747     0.610     0.399     0.326     0.295     0.211     0.209     0.062
    citeseer     0.559       -       0.611     0.454     0.352     0.315     0.171     0.137     0.042
      pubmed     0.436     0.431       -       0.363     0.378     0.391     0.325     0.258    -0.118
          cs     0.274     0.311     0.247       -       0.423     0.494     0.177     0.076    -0.052
     physics     0.223     0.240     0.255     0.291       -       0.517     0.336     0.406    -0.009
       photo     0.200     0.213     0.265     0.343     0.358       -       0.596     0.461     0.194
   computers     0.145     0.119     0.220     0.122     0.233     0.425       -       0.567    -0.033
       arxiv     0.148     0.103     0.171     0.050     0.281     0.318     0.400       -       0.042
    proteins     0.035     0.022    -0.082    -0.037    -0.008     0.132    -0.022     0.031       -

So the ranking transfers best within the citation graphs (cora-citeseer 0.75) and between the
Amazon and OGB graphs (photo-computers 0.60, computers-arxiv 0.57), little across families
(cora-arxiv 0.21), and not at all to proteins (|rho| < 0.2, on its 2,021 networks).

Validation vs test rank correlation per dataset (Spearman / Kendall):

    cora 0.732 / 0.554, citeseer 0.928 / 0.773, pubmed 0.539 / 0.382, cs 0.962 / 0.831,
    physics 0.868 / 0.698, photo 0.914 / 0.747, computers 0.723 / 0.540, arxiv 0.974 / 0.873,
    proteins 0.498 / 0.353

Optimizers (--optimizers; seconds of check_optimizer on nbgraph-cora / nbgraph-proteins):

    all 21 single-fidelity optimizers pass; bananas 2.9 / 0.6, ehvi-rf 1.3 / 1.1, irace 0.2 / 0.3,
    motpe-optuna 0.5 / 0.3, nsga2-optuna 0.1 / 0.1, parego-bananas 14.0 / 4.4, parego-smac
    1.7 / 1.4, parego-tpe 0.1 / 0.1, smac 0.2 / 0.2, smac3 9.8 / 8.8, tpe-optuna 0.5 / 0.4; de,
    ls, mo-re, mo-rs, nre, nsga2, re, reinforce, rs, tpe under 0.05 each. bohb, hb and mo-asha
    refuse (they need several fidelities; the package holds one).
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

import numpy as np
from scipy import stats

import nasarena
from nasarena.benchmarks.nbgraph import DATASETS, PROTEINS


def test_performance() -> dict[str, dict[str, float]]:
    """Per dataset, the test performance of each network by its key."""
    tables = {}
    for dataset in DATASETS:
        benchmark = nasarena.benchmark(f"nbgraph-{dataset}")
        keys = [benchmark.space.identity(arch) for arch in benchmark.space.enumerate()]
        tables[dataset] = dict(zip(keys, benchmark.mean_over_trials("test_accuracy").tolist()))
    return tables


def correlations(tables: dict[str, dict[str, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Spearman, Kendall, networks compared) of every pair of datasets, on the networks both measure."""
    size = len(DATASETS)
    spearman, kendall, counts = np.eye(size), np.eye(size), np.zeros((size, size), dtype=np.int64)
    for (i, a), (j, b) in itertools.combinations(enumerate(DATASETS), 2):
        common = sorted(tables[a].keys() & tables[b].keys())
        x = np.array([tables[a][key] for key in common])
        y = np.array([tables[b][key] for key in common])
        spearman[i, j] = spearman[j, i] = stats.spearmanr(x, y).statistic
        kendall[i, j] = kendall[j, i] = stats.kendalltau(x, y).statistic
        counts[i, j] = counts[j, i] = len(common)
    return spearman, kendall, counts


def validation_vs_test() -> list[tuple[str, float, float]]:
    rows = []
    for dataset in DATASETS:
        benchmark = nasarena.benchmark(f"nbgraph-{dataset}")
        valid, test = benchmark.mean_over_trials("valid_accuracy"), benchmark.mean_over_trials("test_accuracy")
        rows.append((dataset, stats.spearmanr(valid, test).statistic, stats.kendalltau(valid, test).statistic))
    return rows


def check_optimizers() -> list[tuple[str, str, str]]:
    """(optimizer, outcome on nbgraph-cora, outcome on nbgraph-proteins): seconds or the refusal."""
    from nasarena.optimizers.base import available
    from nasarena.testing import check_optimizer

    benchmarks = [nasarena.benchmark(name) for name in ("nbgraph-cora", f"nbgraph-{PROTEINS}")]
    rows = []
    for entry in available():
        outcomes = []
        for benchmark in benchmarks:
            started = time.perf_counter()
            try:
                check_optimizer(entry.name, benchmark)
                outcomes.append(f"{time.perf_counter() - started:.1f} s")
            except ValueError as error:  # the multi-fidelity optimizers refuse one fidelity
                outcomes.append(f"refused ({str(error).split(';')[0]})")
        rows.append((entry.name, *outcomes))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--optimizers", action="store_true", help="also run check_optimizer of every optimizer")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    started = time.perf_counter()
    spearman, kendall, counts = correlations(test_performance())
    print(f"correlations in {time.perf_counter() - started:.1f} s; networks compared per pair: "
          f"{sorted(set(counts[np.triu_indices(len(DATASETS), 1)].tolist()))}")
    print("Spearman rho of test performance (upper triangle; lower triangle: Kendall tau-b):")
    print(" " * 10 + "".join(f"{name:>10}" for name in DATASETS))
    for i, name in enumerate(DATASETS):
        cells = [spearman[i, j] if j > i else kendall[i, j] for j in range(len(DATASETS))]
        print(f"{name:>10}" + "".join("       -  " if i == j else f"{value:10.3f}" for j, value in enumerate(cells)))
    print("validation vs test rank correlation (Spearman / Kendall):")
    for dataset, rho, tau in validation_vs_test():
        print(f"  {dataset:>10} {rho:.3f} / {tau:.3f}")
    if args.optimizers:
        print("check_optimizer on nbgraph-cora / nbgraph-proteins:")
        for name, *outcomes in check_optimizers():
            print(f"  {name:>15} {' / '.join(outcomes)}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
