"""Drive an optimizer by hand with ask/tell: the loop `nasarena run` executes for you.

The optimizer only ever sees an `Observation` (validation accuracy and training cost), never
the test accuracy; regret is computed afterwards, offline, as in the benchmark papers.

Run: python examples/ask_tell_loop.py   (a few seconds)
"""

import numpy as np

import nasarena
from nasarena.optimizers import Observation, make

bench = nasarena.benchmark("nb201-cifar10")
optimizer = make("re", bench.space, seed=0, population_size=20, tournament_size=5)  # regularized evolution
rng = np.random.default_rng(0)  # draws the benchmark's trial (seed) for each query

best_valid, best_arch, spent = -1.0, None, 0.0
for _ in range(200):
    trial = optimizer.ask()
    result = bench.query(trial.arch, trial.fidelity, rng=rng)
    optimizer.tell(trial, Observation(valid_accuracy=result.valid_accuracy, cost_seconds=result.cost_seconds))
    spent += result.cost_seconds
    if result.valid_accuracy > best_valid:  # the incumbent is chosen by validation accuracy
        best_valid, best_arch = result.valid_accuracy, trial.arch

regret = bench.optimum() - bench.final_test_accuracy(best_arch)
print(f"200 evaluations, {spent / 3600:,.1f} simulated GPU hours")
print(f"incumbent {best_arch}: validation {best_valid:.4f}, test regret {regret:.5f}")
