"""The NAS-Bench-1Shot1 spaces: definitions, architectures, NB101 cells and discretisation."""

from __future__ import annotations

import math

import ConfigSpace
import numpy as np
import pytest

from nasarena.benchmarks import benchmark
from nasarena.errors import InvalidArchitectureError, InvalidSettingError, UnknownNameError
from nasarena.spaces.nb101 import Cell
from nasarena.spaces.oneshot import (
    ONESHOT_SPACES,
    PAPER_COUNTS,
    OneShotArch,
    architectures,
    count,
    discretize,
    discretize_arch,
    oneshot_space,
    search_space,
)
from nasarena.spaces.oneshot.choices import choices
from nasarena.spaces.oneshot.enumeration import blocks_with_child, is_chain, wirings

C3, C1, MP = "conv3x3-bn-relu", "conv1x1-bn-relu", "maxpool3x3"


def test_table_1_parents_sum_to_nine():
    assert [s.block_parents for s in ONESHOT_SPACES.values()] == [(1, 2, 2, 2), (1, 1, 2, 2), (1, 1, 1, 2, 2)]
    assert [s.output_parents for s in ONESHOT_SPACES.values()] == [2, 3, 2]
    for space in ONESHOT_SPACES.values():
        assert sum(space.block_parents) + space.output_parents == 9
        assert space.ops == (C3, C1, MP)


def test_unknown_space_names_the_choices():
    with pytest.raises(UnknownNameError, match="nb1shot1-1"):
        oneshot_space("nb1shot1-4")


def test_arch_to_cell_space_1():
    arch = OneShotArch("nb1shot1-1", ((0,), (0, 1), (1, 2), (0, 3)), (C3, MP, C1, C3), (3, 4))
    cell = arch.to_cell()
    expected = Cell(
        [[0, 1, 1, 0, 1, 0],
         [0, 0, 1, 1, 0, 0],
         [0, 0, 0, 1, 0, 0],
         [0, 0, 0, 0, 1, 1],
         [0, 0, 0, 0, 0, 1],
         [0, 0, 0, 0, 0, 0]],
        ["input", C3, MP, C1, C3, "output"])
    assert cell.is_valid and cell == expected
    assert cell.num_vertices == 6  # the unused vertex 5 is pruned
    assert arch.active_blocks() == (1, 2, 3, 4)


def test_loose_end_is_pruned_and_its_op_does_not_matter():
    # Block 2 feeds nothing: it is a loose end.
    base = dict(space="nb1shot1-3", parents=((0,), (1,), (1,), (0, 3), (3, 4)), output=(1, 5))
    a = OneShotArch(ops=(C3, C3, C1, MP, C3), **base)
    b = OneShotArch(ops=(C3, MP, C1, MP, C3), **base)
    assert a.active_blocks() == (1, 3, 4, 5)
    assert a.to_cell() == b.to_cell() and a.to_cell().num_vertices == 6


def test_arch_rejects_what_is_not_in_its_space():
    with pytest.raises(InvalidArchitectureError, match="block 3 of nb1shot1-1 takes exactly 2"):
        OneShotArch("nb1shot1-1", ((0,), (0, 1), (1,), (0, 3)), (C3,) * 4, (3, 4))
    with pytest.raises(InvalidArchitectureError, match="block 2's parents"):
        OneShotArch("nb1shot1-2", ((0,), (2,), (1, 2), (0, 3)), (C3,) * 4, (1, 3, 4))
    with pytest.raises(InvalidArchitectureError, match="block 4 has op 'skip'"):
        OneShotArch("nb1shot1-1", ((0,), (0, 1), (1, 2), (0, 3)), (C3, C3, C3, "skip"), (3, 4))
    with pytest.raises(InvalidArchitectureError, match="output"):
        OneShotArch("nb1shot1-1", ((0,), (0, 1), (1, 2), (0, 3)), (C3,) * 4, (4, 5))


def test_text_round_trip_and_errors():
    arch = OneShotArch("nb1shot1-2", ((0,), (1,), (0, 2), (1, 3)), (C1, C3, MP, C3), (0, 2, 4))
    text = arch.to_string()
    assert text == "nb1shot1-2:conv1x1-bn-relu<0|conv3x3-bn-relu<1|maxpool3x3<0+2|conv3x3-bn-relu<1+3|out<0+2+4"
    assert OneShotArch.from_string(text) == arch
    with pytest.raises(InvalidArchitectureError, match="output"):
        OneShotArch.from_string(text.replace("out<", "exit<"))
    with pytest.raises(InvalidArchitectureError, match="block 3"):
        OneShotArch.from_string(text.replace("0+2", "0+x"))
    with pytest.raises(UnknownNameError):
        OneShotArch.from_string("nb1shot1-9:" + text.partition(":")[2])


def test_discretize_hand_made_weights_space_3():
    alpha = [[0.3], [0.1, 0.9], [0.5, 0.2, 0.4], [0.1, 0.2, 0.7, 0.6], [0.0, 0.8, 0.1, 0.3, 0.9]]
    beta = [[1, 0, 0], [0, 2, 1], [0, 0, 3], [0.5, 0.4, 0.1], [0.2, 0.9, 0.1]]
    gamma = [0.1, 0.0, 0.2, 0.3, 0.9, 0.8]
    arch = discretize_arch("nb1shot1-3", alpha, beta, gamma)
    assert arch.parents == ((0,), (1,), (0,), (2, 3), (1, 4))
    assert arch.ops == (C3, C1, MP, C3, C1)
    assert arch.output == (4, 5)
    assert discretize("nb1shot1-3", alpha, beta, gamma) == arch.to_cell()


def test_discretize_ties_go_to_the_lowest_index_and_scale_does_not_matter():
    space = ONESHOT_SPACES["nb1shot1-2"]
    alpha = [np.zeros(j) for j in range(1, 5)]
    arch = discretize_arch(space, alpha, np.zeros((4, 3)), np.zeros(5))
    assert arch.parents == ((0,), (0,), (0, 1), (0, 1)) and arch.ops == (C3,) * 4 and arch.output == (0, 1, 2)
    rng = np.random.default_rng(0)
    alpha = [rng.normal(size=j) for j in range(1, 5)]
    beta, gamma = rng.normal(size=(4, 3)), rng.normal(size=5)
    softmax = lambda w: np.exp(w) / np.exp(w).sum(axis=-1, keepdims=True)  # noqa: E731
    assert discretize_arch(space, alpha, beta, gamma) == discretize_arch(
        space, [softmax(a) for a in alpha], softmax(beta), softmax(gamma))


@pytest.mark.parametrize(("change", "message"), [
    (dict(alpha=[[1.0], [1.0, 2.0], [1.0, 2.0, 3.0]]), r"alpha must be a list of 4 vectors"),
    (dict(alpha=[[1.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0, 3.0, 4.0]]), r"alpha\[2\] \(block 3\) must have shape \(3,\), got \(2,\)"),
    (dict(beta=np.zeros((4, 4))), r"beta must have shape \(4, 3\), got \(4, 4\)"),
    (dict(beta=np.zeros(12)), r"beta must have shape \(4, 3\), got \(12,\)"),
    (dict(gamma=np.zeros(4)), r"gamma must have shape \(5,\), got \(4,\)"),
    (dict(gamma=[0, 1, float("nan"), 0, 0]), r"gamma holds a NaN"),
    (dict(alpha=None), r"alpha must be a list of 4 vectors"),
])
def test_discretize_wrong_shapes_name_the_tensor(change, message):
    weights = dict(alpha=[np.ones(j) for j in range(1, 5)], beta=np.ones((4, 3)), gamma=np.ones(5))
    weights.update(change)
    with pytest.raises(InvalidArchitectureError, match=message):
        discretize("nb1shot1-1", **weights)


# --- the spaces as full spaces: counts, enumeration, search operations, encodings --------------

NAMES = tuple(ONESHOT_SPACES)


def test_the_six_counts_of_the_paper():
    """Five of Table 1's numbers come out of the authors' rule; space 2 with loose ends is 16,632
    under it, and the printed 29,160 is the complete count 360 x 3^4."""
    for name, (with_loose_ends, without) in PAPER_COUNTS.items():
        assert count(name, loose_ends=False) == without
        if name != "nb1shot1-2":
            assert count(name) == with_loose_ends
    assert count("nb1shot1-2") == 16632
    assert len(wirings("nb1shot1-2")) == 360
    assert count("nb1shot1-2", complete=True) == PAPER_COUNTS["nb1shot1-2"][0] == 360 * 3**4
    assert [search_space(n).size for n in NAMES] == [6240, 16632, 363648]


@pytest.mark.parametrize("name", NAMES)
def test_complete_set_with_loose_ends_is_every_choice(name):
    space = ONESHOT_SPACES[name]
    wiring_count = math.prod(math.comb(j, k) for j, k in enumerate(space.block_parents, start=1))
    wiring_count *= math.comb(space.num_blocks + 1, space.output_parents)
    assert len(wirings(name)) == wiring_count
    assert count(name, complete=True) == wiring_count * 3**space.num_blocks


@pytest.mark.parametrize("name", ["nb1shot1-1", "nb1shot1-2"])
def test_distinct_cells_agree_between_cell_hashing_and_vectorised_rows(name):
    """The complete set without loose ends (distinct NB101 cells) counted two independent ways."""
    every = architectures(name, complete=True)
    hashes = {arch.to_cell().hash for arch in every}
    assert len(hashes) == count(name, loose_ends=False, complete=True)
    # the authors' set with loose ends reaches exactly the same cells as every architecture does
    assert set(np.unique(every.nb101_rows()).tolist()) == set(np.unique(architectures(name).nb101_rows()).tolist())
    sample = np.random.default_rng(0).choice(len(every), 200, replace=False)
    assert [every[int(i)].to_cell().row for i in sample] == every.nb101_rows()[sample].tolist()


@pytest.mark.parametrize("name", NAMES)
def test_every_architecture_is_a_valid_cell_of_nb101_lite(name):
    """All 14,580 / 29,160 / 1,312,200 architectures (every choice) hash to an NB101 cell with a real accuracy."""
    rows = architectures(name, complete=True).nb101_rows()
    assert len(rows) == count(name, complete=True) and rows.min() >= 0
    accuracy = benchmark("nb101-lite").mean_over_trials("test_accuracy")[np.unique(rows)]
    assert np.isfinite(accuracy).all() and accuracy.min() > 0.0
    assert len(np.unique(rows)) == count(name, loose_ends=False, complete=True)


@pytest.mark.parametrize("name", NAMES)
def test_sets_without_loose_ends_hold_each_cell_once_as_a_chain(name):
    complete = architectures(name, loose_ends=False, complete=True)
    assert len(np.unique(complete.nb101_rows())) == len(complete)  # distinct NB101 cells
    chains = architectures(name, loose_ends=False)
    # the authors' count: distinct labelled cells (wiring, ops); isomorphic ones count separately
    assert len({(w, ops.tobytes()) for w, ops in zip(chains.wiring.tolist(), chains.ops)}) == len(chains)
    assert len(np.unique(chains.nb101_rows())) == {"nb1shot1-1": 2127, "nb1shot1-2": 3258, "nb1shot1-3": 17940}[name]
    picks = np.random.default_rng(1).choice(len(chains), 300, replace=False)
    for i in picks:
        arch = chains[int(i)]
        assert is_chain((arch.parents, arch.output))
        # inactive blocks are written with their lowest parents and op conv3x3
        for j in set(range(1, len(arch.ops) + 1)) - set(arch.active_blocks()):
            assert arch.ops[j - 1] == C3 and arch.parents[j - 1] == tuple(range(len(arch.parents[j - 1])))


def test_sets_with_loose_ends_fix_the_op_of_childless_blocks():
    archs = architectures("nb1shot1-3")
    for i in np.random.default_rng(2).choice(len(archs), 300, replace=False):
        arch = archs[int(i)]
        childless = set(range(1, 6)) - set(blocks_with_child((arch.parents, arch.output)))
        assert all(arch.ops[j - 1] == C3 for j in childless)
    assert len({archs[i] for i in range(5000)}) == 5000  # architectures, not cells: each counts once


@pytest.mark.parametrize("name", NAMES)
def test_sampling_is_seeded_and_covers_every_choice(name):
    space = search_space(name)
    first = [space.sample(np.random.default_rng(7)) for _ in range(3)]
    assert first[0] == first[1] == first[2]
    draws = [space.sample(rng) for rng in [np.random.default_rng(7)] for _ in range(300)]
    assert draws == [space.sample(rng) for rng in [np.random.default_rng(7)] for _ in range(300)]
    assert draws != [space.sample(rng) for rng in [np.random.default_rng(8)] for _ in range(300)]
    values = np.array([space.encode(a, "choices") for a in draws])
    assert [len(np.unique(column)) for column in values.T] == list(space.categorical_dims())
    assert all(space.contains(a) for a in draws)


@pytest.mark.parametrize("name", NAMES)
def test_text_round_trip(name):
    space = search_space(name)
    rng = np.random.default_rng(3)
    for _ in range(200):
        arch = space.sample(rng)
        assert space.from_text(space.to_text(arch)) == arch
    other = search_space("nb1shot1-3" if name != "nb1shot1-3" else "nb1shot1-1").sample(rng)
    with pytest.raises(InvalidArchitectureError, match=f"belongs to {other.space}, not to {name}"):
        space.from_text(other.to_string())
    assert space.violation("not an arch").startswith(f"a {name} architecture is a OneShotArch")


@pytest.mark.parametrize("name", NAMES)
def test_mutation_and_neighbours_stay_in_the_space_and_change_the_network(name):
    space = search_space(name)
    rng = np.random.default_rng(4)
    for _ in range(30):
        arch = space.sample(rng)
        neighbours = space.neighbours(arch)
        cells = [n.to_cell() for n in neighbours]
        assert neighbours and arch.to_cell() not in cells and len(set(cells)) == len(cells)
        for n in neighbours:  # exactly one choice differs
            changed = space.encode(n, "choices") != space.encode(arch, "choices")
            assert changed.sum() == 1 and space.contains(n)
        child = space.mutate(arch, rng)
        assert space.contains(child) and child.to_cell() in cells  # another network, one choice away
        assert (space.encode(child, "choices") != space.encode(arch, "choices")).sum() == 1
    arch = space.sample(np.random.default_rng(5))
    assert space.mutate(arch, np.random.default_rng(6)) == space.mutate(arch, np.random.default_rng(6))


def test_choices_follow_table_1():
    """Per block: C(j, k) parent sets (omitted when only one) and 3 ops; the output: C(N+1, k)."""
    assert search_space("nb1shot1-1").categorical_dims() == (3, 3, 3, 3, 6, 3, 10)
    assert search_space("nb1shot1-2").categorical_dims() == (3, 2, 3, 3, 3, 6, 3, 10)
    assert search_space("nb1shot1-3").categorical_dims() == (3, 2, 3, 3, 3, 6, 3, 10, 3, 15)
    names = [c.name for c in choices("nb1shot1-1")]
    assert names == ["block_1_op", "block_2_op", "block_3_parents", "block_3_op", "block_4_parents", "block_4_op",
                     "output_parents"]


@pytest.mark.parametrize("name", NAMES)
def test_categorical_and_config_round_trips(name):
    space = search_space(name)
    rng = np.random.default_rng(9)
    config_space = space.config_space()
    assert list(config_space.keys()) == sorted(c for c in space.to_config(space.sample(rng)))
    for _ in range(50):
        arch = space.sample(rng)
        assert space.from_categorical(space.encode(arch, "choices").astype(int)) == arch
        config = space.to_config(arch)
        assert space.from_config(config) == arch
        ConfigSpace.Configuration(config_space, values=config).check_valid_configuration()
    for config in config_space.sample_configuration(20):
        assert space.contains(space.from_config(config))


def test_bad_configs_and_choices_are_named():
    space = search_space("nb1shot1-3")
    config = space.to_config(space.sample(np.random.default_rng(0)))
    with pytest.raises(InvalidArchitectureError, match="missing parameter output_parents"):
        space.from_config({k: v for k, v in config.items() if k != "output_parents"})
    with pytest.raises(InvalidArchitectureError, match="unknown parameter"):
        space.from_config({**config, "block_9_op": C3})
    with pytest.raises(InvalidArchitectureError, match="block_5_parents is '0\\+5'"):
        space.from_config({**config, "block_5_parents": "0+5"})
    with pytest.raises(InvalidArchitectureError, match="block_4_parents has options 0..5, got 6"):
        space.from_categorical([0, 0, 0, 0, 0, 6, 0, 0, 0, 0])
    with pytest.raises(InvalidArchitectureError, match="10 choices, got 3"):
        space.from_categorical([0, 0, 0])
    with pytest.raises(InvalidSettingError, match="unknown config encoding"):
        space.config_space("continuous")
    with pytest.raises(UnknownNameError, match="nb1shot1-1"):
        search_space("nb1shot1")


def test_encodings_of_the_cell_ignore_loose_ends_and_the_choices_do_not():
    space = search_space("nb1shot1-3")
    base = dict(space="nb1shot1-3", parents=((0,), (1,), (1,), (0, 3), (3, 4)), output=(1, 5))
    a = OneShotArch(ops=(C3, C3, C1, MP, C3), **base)
    b = OneShotArch(ops=(C3, MP, C1, MP, C3), **base)  # block 2 is a loose end
    for kind in ("adjacency_one_hot", "path", "graph"):
        assert np.array_equal(space.encode(a, kind), space.encode(b, kind))
    assert not np.array_equal(space.encode(a, "one_hot"), space.encode(b, "one_hot"))
    assert space.encode(a, "one_hot").sum() == len(space.categorical_dims())
    assert space.identity(a) == space.identity(b) == a.to_cell().hash
    with pytest.raises(ValueError, match="unknown encoding 'zero_cost'"):
        space.encode(a, "zero_cost")
