"""Per-evaluation overhead of SMAC3 and Optuna's TPE on each config encoding, and of nasarena's vectorised
smac and tpe, against random search in the same run.

Overhead is the optimizer's own CPU time (``ask`` + ``tell``, invalid proposals included) per
evaluation, from the runner's ``optimizer_cpu_time``; wall time per evaluation is shown too,
but on a shared machine only CPU time is comparable. ``smac-smac3-defaults`` is SMAC with
SMAC3's own forest (every core, ``max_leaf_nodes=2**20``) and 10,000 acquisition challengers:
the baseline for the cheaper settings :mod:`nasarena.optimizers.smac3` uses. ``distinct``
is the number of distinct architectures among the evaluations.

Run: .venv/bin/python bench/bench_smac.py [evaluations] [variants]
  evaluations: per run, on nb101-lite (default 200)
  variants: comma-separated names from the table (default: all)
"""

import sys
import time
from contextlib import contextmanager

import nasarena
from nasarena.optimizers import make
from nasarena.optimizers import smac3 as smac_module
from nasarena.runner import Budget, run


@contextmanager
def smac3_defaults():
    """SMAC3's facade forest and challenger count instead of the wrapper's."""
    from smac import HyperparameterOptimizationFacade

    def facade_forest(scenario, n_trees):
        return HyperparameterOptimizationFacade.get_model(scenario, n_trees=n_trees)

    forest, challengers = smac_module._forest, smac_module.ACQUISITION_CHALLENGERS
    smac_module._forest = facade_forest
    smac_module.ACQUISITION_CHALLENGERS = 10_000
    try:
        yield
    finally:
        smac_module._forest, smac_module.ACQUISITION_CHALLENGERS = forest, challengers


@contextmanager
def unchanged():
    yield


VARIANTS = {
    "rs": ("rs", {}, unchanged),
    "tpe-vectorised": ("tpe", {}, unchanged),
    "smac-vectorised": ("smac", {}, unchanged),
    "smac-vectorised-repeated3": ("smac", {"repeated_evaluations": 3}, unchanged),
    "tpe-categorical": ("tpe-optuna", {"encoding": "categorical"}, unchanged),
    "tpe-variable_size": ("tpe-optuna", {"encoding": "variable_size"}, unchanged),
    "tpe-continuous": ("tpe-optuna", {"encoding": "continuous"}, unchanged),
    "smac-categorical": ("smac3", {"encoding": "categorical"}, unchanged),
    "smac-variable_size": ("smac3", {"encoding": "variable_size"}, unchanged),
    "smac-continuous": ("smac3", {"encoding": "continuous"}, unchanged),
    "smac-repeated3": ("smac3", {"repeated_evaluations": 3}, unchanged),
    "smac-retrain1": ("smac3", {"retrain_after": 1}, unchanged),
    "smac-retrain32": ("smac3", {"retrain_after": 32}, unchanged),
    "smac-smac3-defaults": ("smac3", {}, smac3_defaults),
}


def main(evaluations: int, names: list[str]) -> None:
    lite = nasarena.benchmark("nb101-lite")
    run(lite, make("rs", lite.space, seed=0), Budget(evaluations=50), seed=0)  # load look-up tables first
    print(f"nb101-lite, {evaluations} evaluations, seed 0")
    print(f"{'variant':22s} {'opt CPU ms/eval':>16s} {'wall ms/eval':>13s} {'distinct':>10s} {'final regret':>13s}")
    for name in names:
        optimizer, settings, context = VARIANTS[name]
        with context():
            built = make(optimizer, lite.space, seed=0, **settings)  # imports and set-up are not timed
            start = time.perf_counter()
            frame = run(lite, built, Budget(evaluations=evaluations), seed=0)
            elapsed = time.perf_counter() - start
        print(f"{name:22s} {frame.optimizer_cpu_time.iloc[-1] / len(frame) * 1e3:16.2f} "
              f"{elapsed / len(frame) * 1e3:13.2f} {frame.arch_id.nunique():10d} "
              f"{frame.incumbent_test_regret.iloc[-1]:13.5f}")


if __name__ == "__main__":
    evaluations = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(VARIANTS)
    unknown = sorted(set(names) - set(VARIANTS))
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; available: {', '.join(VARIANTS)}")
    main(evaluations, names)
