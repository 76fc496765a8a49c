"""nasarena's intensifier asks for the trials SMAC3's own ``Intensifier`` asks for, given the same costs.

Both are driven the way an ask/tell loop drives them (SMAC3's the way its ``SMBO`` does: the
trial added to the run history as running when asked, the result added and the incumbent
updated when told), with workers whose results come back in a fixed order, on cost tables
with and without ties; configurations are numbered in the order the selector hands them out,
and SMAC3's seeds by the order it drew them.
"""

from __future__ import annotations

import itertools
import tempfile
from collections import deque
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("smac")

import ConfigSpace as CS  # noqa: E402
from smac import Scenario  # noqa: E402
from smac.intensifier import Intensifier as SMAC3Intensifier  # noqa: E402
from smac.runhistory import RunHistory  # noqa: E402
from smac.runhistory.enumerations import StatusType  # noqa: E402

from nasarena.optimizers.intensifier import Intensifier  # noqa: E402

CONFIGURATIONS = 400


def smac3_trials(costs: np.ndarray, steps: int, workers: int) -> list[tuple[int, int]]:
    space = CS.ConfigurationSpace(seed=0)
    space.add(CS.UniformIntegerHyperparameter("index", 0, CONFIGURATIONS - 1))
    configurations = [CS.Configuration(space, {"index": i}) for i in range(CONFIGURATIONS)]
    with tempfile.TemporaryDirectory() as directory:
        scenario = Scenario(space, deterministic=False, output_directory=Path(directory), seed=3)
        intensifier = SMAC3Intensifier(scenario, max_config_calls=costs.shape[1])
        history = RunHistory()
        intensifier.runhistory = history
        intensifier.config_selector = configurations  # the selector is iterated: configurations in order
        stream = iter(intensifier)
        asked: list[tuple[int, int]] = []
        running: deque = deque()
        while len(asked) < steps:
            while len(running) < workers and len(asked) < steps:
                info = next(stream)
                history.add_running_trial(info)
                running.append(info)
                asked.append((info.config["index"], intensifier._tf_seeds.index(info.seed)))
            info = running.popleft()
            index, key = info.config["index"], intensifier._tf_seeds.index(info.seed)
            history.add(config=info.config, cost=float(costs[index, key]), time=0.0, status=StatusType.SUCCESS,
                        instance=info.instance, seed=info.seed, budget=info.budget, force_update=True)
            intensifier.update_incumbents(info.config)
    return asked


def nasarena_trials(costs: np.ndarray, steps: int, workers: int) -> list[tuple[int, int]]:
    intensifier = Intensifier(costs.shape[1], itertools.count().__next__)
    asked: list[tuple[int, int]] = []
    running: deque = deque()
    while len(asked) < steps:
        while len(running) < workers and len(asked) < steps:
            running.append(intensifier.next_trial())
            asked.append(running[-1])
        configuration, key = running.popleft()
        intensifier.tell(configuration, key, float(costs[configuration, key]))
    return asked


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("seed, levels", [(0, 0), (1, 0), (2, 4), (3, 2)])
def test_the_intensifier_asks_for_smac3s_trials(seed, levels, workers):
    rng = np.random.default_rng(seed)
    costs = rng.random((CONFIGURATIONS, 3))
    if levels:  # few distinct costs: ties between challenger and incumbent
        costs = np.floor(costs * levels) / levels
    ours = nasarena_trials(costs, 300, workers)
    assert ours == smac3_trials(costs, 300, workers)
    assert any(configuration == ours[0][0] and key > 0 for configuration, key in ours)  # the racing happened


def test_one_evaluation_per_configuration_asks_for_each_configuration_once():
    costs = np.random.default_rng(5).random((CONFIGURATIONS, 1))
    assert nasarena_trials(costs, 200, 2) == [(i, 0) for i in range(200)] == smac3_trials(costs, 200, 2)


@pytest.mark.parametrize("workers", [1, 3])
def test_smac_races_configurations_on_up_to_the_repeated_evaluations(workers):
    import nasarena
    from nasarena.optimizers import make
    from nasarena.runner import Budget, RunSettings, run

    pytest.importorskip("sklearn")
    bench = nasarena.benchmark("nb201-cifar10")  # one configuration per architecture: counts are per configuration

    def trajectory():
        optimizer = make("smac", bench.space, seed=4, repeated_evaluations=3)
        return run(bench, optimizer, Budget(evaluations=120), seed=4, settings=RunSettings(n_workers=workers))

    frame = trajectory()
    evaluations = frame.arch_id.value_counts()
    assert evaluations.max() == 3 and (evaluations == 2).sum() + (evaluations == 3).sum() >= 2
    assert frame.arch_id.tolist() == trajectory().arch_id.tolist()
