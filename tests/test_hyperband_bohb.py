"""Hyperband's schedule and successive halving (also with out-of-order tells), BOHB's densities
and model, and both optimizers end to end on the multi-fidelity nb101-slice."""

import itertools

import numpy as np
import pytest

import nasarena
from nasarena.optimizers import Observation, make
from nasarena.optimizers.bohb import CategoricalKDE, aitchison_aitken
from nasarena.optimizers.hyperband import schedule
from nasarena.runner import Budget, RunSettings, run
from nasarena.spaces.nb101 import unique_cells
from nasarena.spaces.nb101.encodings import NUM_EDGE_SLOTS, NUM_OP_SLOTS, adjacency_one_hot

NB101_FIDELITIES = (4, 12, 36, 108)


class ToySpace:
    """Tuples of categorical values; every tuple is a valid architecture."""

    def __init__(self, dims):
        self.dims = tuple(dims)

    def sample(self, rng):
        return tuple(rng.integers(0, self.dims).tolist())

    def categorical_dims(self):
        return self.dims

    def from_categorical(self, values):
        return tuple(int(v) for v in values)


class Scores:
    """A fake benchmark: a fixed random validation accuracy per (architecture, fidelity)."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.table = {}

    def __call__(self, arch, fidelity):
        return self.table.setdefault((arch, fidelity), float(self.rng.random()))


def observe(accuracy):
    return Observation(accuracy, 1.0)


def test_nb101_schedule_uses_exactly_its_four_fidelities():
    assert schedule(NB101_FIDELITIES, eta=3) == [
        [(27, 4), (9, 12), (3, 36), (1, 108)],
        [(12, 12), (4, 36), (1, 108)],
        [(6, 36), (2, 108)],
        [(4, 108)],
    ]


def test_budgets_are_snapped_to_available_fidelities():
    assert schedule((12, 200), eta=3) == [[(3, 12), (1, 200)], [(2, 200)]]
    assert {budget for bracket in schedule(range(1, 201), 3) for _, budget in bracket} == {3, 7, 22, 67, 200}


def test_sequential_brackets_promote_the_best_by_accuracy_and_cycle():
    space, scores = ToySpace((10,) * 6), Scores()
    optimizer = make("hb", space, seed=0, fidelities=NB101_FIDELITIES)
    cycle = sum(size for bracket in schedule(NB101_FIDELITIES) for size, _ in bracket)
    assert cycle == 40 + 17 + 8 + 4
    asked = []
    for _ in range(2 * cycle + 27):  # two full cycles of the four brackets, then the first rung again
        trial = optimizer.ask()
        asked.append((trial.arch, trial.fidelity))
        optimizer.tell(trial, observe(scores(trial.arch, trial.fidelity)))
    position = 0
    for bracket in schedule(NB101_FIDELITIES) * 2 + [[(27, 4)]]:
        previous = None
        for size, budget in bracket:
            rung = asked[position : position + size]
            position += size
            assert [fidelity for _, fidelity in rung] == [budget] * size
            archs = [arch for arch, _ in rung]
            if previous is None:
                assert len(set(archs)) == size  # new configurations
            else:
                ranked = sorted(previous, key=lambda arch: -scores(arch, previous_budget))
                assert archs == ranked[:size]  # the best of the previous rung, best first
            previous, previous_budget = archs, budget


@pytest.mark.parametrize("permutation_seed", [1, 2])
def test_out_of_order_tells_complete_a_rung_only_when_all_are_told(permutation_seed):
    space, scores = ToySpace((10,) * 6), Scores()
    optimizer = make("hb", space, seed=0, fidelities=NB101_FIDELITIES)
    first = [optimizer.ask() for _ in range(27)]
    assert {t.fidelity for t in first} == {4}
    order = np.random.default_rng(permutation_seed).permutation(27)
    for i in order[:26]:
        optimizer.tell(first[i], observe(scores(first[i].arch, 4)))
    # the first bracket waits for its last trial; idle workers start the next bracket
    waiting = [optimizer.ask() for _ in range(12)]
    assert {t.fidelity for t in waiting} == {12}
    assert not {t.arch for t in waiting} & {t.arch for t in first}
    last = first[order[26]]
    optimizer.tell(last, observe(scores(last.arch, 4)))
    promoted = [optimizer.ask() for _ in range(9)]
    ranked = sorted((t.arch for t in first), key=lambda arch: -scores(arch, 4))
    assert [t.arch for t in promoted] == ranked[:9]
    assert {t.fidelity for t in promoted} == {12}
    # the second bracket's rung, told backwards, promotes its best 4 at 36 epochs
    for trial in reversed(waiting):
        optimizer.tell(trial, observe(scores(trial.arch, 12)))
    following = [optimizer.ask() for _ in range(4)]
    assert [t.arch for t in following] == sorted((t.arch for t in waiting), key=lambda a: -scores(a, 12))[:4]
    assert {t.fidelity for t in following} == {36}


def test_invalid_configurations_give_their_slot_to_a_new_one():
    optimizer = make("hb", ToySpace((10,) * 6), seed=0, fidelities=NB101_FIDELITIES)
    trials = [optimizer.ask() for _ in range(27)]
    optimizer.tell(trials[0], Observation(0.0, 0.0, valid=False))
    replacement = optimizer.ask()
    assert replacement.fidelity == 4 and replacement.arch not in {t.arch for t in trials}
    for trial in trials[1:] + [replacement]:
        optimizer.tell(trial, observe(0.5))
    assert optimizer.ask().fidelity == 12


@pytest.mark.parametrize("name", ["hb", "bohb"])
def test_a_single_fidelity_is_a_clear_error(name):
    lite = nasarena.benchmark("nb101-lite")
    with pytest.raises(ValueError, match="needs a benchmark with several fidelities; .* has only 1"):
        make(name, lite.space, fidelities=lite.fidelities)
    with pytest.raises(ValueError, match="pass fidelities=benchmark.fidelities"):
        make(name, lite.space)


def test_optimizers_declare_that_they_need_fidelities():
    space = ToySpace((2,))
    assert make("hb", space, fidelities=(1, 3)).multi_fidelity
    assert make("bohb", space, fidelities=(1, 3)).multi_fidelity
    assert not make("rs", space).multi_fidelity


@pytest.mark.parametrize("categories", [2, 3, 5])
@pytest.mark.parametrize("bandwidth", [0.05, 0.3, 0.5])
def test_aitchison_aitken_kernel_sums_to_one_over_the_categories(categories, bandwidth):
    for centre in range(categories):
        weights = aitchison_aitken(np.arange(categories), centre, bandwidth, categories)
        assert weights.sum() == pytest.approx(1.0)
        assert weights[centre] == pytest.approx(1 - bandwidth)


def test_product_kde_is_a_distribution_over_the_whole_space(rng):
    dims = np.array([2, 3, 4, 1])
    kde = CategoricalKDE(rng.integers(0, dims, size=(9, 4)), dims, min_bandwidth=0.1)
    everything = np.array(list(itertools.product(*(range(c) for c in dims))))
    assert np.exp(kde.log_density(everything)).sum() == pytest.approx(1.0)
    assert (kde.bandwidth >= np.minimum(0.1, 1 - 1 / dims)).all() and (kde.bandwidth <= 1 - 1 / dims).all()


def toy_accuracy(arch):
    """Value 2 of the first dimension is clearly better; the rest is noise."""
    return (0.9 if arch[0] == 2 else 0.3) + 0.01 * sum(arch[1:])


def test_bohb_samples_randomly_until_a_budget_has_enough_observations_then_follows_the_model():
    space = ToySpace((3,) * 6)  # N_min = 7: a model after 9 observations at a budget
    optimizer = make("bohb", space, seed=0, fidelities=(1, 3, 9, 27))
    good_value_with_model = []
    for step in range(400):
        with_model = optimizer.model() is not None
        assert with_model == (step >= 9)  # the first bracket evaluates 27 configurations at budget 1 first
        trial = optimizer.ask()
        if trial.fidelity == 1 and with_model:  # trials at the lowest budget are all new configurations
            good_value_with_model.append(trial.arch[0] == 2)
        optimizer.tell(trial, observe(toy_accuracy(trial.arch)))
    assert optimizer.model()[0] == 27  # the largest budget with enough data
    assert len(good_value_with_model) > 100 and np.mean(good_value_with_model) > 0.7  # chance is 1/3


def test_bohb_counts_invalid_architectures_as_accuracy_zero():
    optimizer = make("bohb", ToySpace((3,) * 4), seed=0, fidelities=(1, 3, 9))
    trial = optimizer.ask()
    optimizer.tell(trial, Observation(0.0, 0.0, valid=False))
    assert optimizer._data[1][1] == [0.0]


class SliceSpace:
    """NB101 cells of nb101-slice; a categorical vector maps to the slice cell nearest in Hamming distance."""

    def __init__(self, bench, count=2000, seed=0):
        rows = np.random.default_rng(seed).choice(len(bench.positions), size=count, replace=False)
        self.cells = [unique_cells().cell(int(bench.positions[r])) for r in rows]
        one_hot = np.stack([adjacency_one_hot(cell) for cell in self.cells])
        ops = one_hot[:, NUM_EDGE_SLOTS:].reshape(-1, NUM_OP_SLOTS, 3).argmax(axis=2)  # absent vertex: 0
        self.vectors = np.concatenate([one_hot[:, :NUM_EDGE_SLOTS], ops], axis=1).astype(np.int64)

    def sample(self, rng):
        return self.cells[int(rng.integers(len(self.cells)))]

    def categorical_dims(self):
        return (2,) * NUM_EDGE_SLOTS + (3,) * NUM_OP_SLOTS

    def from_categorical(self, values):
        return self.cells[int(np.argmin((self.vectors != np.asarray(values)).sum(axis=1)))]


@pytest.fixture(scope="module")
def nb101_slice():
    bench = nasarena.benchmark("nb101-slice")
    return bench, SliceSpace(bench)


@pytest.mark.parametrize("name", ["hb", "bohb"])
def test_end_to_end_on_nb101_slice(nb101_slice, name):
    bench, space = nb101_slice
    assert bench.fidelities == NB101_FIDELITIES
    settings = RunSettings(n_workers=4)

    def trajectory(seed):
        optimizer = make(name, space, seed=seed, fidelities=bench.fidelities)
        return run(bench, optimizer, Budget(evaluations=500), seed=seed, settings=settings)

    first, again = trajectory(0), trajectory(0)
    assert len(first) == 500
    assert set(first.fidelity) == set(NB101_FIDELITIES)
    assert first.incumbent_valid_accuracy.iloc[-1] > first.incumbent_valid_accuracy.iloc[0]
    assert first.incumbent_test_regret.iloc[-1] < first.incumbent_test_regret.iloc[0]
    assert first.drop(columns="optimizer_cpu_time").equals(again.drop(columns="optimizer_cpu_time"))
    assert not first.arch_id.equals(trajectory(1).arch_id)
