"""The anytime paper's four setups (presets anytime-O/VS/C/CVS) on the presets' benchmark.

Run: nice -n 10 .venv/bin/python bench/bench_anytime_presets.py [OUT] [SEEDS] [OPTIMIZERS] [JOBS] [BENCHMARKS]
  OUT: results directory, resumable (default results/bench-anytime-presets)
  SEEDS: seeds per configuration (default 20, as the paper); OPTIMIZERS: default re,smac,irace (the
  presets'; smac3 runs SMAC3 itself in smac's place, 40-90 CPU minutes a run); JOBS: processes (default 1); BENCHMARKS: default nb101-noisy, the presets'
  own (add nb101-lite to see what the single-draw table hides; its cached RE runs take 2-6 minutes
  each, as a converged population proposes 1-3.5 million cached cells in 1e7 s)

Runs seed by seed (an interrupted bench leaves balanced results), then prints per benchmark the
rank table by setup and by algorithm (Table I: ECDF area of the final regret x 10^4, * = best
group of a significant Friedman test) beside the paper's values, and writes the hypervolume
boxplots by setup (Fig. 3) to OUT/fig3_<benchmark>.png.

The published Table I is generated from the same runs by ``nasarena reproduce anytime``
(``nasarena.studies.reproduce.anytime_table``, the page docs/reproduce/anytime.md and its recorded
values, which the report's note quotes); this script adds Fig. 3 and the hypervolume gaps.
"""

from __future__ import annotations

import sys
from pathlib import Path

from nasarena.analysis.anytime import Normalization, run_hypervolumes
from nasarena.analysis.setups import PAPER_NAMES, PAPER_TABLE_I, setup_rank_table, table_text
from nasarena.analysis.trajectories import RUN_KEYS, final_results
from nasarena.plots.backend import save_figure
from nasarena.plots.setups import setup_boxplots
from nasarena.runner.experiment import load_results, run_experiment
from nasarena.studies.anytime_presets import BENCHMARK, BUDGET, PRESETS


def main(out: Path, seeds: int, optimizers: list[str], jobs: int, benchmarks: list[str]) -> None:
    specs = [spec for preset in PRESETS.values()
             for spec in preset.specs(benchmarks, seeds=range(seeds), optimizers=optimizers)]
    specs.sort(key=lambda spec: (spec.seed, spec.benchmark))
    run_experiment(specs, out, jobs=jobs)
    report(out)


def report(out: Path) -> None:
    results = load_results(out)
    final = final_results(results)
    print("paper's Table I (top): " + "; ".join(
        f"{s}: " + ", ".join(f"{a} ({v})" for (t, a), v in sorted(PAPER_TABLE_I.items(), key=lambda i: i[1]) if t == s)
        for s in ("O", "VS", "C", "CVS")))
    for bench, runs in final.groupby("benchmark"):
        volumes = run_hypervolumes(results[results["benchmark"] == bench], Normalization(time_bounds=(0.0,
                                                                                                       BUDGET.seconds)))
        # joined on the stored optimizer names, before they are renamed for printing ("re" -> "RE"):
        # joined after, every RE run silently dropped out of Fig. 3
        volumes = volumes.merge(runs[[*RUN_KEYS, "setup"]], on=RUN_KEYS)
        runs = runs.assign(optimizer=runs["optimizer"].map(PAPER_NAMES).fillna(runs["optimizer"]))
        seeds = runs.groupby(["setup", "optimizer"]).size()
        print(f"\n{bench}: finished runs per (setup, optimizer): {seeds.to_dict()}")
        for by in ("setup", "optimizer"):
            print(f"  grouped by {by}:")
            for line in table_text(setup_rank_table(runs, by=by)):
                print("    " + line)
        volumes["optimizer"] = volumes["optimizer"].map(PAPER_NAMES).fillna(volumes["optimizer"])
        means = volumes.groupby(["setup", "optimizer"])["hypervolume_gap"].median().round(4).to_dict()
        print(f"  median hypervolume gap: {means}")
        save_figure(setup_boxplots(volumes, title=bench), out / f"fig3_{bench}")


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/bench-anytime-presets")
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    optimizers = sys.argv[3].split(",") if len(sys.argv) > 3 else ["re", "smac", "irace"]
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    benchmarks = sys.argv[5].split(",") if len(sys.argv) > 5 else [BENCHMARK]
    main(out, seeds, optimizers, jobs, benchmarks)
