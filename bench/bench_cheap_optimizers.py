"""Cheap optimizers and the protocol on nb101-lite, this tree against a baseline tree, in one run.

Run: nice -n 5 .venv/bin/python bench/bench_cheap_optimizers.py [--baseline DIR] [--optimizers rs,re,nre,ls]
     [--seeds 10] [--repeats 3] [--re-seeds 500]

Per optimizer: full 1e7 s runs on nb101-lite (seeds 0..S-1), the wall microseconds per evaluation
in all (protocol, table look-up and optimizer: what one evaluation costs) and the optimizer's CPU
per evaluation as the runner records it. Each optimizer first runs one more seed, unmeasured: the
first runs in a process cost 1-2 us more per evaluation (memory the process grows into, pages of
the tables touched for the first time), which an experiment's worker pays once for all its seeds.
With ``--baseline`` (a checkout of an older commit, e.g.
``git worktree add /tmp/base <commit>``) the same measurements run in child processes on that
tree's ``src/``, alternating with this tree's, ``--repeats`` times; the best repeat of each is
reported with their ratio (the machine is shared: alternating and keeping the best cancels most
of the load), and whether the two trees gave the same trajectories (evaluated architectures and
simulated times, per optimizer and seed). ``--re-seeds N`` also times N seeds of RE at 1e7 s
through ``run_experiment`` (2 processes), once per tree.

Measured (2026-11-26, 2 cores, load 1.0 at the end, ``--baseline`` at 574f8c5, ``--seeds 10 --repeats 3
--re-seeds 500``): us per evaluation in all, new / baseline: RS 6.7 / 8.2, RE 9.5 / 13.5, NRE 9.6 / 15.6,
LS 8.7 / 10.0, the same trajectories; 500 seeds of RE at 1e7 s 12.5 s / 16.2 s (same digest).
(Earlier, at b4851e7 against its baseline: RS 8.3, RE 13.8, NRE 15.6, LS 10.0.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _trees import HERE, measure_in_tree


def measure(names: list[str], seeds: int, re_seeds: int) -> dict:
    """This process's nasarena: per optimizer, the cost per evaluation and a digest of the trajectories."""
    import nasarena
    from nasarena.optimizers import make
    from nasarena.runner import Budget, run

    lite = nasarena.benchmark("nb101-lite")
    run(lite, make("rs", lite.space, seed=0), Budget(evaluations=200), seed=0)  # load the tables first
    run(lite, make("re", lite.space, seed=0, population_size=10), Budget(evaluations=200), seed=0)
    results: dict = {"nasarena": nasarena.__file__}
    for name in names:
        run(lite, make(name, lite.space, seed=seeds), Budget(seconds=1e7), seed=seeds)  # warm-up, not measured
        evaluations, wall, cpu, digest = 0, 0.0, 0.0, hashlib.sha1()
        for seed in range(seeds):
            optimizer = make(name, lite.space, seed=seed)
            start = time.perf_counter()
            frame = run(lite, optimizer, Budget(seconds=1e7), seed=seed)
            wall += time.perf_counter() - start
            evaluations += len(frame)
            cpu += float(frame.optimizer_cpu_time.iloc[-1])
            digest.update(json.dumps([frame.arch_id.tolist(), frame.sim_time.tolist()]).encode())
        results[name] = dict(evaluations=evaluations, us_all=wall / evaluations * 1e6,
                             us_optimizer=cpu / evaluations * 1e6, digest=digest.hexdigest()[:12])
    if re_seeds:
        results["re_seeds"] = many_seeds(re_seeds)
    return results


def many_seeds(seeds: int) -> dict:
    from nasarena.runner import Budget
    from nasarena.runner.experiment import grid, load_results, run_experiment

    out = Path(tempfile.mkdtemp(prefix="nasarena-bench-"))
    try:
        start = time.perf_counter()
        run_experiment(grid(["nb101-lite"], ["re"], range(seeds), Budget(seconds=1e7)), out)
        elapsed = time.perf_counter() - start
        results = load_results(out)
        return dict(seeds=seeds, seconds=elapsed, evaluations=len(results),
                    digest=hashlib.sha1(json.dumps(results.arch_id.tolist()).encode()).hexdigest()[:12])
    finally:
        shutil.rmtree(out)


def child(tree: Path, names: list[str], seeds: int, re_seeds: int) -> dict:
    """:func:`measure` in a fresh process importing nasarena from ``tree/src``."""
    return measure_in_tree(tree, __file__, ["--optimizers", ",".join(names), "--seeds", str(seeds),
                                            "--re-seeds", str(re_seeds)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--optimizers", default="rs,re,nre,ls")
    parser.add_argument("--seeds", type=int, default=10,
                        help="full 1e7 s runs per optimizer (enough that one of Python's rare full garbage "
                             "collections, ~16 ms, adds < 0.5 us per evaluation)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--re-seeds", type=int, default=0, help="seeds of RE through run_experiment (0: skip)")
    parser.add_argument("--baseline", type=Path, help="a source tree to compare with (its src/ is imported)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    names = options.optimizers.split(",")
    if options.child:
        print(json.dumps(measure(names, options.seeds, options.re_seeds)))
        return
    trees = {"new": HERE} | ({"baseline": options.baseline.resolve()} if options.baseline else {})
    runs: dict[str, list[dict]] = {label: [] for label in trees}
    for repeat in range(options.repeats):
        for label, tree in reversed(trees.items()):  # the baseline first in each round
            re_seeds = options.re_seeds if repeat == 0 else 0
            runs[label].append(child(tree, names, options.seeds, re_seeds))
            print(f"round {repeat + 1}: {label} done", file=sys.stderr, flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores)")
    print(f"{'optimizer':10s} {'tree':9s} {'evals':>6s} {'us/eval all':>12s} {'opt CPU us':>11s}  trajectories")
    for name in names:
        best = {label: min(r[name]["us_all"] for r in runs[label]) for label in trees}
        for label in trees:
            first = runs[label][0][name]
            optimizer_us = min(r[name]["us_optimizer"] for r in runs[label])
            same = "" if label == "new" or "baseline" not in trees else (
                "same as new" if first["digest"] == runs["new"][0][name]["digest"] else "DIFFERENT")
            print(f"{name:10s} {label:9s} {first['evaluations']:6d} {best[label]:12.1f} {optimizer_us:11.1f}  {same}")
        if "baseline" in trees:
            print(f"{name:10s} {'ratio':9s} {'':6s} {best['baseline'] / best['new']:11.2f}x")
    if options.re_seeds:
        for label in trees:
            many = runs[label][0]["re_seeds"]
            print(f"{many['seeds']} seeds of RE at 1e7 s via run_experiment, {label}: {many['seconds']:.1f} s wall, "
                  f"{many['evaluations']:,} evaluations ({many['evaluations'] / many['seconds']:,.0f}/s), "
                  f"digest {many['digest']}")


if __name__ == "__main__":
    main()
