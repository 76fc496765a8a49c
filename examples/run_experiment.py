"""Run a small experiment from Python: a grid of optimizers x seeds, resumable, one Parquet
file per run, then the final-regret summary (what `nasarena run` prints).

Run: python examples/run_experiment.py [OUT]   (about 15 s; OUT defaults to a temporary folder)
Then `nasarena report OUT --out OUT-report` draws every figure of the anytime paper.
"""

import sys
import tempfile
from pathlib import Path

from nasarena.analysis.trajectories import final_results
from nasarena.runner import Budget
from nasarena.runner.experiment import grid, load_results, run_experiment

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="nasarena-example-"))
specs = grid(["nb201-cifar10"], ["rs", "re", "ls"], seeds=range(3), budget=Budget(seconds=2e5))
run_experiment(specs, out, jobs=1)  # run again with the same OUT: finished runs are skipped

final = final_results(load_results(out))
summary = final.groupby("optimizer").agg(runs=("seed", "size"), mean_regret=("incumbent_test_regret", "mean"),
                                         mean_evaluations=("evaluations", "mean"))
print(summary.sort_values("mean_regret").to_string(float_format="{:.4f}".format))
print(f"regret is a fraction of test accuracy; runs are in {out / 'runs'}")
