"""CPU of the anytime presets' SMAC runs on two source trees: before and after a speed-up, same runs.

Run: nice -n 10 .venv/bin/python bench/bench_smac_presets_cpu.py --old COMMIT [--setups CVS,C]
     [--seconds 1.5e6] [--seed 3] [--repeats 2]

Why: SMAC in the cached setups (``anytime-C``, ``anytime-CVS``) is most of Table I's CPU (an hour or
more a run at 1e7 s), so its speed decides when Table I is complete; and a speed-up must not move
a run. Each setup's SMAC run (one seed, a shorter budget than the presets' 1e7 s) is made in a
fresh process per tree (this venv's python, ``PYTHONPATH=<tree>/src``), the trees alternating
``--repeats`` times so that a load that changes meanwhile falls on both. Reported: each tree's
evaluations, median process CPU seconds (the run alone, not the table's loading) and the new/old
ratio; the bench fails if the two trees' runs differ in any row (the measured optimizer time
aside), compared by a digest of the frame. ``--old`` is a commit (a worktree is added under
/tmp when missing) or a source tree.

Measured 2026-12-03 (Intel Xeon 2 GHz, 2 cores beside two niced background jobs), ``--old 1122a50``
(before the condition look-ups and the forest's exp once a fit), seed 3 at 1.5e6 s, equal runs:

    setup  evaluations  old CPU s  new CPU s  new/old
    CVS            793       48.5       36.5    0.75x
    C              816       21.5       20.5    0.95x   (--repeats 3; C has no conditions)

and ``--old 7409f75`` (before a refit's prediction of the evaluated configurations took their
leaves from the growth, exp and log mapped ``math``'s functions without a wrapper, and the tree
builder read 32-bit indices and 8-bit values), seed 3 at 3e6 s, equal runs:

    setup  evaluations  old CPU s  new CPU s  new/old
    C             1551       72.1       69.6    0.97x
    CVS           1616      192.9      181.9    0.94x

The saving grows with the history: late in a 1e7 s cached run SMAC refits on ~57,000 configurations,
where predicting all of them took 0.11 s a refit and takes 0.06 s now, beside a ~0.9 s fit.

and ``--old f78a78d`` against 1b61bcb (the trees grown in compiled loops and exp/log compiled,
numba installed; 2 cores beside four niced background jobs), seed 3 at 3e6 s, equal runs:

    setup  evaluations  old CPU s  new CPU s  new/old
    C             1551       72.1       54.5    0.76x
    CVS           1616      177.3      108.5    0.61x

Late in a 1e7 s C run the fit on 57,673 configurations went from 0.81-0.87 s to 0.28-0.33 s
(``LogForest.fit``, the background jobs stopped), so the late refits, most of a cached run's CPU,
take about a third of their time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_RUN = """
import dataclasses, hashlib, json, sys, time
import pandas as pd
import nasarena
from nasarena.runner.experiment import _benchmark, execute
from nasarena.runner.protocol import Budget
from nasarena.studies.anytime_presets import PRESETS
[spec] = PRESETS[sys.argv[1]].specs(seeds=[int(sys.argv[3])], optimizers=["smac"])
spec = dataclasses.replace(spec, budget=Budget(seconds=float(sys.argv[2])))
_benchmark(spec.benchmark)  # the table loaded before the clock starts
start = time.process_time()
frame = execute(spec).drop(columns=["optimizer_cpu_time"])
seconds = time.process_time() - start
digest = hashlib.sha256(pd.util.hash_pandas_object(frame, index=True).values.tobytes()).hexdigest()[:16]
print(json.dumps({"source": nasarena.__file__, "evaluations": len(frame), "cpu": seconds, "digest": digest}))
"""


def _tree(old: str) -> Path:
    """A source tree: ``old`` itself when it is a folder, else a worktree of that commit."""
    if Path(old).is_dir():
        return Path(old).resolve()
    folder = Path(f"/tmp/nasarena-before-{old}")
    if not folder.is_dir():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), old], check=True)
    return folder


def _run(tree: Path, preset: str, seconds: float, seed: int) -> dict:
    done = subprocess.run([sys.executable, "-c", _RUN, preset, str(seconds), str(seed)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(tree / "src"), "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
                          check=False)
    if done.returncode != 0:
        sys.exit(f"the {preset} run on {tree} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["source"].startswith(str(tree)):
        sys.exit(f"{tree} ran nasarena from {result['source']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="a commit or a source tree to compare with this one")
    parser.add_argument("--setups", default="CVS,C", help="anytime presets' setups (O, VS, C, CVS)")
    parser.add_argument("--seconds", type=float, default=1.5e6, help="simulated budget of each run")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    arguments = parser.parse_args()
    trees = {"old": _tree(arguments.old), "new": ROOT}
    print(f"{'setup':<6} {'evaluations':>11} {'old CPU s':>10} {'new CPU s':>10} {'new/old':>8}")
    for setup in arguments.setups.split(","):
        preset = f"anytime-{setup}"
        runs: dict[str, list[dict]] = {"old": [], "new": []}
        for _ in range(arguments.repeats):
            for name, tree in trees.items():
                runs[name].append(_run(tree, preset, arguments.seconds, arguments.seed))
        digests = {run["digest"] for name in runs for run in runs[name]}
        if len(digests) != 1:
            sys.exit(f"{preset}: the trees' runs differ ({sorted(digests)}): the change moved a run")
        cpu = {name: statistics.median(run["cpu"] for run in runs[name]) for name in runs}
        print(f"{setup:<6} {runs['new'][0]['evaluations']:>11} {cpu['old']:>10.1f} {cpu['new']:>10.1f} "
              f"{cpu['new'] / cpu['old']:>7.2f}x")


if __name__ == "__main__":
    main()
