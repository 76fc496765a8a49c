"""The NB101 paper's mutation (Supplement S2) and the rate-based one, as RE/NRE settings."""

import numpy as np
import pytest

from nasarena.optimizers.base import make
from nasarena.spaces.nb101 import operations
from nasarena.spaces.nb101.cell import MAX_VERTICES
from nasarena.spaces.nb101.space import NB101Space


def _encoding_distance(parent, child) -> int:
    """Edit distance between two 7-vertex encodings: differing upper-triangle edges plus ops."""
    a, b = np.array(parent[0]), np.array(child.original_matrix)
    ops_a, ops_b = parent[1], child.original_ops
    return int(np.triu(a != b, 1).sum()) + sum(x != y for x, y in zip(ops_a, ops_b))


def test_paper_mutation_is_exactly_one_edit_and_rate_mutation_is_not():
    rng = np.random.default_rng(3)
    space = NB101Space()
    paper, rate = [], []
    kinds = {"edge": 0, "op": 0}
    for _ in range(400):
        parent = space.sample(rng)
        while len(parent.original_ops) != MAX_VERTICES:  # compare on 7-vertex encodings
            parent = space.sample(rng)
        encoding = (parent.original_matrix, parent.original_ops)
        child = operations.mutate_one_edit(parent, rng)
        paper.append(_encoding_distance(encoding, child))
        assert child.hash != parent.hash
        kinds["op" if child.original_ops != parent.original_ops else "edge"] += 1
        rate.append(_encoding_distance(encoding, operations.mutate(parent, rng, 1.0)))
    assert set(paper) == {1}
    # edges are 21 of the 26 positions; the valid children skew this only mildly
    assert 0.05 < kinds["op"] / 400 < 0.4
    distances = np.bincount(rate)
    assert distances[0] > 0 and distances[2:].sum() > 0  # the rate rule can return 0 or several edits


def test_a_cell_no_single_edit_changes_still_gets_a_child():
    from nasarena.spaces.nb101.cell import Cell

    cell = Cell.from_checked(((0, 1), (0, 0)), ("input", "output"))  # input -> output alone
    assert operations.mutate_one_edit(cell, np.random.default_rng(0)).hash == cell.hash


def test_evolution_defaults_to_the_paper_mutation_and_keeps_the_rate_rule(lite):
    for name in ("re", "nre"):
        default = make(name, lite.space)
        assert default.mutation == "paper" and default.settings()["mutation"] == "paper"
        assert make(name, lite.space, mutation="rate").settings()["mutation"] == "rate"
    with pytest.raises(ValueError, match="mutation"):
        make("re", lite.space, mutation="sometimes")


@pytest.mark.parametrize("name", ["re", "nre"])
def test_the_mutation_rule_is_part_of_the_settings_hash(name):
    from nasarena.runner import Budget
    from nasarena.runner.experiment import grid

    default, paper, rate = (grid(["nb101-lite"], [name], [0], Budget(seconds=1e6), settings)[0]
                            for settings in (None, {name: {"mutation": "paper"}}, {name: {"mutation": "rate"}}))
    assert default.settings_hash == paper.settings_hash != rate.settings_hash
    assert default.recorded_settings["mutation"] == "paper" and rate.recorded_settings["mutation"] == "rate"


def test_local_search_neighbourhood_is_the_support_of_the_paper_mutation():
    """Local search evaluates every single edit (no rule to choose): the paper's mutation draws
    one of exactly these neighbours, so the two share one notion of a step."""
    rng = np.random.default_rng(11)
    space = NB101Space()
    for _ in range(40):
        parent = space.sample(rng)
        while len(parent.original_ops) != MAX_VERTICES:
            parent = space.sample(rng)
        neighbours = {n.hash for n in space.neighbours(parent)}
        encoding = (parent.original_matrix, parent.original_ops)
        assert all(_encoding_distance(encoding, n) == 1 for n in space.neighbours(parent))
        assert {operations.mutate_one_edit(parent, rng).hash for _ in range(10)} <= neighbours
    assert "mutation" not in make("ls", space).settings()


def test_variable_size_mutation_changes_the_number_of_vertices_sometimes(lite):
    rng = np.random.default_rng(5)
    space = NB101Space()
    sizes = []
    for _ in range(300):
        parent = space.sample(rng)
        child = space.mutate_variable_size(parent, rng)
        assert child.is_valid and child.hash != parent.hash
        sizes.append(len(child.original_ops) != len(parent.original_ops))
    assert 0 < np.mean(sizes) < 0.2  # 1 of up to 27 parameters is the number of vertices
    evolution = make("re", lite.space, encoding="variable_size")
    assert evolution.settings()["encoding"] == "variable_size"
    with pytest.raises(ValueError, match="variable_size"):
        make("re", lite.space, encoding="variable_size", mutation="rate")


def _original_rate_mutation(cell, rng, rate):
    """The original regularized-evolution mutation, written out on Cells (the reference the raw
    encoding's version must equal draw for draw): widen to 7 vertices, then per attempt 31
    uniforms, edges flipped below rate / 7, ops changed below rate / 5, until the child is valid."""
    from nasarena.spaces.nb101.cell import OPS, Cell

    matrix, ops = operations._padded_original(cell, rng)
    pairs = [(x, y) for x in range(7) for y in range(x + 1, 7)]
    while True:
        draws = rng.random(21 + 10)
        child_matrix = [row[:] for row in matrix]
        for (x, y), u in zip(pairs, draws):
            if u < rate / 7:
                child_matrix[x][y] = 1 - child_matrix[x][y]
        child_ops = list(ops)
        for vertex in range(1, 6):
            if draws[21 + 2 * (vertex - 1)] < rate / 5:
                others = [op for op in OPS if op != ops[vertex]]
                child_ops[vertex] = others[int(draws[21 + 2 * vertex - 1] * len(others))]
        child = Cell.from_checked(tuple(map(tuple, child_matrix)), tuple(child_ops))
        if child.is_valid:
            return child


@pytest.mark.parametrize("rate", [1.0, 0.5, 3.0])
def test_rate_mutation_on_the_raw_encoding_is_the_original_draw_for_draw(rate):
    from nasarena.spaces.nb101.cell import Cell

    rng = np.random.default_rng(11)
    parents = [operations.sample_raw(rng) for _ in range(60)] + [operations.sample_unique(rng) for _ in range(60)]
    parents += [Cell.from_checked(p.original_matrix, p.original_ops) for p in parents[:20]]  # not raw-table cells
    assert any(len(p.original_ops) < MAX_VERTICES for p in parents)  # widened ones draw their new ops first
    for number, parent in enumerate(parents):
        ours, reference = np.random.default_rng(number), np.random.default_rng(number)
        child, expected = operations.mutate(parent, ours, rate), _original_rate_mutation(parent, reference, rate)
        assert (child.hash, child.row, child.original_matrix, child.original_ops, child.matrix, child.ops) == \
            (expected.hash, expected.row, expected.original_matrix, expected.original_ops, expected.matrix, expected.ops)
        assert ours.random() == reference.random()  # the same number of draws
