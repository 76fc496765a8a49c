"""irace, BANANAS and differential evolution: the ask/tell contract through the runner on real
data, racing and its Friedman elimination, irace's distribution updates, BANANAS against
random search, and DE's rand/1/bin selection."""

import copy
import dataclasses
import sys

import numpy as np
import pytest
from scipy import stats

import nasarena
from nasarena.optimizers import Observation, available, make
from nasarena.optimizers.racing import friedman_survivors, softly_restarted, updated_distributions
from nasarena.runner import Budget, run
from nasarena.runner.protocol import RunSettings
from nasarena.spaces.nb201.cell import Cell201

#: Small irace budgets: at irace's minimum for NB201 (4 elites, 4 iterations) and NB101 (6 and 6).
IRACE_SMALL = {"nb201-cifar10": 200, "nb101-lite": 420}


def _settings(name: str, bench) -> dict:
    return {"max_experiments": IRACE_SMALL[bench.name]} if name == "irace" else {}


class NoisyBenchmark:
    """A benchmark whose repeated queries differ: Gaussian noise on the validation accuracy,
    drawn from the query generator, as training trials of a multi-trial benchmark would."""

    def __init__(self, bench, sd: float):
        self.bench, self.sd = bench, sd

    def __getattr__(self, name):
        return getattr(self.bench, name)

    def query(self, arch, fidelity=None, rng=None):
        result = self.bench.query(arch, fidelity, rng=rng)
        return dataclasses.replace(result, valid_accuracy=result.valid_accuracy + rng.normal(0.0, self.sd))


def test_the_three_optimizers_are_registered():
    assert {"irace", "bananas", "de"} <= {entry.name for entry in available()}


@pytest.mark.parametrize("name", ["irace", "de", "bananas"])
@pytest.mark.parametrize("bench_name", ["nb101-lite", "nb201-cifar10"])
def test_contract_and_determinism_through_the_runner(name, bench_name, lite, nb201):
    bench = lite if bench_name == "nb101-lite" else nb201
    evaluations = 15 if name == "bananas" else 120  # BANANAS: 10 random cells, then one trained ensemble
    settings = _settings(name, bench)
    first = run(bench, make(name, bench.space, seed=5, **settings), Budget(evaluations=evaluations), seed=5)
    again = run(bench, make(name, bench.space, seed=5, **settings), Budget(evaluations=evaluations), seed=5)
    other = run(bench, make(name, bench.space, seed=6, **settings), Budget(evaluations=evaluations), seed=6)
    assert len(first) == evaluations
    assert first.drop(columns="optimizer_cpu_time").equals(again.drop(columns="optimizer_cpu_time"))
    assert not first.arch_id.equals(other.arch_id)
    if bench_name == "nb101-lite":
        assert first.arch_id.str.len().eq(32).all()  # valid cells only: invalid ones never reach the trajectory
    else:
        assert first.arch_id.str.startswith("|").all()
    assert (np.diff(first.incumbent_valid_accuracy) >= 0).all()
    assert first.incumbent_test_regret.iloc[-1] < first.incumbent_test_regret.iloc[0]


@pytest.mark.parametrize("name", ["irace", "de", "bananas"])
def test_parallel_workers_ask_before_results_arrive(name, nb201):
    settings = {"population_size": 4} if name == "de" else _settings(name, nb201)
    evaluations = 25 if name == "bananas" else 60
    optimizer = make(name, nb201.space, seed=1, **settings)
    trajectory = run(nb201, optimizer, Budget(evaluations=evaluations), seed=1, settings=RunSettings(n_workers=8))
    assert len(trajectory) == evaluations
    if name == "de":
        assert len(optimizer.vectors) == 4


# -- irace -----------------------------------------------------------------------------------

def test_irace_defaults_follow_irace():
    nb101, nb201 = nasarena.benchmark("nb101-lite").space, nasarena.benchmark("nb201-cifar10").space
    optimizer = make("irace", nb101)
    # floor(2 + log2 26) = 6 iterations and elites; first race: (7500 / 6) // (5 + 1) candidates
    assert (optimizer.iterations, optimizer.elites, optimizer.first_test, optimizer.confidence) == (6, 6, 5, 0.95)
    assert len(optimizer.race.candidates) == 208
    assert make("irace", nb201).elites == 4  # floor(2 + log2 6)
    with pytest.raises(ValueError, match="below irace's minimum budget 200"):
        make("irace", nb201, max_experiments=199)
    with pytest.raises(ValueError, match="elites=1 is too small; elites must be a whole number >= 2"):
        make("irace", nb201, elites=1)
    with pytest.raises(ValueError, match="confidence"):
        make("irace", nb201, confidence=1.0)


def test_friedman_elimination_on_a_crafted_race():
    # candidates 0-2 take ranks 1-3 in rotation; candidate 3 is always last
    costs = np.array([[1, 2, 3, 9], [2, 3, 1, 9], [3, 1, 2, 9]] * 2, dtype=float)
    assert stats.friedmanchisquare(*costs.T).pvalue == pytest.approx(stats.chi2.sf(10.8, 3))  # 0.0129
    # Conover: critical difference t(0.975, 15) * sqrt(2 * (6 * 180 - 1008) / 15) = 6.60 < 24 - 12
    assert friedman_survivors(costs, 0.95).tolist() == [0, 1, 2]
    assert friedman_survivors(costs, 0.99).tolist() == [0, 1, 2, 3]  # p = 0.013 is not below 0.01
    assert friedman_survivors(costs[:, :3], 0.95).tolist() == [0, 1, 2]  # equal rank sums
    # rank sums 11, 23, 16, 10 (p = 0.014): the critical difference is t(0.975, 15) * sqrt(2 * 74 / 15)
    # = 6.70, so candidate 2 (6 behind the best) survives and candidate 1 (13 behind) does not
    near = np.array([[0, 3, 2, 1], [2, 3, 1, 0], [1, 2, 3, 0], [0, 3, 1, 2], [2, 3, 1, 0], [0, 3, 2, 1]], dtype=float)
    assert friedman_survivors(near, 0.95).tolist() == [0, 2, 3]
    # a deterministic benchmark: every instance repeats the same costs, only the best survives
    assert friedman_survivors(np.tile([0.3, 0.1, 0.2, 0.5], (5, 1)), 0.95).tolist() == [1]
    assert friedman_survivors(np.ones((5, 4)), 0.95).tolist() == [0, 1, 2, 3]  # all tied: no test
    with pytest.raises(ValueError, match="candidates >= 3"):
        friedman_survivors(np.ones((5, 2)), 0.95)
    with pytest.raises(ValueError, match="finite"):
        friedman_survivors(np.array([[1.0, np.nan, 2.0]] * 3), 0.95)


def test_irace_races_repeats_and_keeps_only_the_elites(nb201):
    trajectory = run(nb201, make("irace", nb201.space, seed=0, max_experiments=200), Budget(evaluations=150), seed=0)
    # first race: (200 / 4) // (5 + 1) = 8 candidates, each evaluated on the first_test = 5 instances
    first = trajectory.iloc[:40]
    assert first.arch_id.nunique() == 8 and first.arch_id.value_counts().eq(5).all()
    # one trial per cell: every repeat agrees, F-race keeps only the best and it is raced again
    best = first.loc[first.valid_accuracy.idxmax(), "arch_id"]
    later = set(trajectory.arch_id.iloc[40:])
    assert best in later and not (set(first.arch_id) - {best}) & later


def test_irace_on_a_noisy_benchmark_re_evaluates_the_survivors(nb201):
    noisy = NoisyBenchmark(nb201, sd=0.01)
    trajectory = run(noisy, make("irace", nb201.space, seed=0, max_experiments=400), Budget(evaluations=100), seed=0)
    # first race: (400 / 4) // 6 = 16 candidates, 5 instances each, then instance by instance
    counts = trajectory.arch_id.iloc[:100].value_counts()
    assert counts.max() > 5  # survivors of the first test were raced on more instances
    assert counts.eq(5).any()  # while others were eliminated by it


def test_irace_replaces_invalid_cells_before_the_first_test(lite):
    optimizer = make("irace", lite.space, seed=0, max_experiments=420)
    race = optimizer.race
    size = len(race.candidates)
    trial = optimizer.ask()
    _, index, _ = optimizer._pending[trial.number]
    optimizer.tell(trial, Observation(0.0, 0.0, valid=False))
    assert not race.alive[index] and not race.candidates[index].valid
    assert len(race.candidates) == size + 1 and race.alive[-1]
    assert all(i != index for i, _ in race.queue)
    assert sum(i == size for i, _ in race.queue) == optimizer.first_test  # the replacement catches up
    # and through the runner: about a quarter of uniform NB101 cells are invalid, yet the first
    # race still evaluates (420 / 6) // 6 = 11 valid cells 5 times each
    first = run(lite, make("irace", lite.space, seed=0, max_experiments=420), Budget(evaluations=55), seed=0)
    assert first.arch_id.nunique() == 11 and first.arch_id.value_counts().eq(5).all()


def test_elites_by_rank_sum_and_parents_by_rank(nb201):
    optimizer = make("irace", nb201.space, seed=0, max_experiments=200)
    race = optimizer.race  # 8 candidates, 5 instances
    race.costs[:5] = np.arange(8)[::-1] * 0.01  # the last candidate is best on every instance
    race.costs[0, 0] = -1.0  # candidate 0: best mean cost, but best on one instance only
    race.alive[3] = False
    # rank sums over the 7 alive: 5, 10, 15, 20, 26, then candidate 0 (1 + 4 x 7 = 29) before 1 (7 + 4 x 6)
    assert race.ranked_alive().tolist() == [7, 6, 5, 4, 2, 0, 1]
    # a new candidate's parent: elite of rank r with probability (N - r + 1) / (N (N + 1) / 2)
    optimizer.elite_candidates = race.candidates[:4]
    counts = np.bincount([optimizer._choose_parent() for _ in range(4000)], minlength=4)
    np.testing.assert_allclose(counts / 4000, [0.4, 0.3, 0.2, 0.1], atol=0.03)


def test_distribution_update_and_soft_restart():
    uniform = np.full((6, 5), 0.2)
    values = [0, 1, 2, 3, 4, 0]
    updated = updated_distributions(uniform, values, step=0.5)  # iteration 3 of 4: (3 - 1) / 4
    expected = np.full((6, 5), 0.1)
    expected[np.arange(6), values] = 0.6
    np.testing.assert_allclose(updated, expected)
    # NB101's padded rows (edges have 2 choices of 3 columns) keep probability 0 on the padding
    padded = np.array([[0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    np.testing.assert_allclose(updated_distributions(padded, [1, 2], 0.25), [[0.375, 0.625, 0], [0.25, 0.25, 0.5]])
    allowed = np.array([[True, True, True, True, False]])
    restarted = softly_restarted(np.array([[0.7, 0.1, 0.1, 0.1, 0.0]]), allowed)
    np.testing.assert_allclose(restarted, [[0.7, 0.16, 0.16, 0.16, 0.0]] / np.float64(1.18))


def test_irace_distributions_concentrate_on_the_elites_values(nb201):
    optimizer = make("irace", nb201.space, seed=2, max_experiments=200)
    run(nb201, optimizer, Budget(evaluations=600), seed=2)
    assert optimizer.iteration > 4 and optimizer.elite_candidates
    for elite in optimizer.elite_candidates:
        own = elite.distributions[np.arange(6), list(elite.values)]
        assert own.mean() > 0.5  # uniform would be 0.2
        assert (elite.distributions.argmax(axis=1) == elite.values).mean() >= 0.5


# -- BANANAS ---------------------------------------------------------------------------------

def test_bananas_beats_random_search_on_nb201(nb201):
    # 40 training epochs instead of up to 200 keep the test fast; the default finds the optimum too
    settings = {"rs": {}, "bananas": {"epochs": 40}}
    finals = {name: [run(nb201, make(name, nb201.space, seed=s, **settings[name]), Budget(evaluations=100), seed=s)
                     .incumbent_test_regret.iloc[-1] for s in range(3)] for name in ("rs", "bananas")}
    assert np.mean(finals["bananas"]) < np.mean(finals["rs"]) / 2


def test_bananas_proposes_unseen_mutations_of_the_best(nb201):
    optimizer = make("bananas", nb201.space, seed=4, num_parents=2)
    trajectory = run(nb201, optimizer, Budget(evaluations=40), seed=4)
    assert trajectory.arch_id.is_unique
    ops = [Cell201.from_string(arch).op_indices for arch in trajectory.arch_id]
    for i in range(10, 40):
        before = ops[: 10 * (i // 10)]
        scores = trajectory.valid_accuracy.iloc[: 10 * (i // 10)].to_numpy()
        parents = [before[j] for j in np.argsort(-scores)[:2]]
        assert min(sum(a != b for a, b in zip(ops[i], p)) for p in parents) == 1
    assert optimizer.trained_on == 30  # retrained after 10, 20 and 30 results


@pytest.mark.parametrize("acquisition", ["its", "ucb"])
def test_bananas_ensemble_predicts_and_the_acquisition_orders_the_pool(nb201, acquisition):
    optimizer = make("bananas", nb201.space, seed=0, acquisition=acquisition, ucb_beta=0.5)
    run(nb201, optimizer, Budget(evaluations=41), seed=0)  # trained on 40 results
    rng = np.random.default_rng(0)
    cells = [nb201.space.sample(rng) for _ in range(300)]
    mean, std = optimizer.ensemble.predict(np.stack([nb201.space.encode(c, "path") for c in cells]).astype(np.float32))
    truth = [nb201.query(c).valid_accuracy for c in cells]
    assert stats.kendalltau(mean, truth)[0] > 0.4 and (std > 0).all()
    # replay the acquisition on a copy: the pool ranked by a normal draw around the ensemble's
    # mean with its standard deviation (ITS), or by mean + 0.5 std (UCB)
    replay = copy.deepcopy(optimizer)
    pool = replay._pool()
    mean, std = replay.ensemble.predict(np.stack([nb201.space.encode(c, "path") for c in pool]).astype(np.float32))
    score = replay.rng.normal(mean, std) if acquisition == "its" else mean + 0.5 * std
    ranked = optimizer._ranked_pool()
    assert len(ranked) == len(pool) > 30  # NB201 mutations change one edge: at most 2 x 24 unseen cells
    assert ranked == [pool[i] for i in np.argsort(-score, kind="stable")]
    assert not {nb201.space.identity(c) for c in ranked} & optimizer.seen


def test_bananas_settings_and_missing_scikit_learn(nb201, monkeypatch):
    with pytest.raises(ValueError, match="acquisition"):
        make("bananas", nb201.space, acquisition="ei")
    with pytest.raises(ValueError, match="ensemble_size"):
        make("bananas", nb201.space, ensemble_size=1)
    ucb = run(nb201, make("bananas", nb201.space, seed=0, acquisition="ucb"), Budget(evaluations=20), seed=0)
    assert ucb.arch_id.is_unique
    monkeypatch.setitem(sys.modules, "sklearn.neural_network", None)
    with pytest.raises(ImportError, match=r"nasarena\[surrogates\]"):
        make("bananas", nb201.space)


# -- differential evolution ------------------------------------------------------------------

def test_de_decodes_equal_width_bins(nb201):
    optimizer = make("de", nb201.space)
    cell = optimizer.decode(np.array([0.0, 0.199, 0.2, 0.999, 1.0, 0.5]))
    assert cell == nb201.space.from_categorical([0, 0, 1, 4, 4, 2])
    with pytest.raises(ValueError, match="population_size"):
        make("de", nb201.space, population_size=3)
    with pytest.raises(ValueError, match="crossover_rate"):
        make("de", nb201.space, crossover_rate=1.5)


def test_de_rand_1_bin_and_greedy_selection(nb201):
    optimizer = make("de", nb201.space, seed=0, population_size=4, mutation_factor=0.5, crossover_rate=0.5)
    initial = [optimizer.ask() for _ in range(4)]
    for trial, accuracy in zip(initial, [0.5, 0.6, 0.7, 0.8]):
        optimizer.tell(trial, Observation(accuracy, 1.0))
    population = optimizer.vectors.copy()
    # replay rand/1/bin on a copy of the generator: the trial for target 0
    rng = copy.deepcopy(optimizer.rng)
    a, b, c = population[rng.choice([1, 2, 3], size=3, replace=False)]
    take = rng.random(6) < 0.5
    take[rng.integers(6)] = True
    expected = np.clip(np.where(take, a + 0.5 * (b - c), population[0]), 0, 1)
    trial = optimizer.ask()
    vector = optimizer._pending[trial.number][1]
    np.testing.assert_allclose(vector, expected)
    assert trial.arch == optimizer.decode(expected)
    optimizer.tell(trial, Observation(0.49, 1.0))  # worse than target 0: rejected
    np.testing.assert_array_equal(optimizer.vectors, population)
    trial = optimizer.ask()  # target 1
    vector = optimizer._pending[trial.number][1]
    optimizer.tell(trial, Observation(0.6, 1.0))  # as good as target 1: replaces it
    np.testing.assert_array_equal(optimizer.vectors[1], vector)
    assert optimizer.scores.tolist() == [0.5, 0.6, 0.7, 0.8]
    trial = optimizer.ask()  # target 2; invalid cells score 0 and lose
    optimizer.tell(trial, Observation(0.0, 0.0, valid=False))
    np.testing.assert_array_equal(optimizer.vectors[2], population[2])
