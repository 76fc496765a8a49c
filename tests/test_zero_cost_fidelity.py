"""Issue 32, point 4: a zero-cost proxy as fidelity 0 of the protocol, and the zero-cost warm-up
of RE and BANANAS (Abdelfattah et al. 2021), on the embedded NB201 proxy table."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nasarena
from nasarena.benchmarks.registry import result_options
from nasarena.benchmarks.zero_cost import ZERO_COST
from nasarena.errors import InvalidSettingError
from nasarena.estimators import embedded_table
from nasarena.optimizers.base import Observation, Trial, make
from nasarena.optimizers.zero_cost_warmup import ZeroCostWarmup
from nasarena.runner.experiment import grid
from nasarena.runner.protocol import Budget, RunSettings, run


@pytest.fixture(scope="module")
def bench():
    return nasarena.benchmark("nb201-cifar10", proxy="synflow")


@pytest.fixture(scope="module")
def table():
    frame = embedded_table("nb201")
    return frame.set_index("row")


def _representative_value(bench, table, arch, column):
    row = bench.row(arch)
    return table.loc[int(bench.space.representatives()[row]), column]


def test_fidelity_0_answers_the_embedded_proxy_of_the_cells_class_and_charges_its_seconds(bench, table):
    checked = 0
    for row in table.index[:5]:
        result = bench.query(int(row), ZERO_COST)
        assert result.fidelity == 0 and math.isnan(result.valid_accuracy) and math.isnan(result.test_accuracy)
        assert result.proxy_score == table.loc[row, "synflow"]
        assert result.cost_seconds == pytest.approx(table.loc[row, "synflow_seconds"])
        assert result.trainable_parameters == bench.query(int(row)).trainable_parameters
        assert result.to_dict()["proxy_score"] == result.proxy_score
        checked += 1
    # an equivalent cell (another member of the class) gets its representative's value
    members = np.flatnonzero(bench.space.representatives() == table.index[0])
    assert len(members) >= 1
    assert bench.query(int(members[-1]), ZERO_COST).proxy_score == table.loc[table.index[0], "synflow"]
    # a training result has no proxy score, and says none in its dictionary
    assert "proxy_score" not in bench.query(0, 200).to_dict()
    assert checked == 5


def test_fidelity_0_without_a_proxy_or_with_one_the_table_lacks_is_refused_with_what_to_do():
    with pytest.raises(InvalidSettingError, match="proxy=NAME"):
        nasarena.benchmark("nb201-cifar10").query(0, ZERO_COST)
    with pytest.raises(InvalidSettingError, match="holds params, flops, synflow"):
        nasarena.benchmark("nb201-cifar10", proxy="grasp")
    # other datasets serve the CIFAR-10 network's scores, flagged
    assert nasarena.benchmark("nb201-cifar100", proxy="synflow").query(0, ZERO_COST).modelled == {"proxy_score"}


def test_the_proxy_option_and_its_table_enter_the_settings_hash_and_plain_runs_keep_theirs():
    options = result_options({"proxy": "synflow"}, "nb201-cifar10")
    assert options["proxy"] == "synflow" and len(options["proxy_table"]) == 16
    plain, = grid(["nb201-cifar10"], ["re"], [0], Budget(seconds=1e4))
    with_proxy, = grid(["nb201-cifar10"], ["re"], [0], Budget(seconds=1e4), benchmark_options={"proxy": "synflow"})
    assert plain.settings_hash != with_proxy.settings_hash
    # the new setting, left at its default, is not recorded: existing RE results keep their hash
    assert "zero_cost_warmup" not in plain.recorded_settings


def _proxy_seconds(bench, archs):
    return sum(bench.query(arch, ZERO_COST).cost_seconds for arch in archs)


def test_re_warm_up_trains_the_best_by_the_proxy_first_and_the_runner_charges_every_proxy(bench):
    samples, population = 120, 16
    optimizer = make("re", bench.space, seed=3, zero_cost_warmup=samples, population_size=population,
                     tournament_size=4)
    told: list[tuple[Trial, Observation]] = []
    tell = optimizer.tell
    optimizer.tell = lambda trial, observation: (told.append((trial, observation)), tell(trial, observation))[1]
    trajectory = run(bench, optimizer, Budget(evaluations=population + 5), seed=3)

    asked = [(trial, observation) for trial, observation in told if trial.fidelity == ZERO_COST]
    assert len(asked) == samples
    assert len({bench.space.identity(trial.arch) for trial, _ in asked}) == samples  # distinct architectures
    proxies = [(trial, observation) for trial, observation in asked if observation.valid]
    assert len(proxies) == samples  # the embedded table scores every cell
    assert all(observation.proxy_score == bench.query(trial.arch, ZERO_COST).proxy_score
               and math.isnan(observation.valid_accuracy) for trial, observation in proxies)
    # no trajectory row for a proxy; the evaluations budget counts training only
    assert len(trajectory) == population + 5 and (trajectory["fidelity"] == 200).all()
    # the initial population: the best `population` of the scored, in the proxy's order
    ranked = sorted(proxies, key=lambda item: (-item[1].proxy_score, item[0].number))[:population]
    assert trajectory["arch_id"].iloc[:population].tolist() == [bench.space.identity(t.arch) for t, _ in ranked]
    # the clock: every proxy's seconds, then the first training
    first = bench.query(ranked[0][0].arch).cost_seconds
    assert trajectory["sim_time"].iloc[0] == pytest.approx(_proxy_seconds(bench, [t.arch for t, _ in proxies]) + first)


def test_bananas_warm_up_chooses_its_initial_samples_by_the_proxy(bench):
    optimizer = make("bananas", bench.space, seed=1, zero_cost_warmup=50, num_init=5)
    trajectory = run(bench, optimizer, Budget(evaluations=8), seed=1)
    scored = ZeroCostWarmup(bench.space, np.random.default_rng(0), 50, 5, "bananas")  # the same draws: seed 1's
    assert len(trajectory) == 8
    # the five first trained are the five best of the 50 scored by the proxy
    first = trajectory["arch_id"].iloc[:5].tolist()
    scores = [bench.query(bench.space.from_text(arch), ZERO_COST).proxy_score for arch in first]
    assert scores == sorted(scores, reverse=True)
    assert scored.keep == 5


def test_a_warm_up_run_is_deterministic_and_proxies_occupy_workers_in_parallel_runs(bench):
    settings = RunSettings(n_workers=3)

    def once():
        optimizer = make("re", bench.space, seed=7, zero_cost_warmup=60, population_size=10, tournament_size=3)
        return run(bench, optimizer, Budget(seconds=2e4), seed=7, settings=settings)

    a, b = once(), once()
    assert a.drop(columns="optimizer_cpu_time").equals(b.drop(columns="optimizer_cpu_time"))
    # three workers share the 60 proxies, so the first training ends before one worker's 60 proxies would
    serial = make("re", bench.space, seed=7, zero_cost_warmup=60, population_size=10, tournament_size=3)
    alone = run(bench, serial, Budget(evaluations=1), seed=7)
    assert a["sim_time"].iloc[0] < alone["sim_time"].iloc[0]


def test_caching_answers_a_repeated_proxy_with_its_score_at_no_cost(bench):
    arch = bench.space.sample(np.random.default_rng(0))

    class AsksOneProxyTwice(nasarena.optimizers.base.Optimizer):
        name = "asks-one-proxy-twice"

        def __init__(self, space, seed=0):
            super().__init__(space, seed)
            self.scores: list[float] = []

        def _ask(self, number):
            return Trial(arch, ZERO_COST if number < 2 else None)

        def _tell(self, trial, observation):
            if trial.fidelity == ZERO_COST:
                self.scores.append(observation.proxy_score)

    optimizer = AsksOneProxyTwice(bench.space)
    trajectory = run(bench, optimizer, Budget(evaluations=1), seed=0, settings=RunSettings(caching=True))
    proxy = bench.query(arch, ZERO_COST)
    assert optimizer.scores == [proxy.proxy_score] * 2
    assert trajectory["sim_time"].iloc[0] == pytest.approx(proxy.cost_seconds + bench.query(arch).cost_seconds)


def test_warm_up_settings_are_checked_and_need_a_benchmark_with_a_proxy():
    plain = nasarena.benchmark("nb201-cifar10")
    with pytest.raises(ValueError, match="at least the 100"):
        make("re", plain.space, zero_cost_warmup=50)
    with pytest.raises(InvalidSettingError, match="zero_cost_warmup"):
        make("bananas", plain.space, zero_cost_warmup=-1)
    with pytest.raises(InvalidSettingError, match="proxy=NAME"):
        run(plain, make("re", plain.space, zero_cost_warmup=100), Budget(evaluations=3), seed=0)
