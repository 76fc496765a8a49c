"""Cell semantics of the original ModelSpec: validation, pruning, domain checks, hashing."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nasarena.spaces.nb101 import CONV1X1, CONV3X3, INPUT, MAXPOOL3X3, OPS, OUTPUT, Cell
from nasarena.spaces.nb101.hashing import fingerprint
from nasarena.spaces.nb101.operations import sample_raw

CHAIN = [[0, 1, 0], [0, 0, 1], [0, 0, 0]]


@pytest.mark.parametrize(
    ("matrix", "ops", "message"),
    [
        ([[0, 1, 0], [0, 0, 1]], [INPUT, CONV3X3, OUTPUT], "must be square"),
        ([[0, 1, 0], [0, 0, 1], [1, 0, 0]], [INPUT, CONV3X3, OUTPUT], r"strictly upper-triangular: entry \(2, 0\)"),
        ([[1, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, CONV3X3, OUTPUT], r"entry \(0, 0\) is 1 with 0 >= 0"),
        ([[0, 2, 0], [0, 0, 1], [0, 0, 0]], [INPUT, CONV3X3, OUTPUT], r"0 or 1: entry \(0, 1\) is 2"),
        (CHAIN, [INPUT, OUTPUT], r"len\(ops\) = 2 differs from the matrix size 3"),
        ([[0]], [INPUT], "at least two vertices"),
    ],
)
def test_malformed_input_says_which_rule_was_broken(matrix, ops, message):
    with pytest.raises(ValueError, match=message):
        Cell(matrix, ops)


def test_disconnected_input_is_invalid_without_hash():
    cell = Cell([[0, 1, 0], [0, 0, 0], [0, 0, 0]], [INPUT, CONV3X3, OUTPUT])
    assert not cell.is_valid and cell.hash is None and cell.matrix is None
    assert "not connected" in cell.reason


def test_pruning_removes_vertices_off_every_input_output_path():
    # vertex 2 has no outgoing path to the output, vertex 3 is unreachable from the input
    matrix = [
        [0, 1, 1, 0, 0],
        [0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0],
    ]
    cell = Cell(matrix, [INPUT, CONV1X1, "unknown-op", MAXPOOL3X3, OUTPUT])
    assert cell.is_valid
    assert cell.matrix == ((0, 1, 0), (0, 0, 1), (0, 0, 0))
    assert cell.ops == (INPUT, CONV1X1, OUTPUT)
    assert cell.original_ops[2] == "unknown-op"  # the unpruned original is kept
    assert len(cell.original_matrix) == 5


def test_raw_edges_beyond_nine_are_fine_if_pruning_removes_them():
    matrix = np.zeros((7, 7), dtype=int)
    matrix[0, 1] = matrix[1, 6] = 1  # the only input -> output path
    for a in range(2, 6):  # a clique the input cannot reach, wired to the output
        matrix[a, a + 1 : 6] = 1
    matrix[2, 6] = matrix[3, 6] = 1
    assert matrix.sum() == 10
    cell = Cell(matrix, [INPUT] + [CONV3X3] * 5 + [OUTPUT])
    assert cell.is_valid and cell.num_edges == 2 and cell.num_vertices == 3


@pytest.mark.parametrize(
    ("ops", "reason"),
    [
        (["conv3x3-bn-relu", CONV3X3, OUTPUT], "first op must be 'input'"),
        ([INPUT, CONV3X3, CONV3X3], "last op must be 'output'"),
        ([INPUT, "conv5x5", OUTPUT], "vertex 1 has op 'conv5x5'"),
    ],
)
def test_out_of_domain_cells_are_invalid_with_a_reason(ops, reason):
    cell = Cell(CHAIN, ops)
    assert not cell.is_valid and reason in cell.reason and cell.hash is None


def test_too_many_edges_and_vertices_after_pruning():
    full = np.triu(np.ones((7, 7), dtype=int), 1)
    cell = Cell(full, [INPUT] + [CONV3X3] * 5 + [OUTPUT])
    assert not cell.is_valid and cell.reason == "too many edges: 21 > 9"
    chain = np.eye(8, k=1, dtype=int)
    cell = Cell(chain, [INPUT] + [CONV3X3] * 6 + [OUTPUT])
    assert not cell.is_valid and cell.reason == "too many vertices: 8 > 7"


def test_hash_of_the_best_known_style_cell_matches_the_reference():
    matrix = [[0, 1, 1, 1, 0, 1, 0], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 1, 0, 0],
              [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0]]
    ops = [INPUT, CONV3X3, CONV3X3, CONV3X3, CONV3X3, MAXPOOL3X3, OUTPUT]
    cell = Cell(matrix, ops)
    assert cell.hash == fingerprint(cell.matrix, cell.labels)


def test_lookup_hash_equals_the_reference_algorithm_on_random_cells(rng):
    for _ in range(300):
        cell = sample_raw(rng)
        assert cell.hash == fingerprint(cell.matrix, cell.labels)


def test_equality_and_dict_round_trip(rng):
    cell = sample_raw(rng)
    again = Cell.from_dict(cell.to_dict())
    assert again == cell and hash(again) == hash(cell)


# --- isomorphism properties -----------------------------------------------------------------


@st.composite
def valid_cells(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    return sample_raw(np.random.default_rng(seed))


@settings(max_examples=150, deadline=None)
@given(valid_cells(), st.permutations(range(1, 6)))
def test_permuting_interior_vertices_never_changes_the_hash(cell, interior_order):
    matrix = np.array(cell.original_matrix)
    order = [0, *interior_order, 6]
    permuted = np.zeros_like(matrix)
    position = {old: new for new, old in enumerate(order)}
    # relabel vertices; an edge may now point "backwards", so re-sort by a topological order
    edges = [(position[a], position[b]) for a, b in zip(*np.nonzero(matrix))]
    topo = _topological_order(7, edges)
    rank = {v: i for i, v in enumerate(topo)}
    for a, b in edges:
        permuted[rank[a], rank[b]] = 1
    ops = [None] * 7
    for old, new in position.items():
        ops[rank[new]] = cell.original_ops[old]
    assert Cell(permuted, ops).hash == cell.hash


def _topological_order(n, edges):
    indegree = [0] * n
    for _, b in edges:
        indegree[b] += 1
    # input first, output last; ties by label so the permutation is really exercised
    ready = sorted(v for v in range(n) if indegree[v] == 0 and v != n - 1)
    order = []
    while ready:
        v = ready.pop(0)
        order.append(v)
        for a, b in edges:
            if a == v:
                indegree[b] -= 1
                if indegree[b] == 0 and b != n - 1:
                    ready.append(b)
        ready.sort()
    return [*order, n - 1] if n - 1 not in order else order


@settings(max_examples=150, deadline=None)
@given(valid_cells(), st.integers(1, 3), st.data())
def test_adding_extraneous_vertices_never_changes_the_hash(cell, extra, data):
    matrix = np.array(cell.matrix)
    n = len(matrix)
    grown = np.zeros((n + extra, n + extra), dtype=int)
    grown[: n - 1, : n - 1] = matrix[: n - 1, : n - 1]
    grown[: n - 1, -1] = matrix[: n - 1, -1]
    # dangling vertices: fed by the cell but never reaching the output, or the reverse
    for k in range(extra):
        vertex = n - 1 + k
        source = data.draw(st.integers(0, vertex - 1))
        if data.draw(st.booleans()):
            grown[source, vertex] = 1
        else:
            grown[vertex, -1] = 1
    ops = [*cell.ops[:-1], *data.draw(st.lists(st.sampled_from([*OPS, "junk"]), min_size=extra, max_size=extra)), OUTPUT]
    grown_cell = Cell(grown, ops)
    assert grown_cell.hash == cell.hash
    assert grown_cell.matrix == cell.matrix
