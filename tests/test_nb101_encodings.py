"""Encodings: identical for isomorphic cells, and decodable back to the same architecture."""

import numpy as np
import pytest

from nasarena.spaces.nb101 import INPUT, OPS, OUTPUT, Cell
from nasarena.spaces.nb101.encodings import (
    NUM_PATHS,
    adjacency_one_hot,
    continuous,
    from_continuous,
    from_variable_size,
    path_encoding,
    variable_size,
)
from nasarena.spaces.nb101.operations import sample_raw

# the same architecture with interior vertices 1 and 2 swapped
A = Cell([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]], [INPUT, OPS[0], OPS[2], OUTPUT])
B = Cell([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]], [INPUT, OPS[2], OPS[0], OUTPUT])


def test_isomorphic_cells_get_identical_encodings():
    assert A.hash == B.hash
    assert np.array_equal(adjacency_one_hot(A), adjacency_one_hot(B))
    assert np.array_equal(variable_size(A), variable_size(B))
    assert np.array_equal(path_encoding(A), path_encoding(B))


def test_adjacency_one_hot_layout():
    vector = adjacency_one_hot(A)
    assert vector.shape == (36,)
    assert vector[:21].sum() == A.num_edges
    ops = vector[21:].reshape(5, 3)
    assert ops.sum() == 2 and ops[2:].sum() == 0  # two interior ops, slots 3-5 empty


def test_round_trips_preserve_the_architecture(rng):
    for _ in range(100):
        cell = sample_raw(rng)
        v = variable_size(cell)
        assert from_variable_size(int(v[0]), v[1:22], v[22:]).hash == cell.hash
        scores, n, labels = continuous(cell)
        assert n == cell.num_edges
        assert from_continuous(scores, n, labels).hash == cell.hash


def test_continuous_decoding_picks_the_top_n_edges():
    scores = np.zeros(21)
    scores[[0, 2, 15]] = [0.9, 0.8, 0.7]  # edges 0->1, 1->2 and 0->6
    scores[20] = 0.95  # 5->6 is the best but vertex 5 is not fed, so it gets pruned
    cell = from_continuous(scores, 4, [0, 1, 2, 0, 0])
    raw = np.array(cell.original_matrix)
    assert raw.sum() == 4 and raw[0, 1] == raw[1, 2] == raw[0, 6] == raw[5, 6] == 1
    assert cell.is_valid and cell.num_vertices == 2  # 1->2 leads nowhere: only input->output stays
    assert from_continuous(scores, 3, [0] * 5).original_matrix[0][6] == 0  # 0->6 is the 4th best
    with pytest.raises(ValueError, match="N must be in 0..9"):
        from_continuous(scores, 10, [0] * 5)


def test_path_encoding_counts_paths():
    assert NUM_PATHS == 364
    chain = Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[1], OUTPUT])
    encoding = path_encoding(chain)
    assert encoding.sum() == 1 and encoding[1 + 1] == 1  # path (conv1x1,) is index 1 + label
    skip = Cell([[0, 1, 1], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[1], OUTPUT])
    assert path_encoding(skip)[0] == 1 and path_encoding(skip).sum() == 2  # plus the empty path
