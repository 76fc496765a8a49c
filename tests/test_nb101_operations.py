"""Sampling, mutation and neighbourhoods with explicit generators."""

import numpy as np
import pytest

from nasarena.spaces.nb101 import INPUT, OPS, OUTPUT, Cell, unique_cells
from nasarena.spaces.nb101.operations import mutate, neighbours, sample_raw, sample_unique


def test_sampling_is_valid_and_deterministic():
    a = [sample_raw(np.random.default_rng(7)).hash for _ in range(3)]
    assert len(set(a)) == 1
    rng = np.random.default_rng(1)
    cells = [sample_raw(rng) for _ in range(200)]
    assert all(c.is_valid and len(c.original_matrix) == 7 for c in cells)
    assert len({c.hash for c in cells}) > 100  # small cells repeat often under raw sampling


def test_raw_sampling_favours_large_cells_unlike_uniform_sampling():
    rng = np.random.default_rng(3)
    raw = np.mean([sample_raw(rng).num_vertices for _ in range(400)])
    table = unique_cells()
    uniform = np.mean([sample_unique(rng).num_vertices for _ in range(400)])
    assert uniform == pytest.approx(np.mean(table.num_vertices), abs=0.15)
    assert raw < uniform  # Bernoulli(0.5) edges prune many vertices away


def test_mutation_changes_few_positions_and_stays_valid(rng):
    parent = sample_raw(rng)
    distances = []
    for _ in range(200):
        child = mutate(parent, rng)
        assert child.is_valid
        edge_changes = int(np.sum(np.array(child.original_matrix) != np.array(parent.original_matrix)))
        op_changes = sum(a != b for a, b in zip(child.original_ops, parent.original_ops))
        distances.append(edge_changes + op_changes)
    # in expectation 21/7 = 3 edge flips and 5/5 = 1 op change (rejections shift it a little)
    assert 2.5 < np.mean(distances) < 5.5


def test_mutation_of_a_small_canonical_cell_can_grow_it(rng):
    small = Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[0], OUTPUT])
    sizes = {mutate(small, rng, rate=3.0).num_vertices for _ in range(300)}
    assert max(sizes) > 3


def test_mutation_is_deterministic_given_the_seed():
    parent = sample_raw(np.random.default_rng(0))
    first = [mutate(parent, np.random.default_rng(5)).hash for _ in range(2)]
    assert first[0] == first[1]


def test_neighbours_are_one_edit_away_distinct_and_valid(rng):
    cell = sample_raw(rng)
    result = neighbours(cell)
    hashes = [n.hash for n in result]
    assert len(hashes) == len(set(hashes)) and cell.hash not in hashes
    base = np.array(cell.original_matrix)
    for n in result:
        edits = int(np.sum(np.array(n.original_matrix) != base)) + sum(
            a != b for a, b in zip(n.original_ops, cell.original_ops)
        )
        assert edits == 1 and n.is_valid


def test_neighbours_of_the_chain_cell_by_hand():
    chain = Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[0], OUTPUT])
    expected = {
        Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[1], OUTPUT]).hash,
        Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[2], OUTPUT]).hash,
        Cell([[0, 1, 1], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[0], OUTPUT]).hash,
    }  # removing either edge disconnects the output, so those edits are not neighbours
    assert {n.hash for n in neighbours(chain)} == expected


def test_invalid_cells_cannot_be_mutated():
    invalid = Cell([[0, 0], [0, 0]], [INPUT, OUTPUT])
    with pytest.raises(ValueError, match="invalid"):
        mutate(invalid, np.random.default_rng(0))
