"""The vectorised batch hash agrees with the per-cell path, valid and invalid cells alike."""

import numpy as np
import pytest

from nasarena.spaces.nb101 import INPUT, OPS, OUTPUT, Cell, hash_cells


def _random_raw_cells(rng, count, size=7):
    matrices = np.triu(rng.integers(0, 2, size=(count, size, size)), 1)
    names = np.array([*OPS, "bogus"])
    ops = names[rng.choice(4, size=(count, size), p=[0.32, 0.32, 0.32, 0.04])]
    ops[:, 0], ops[:, -1] = INPUT, OUTPUT
    return matrices, ops


def test_batch_equals_per_cell_on_random_raw_cells(rng):
    matrices, ops = _random_raw_cells(rng, 3000)
    batch = hash_cells(matrices, ops)
    for i in range(len(matrices)):
        cell = Cell(matrices[i], ops[i])
        assert batch.valid[i] == cell.is_valid
        assert batch.hashes[i] == (cell.hash or "")
    assert 0.2 < batch.valid.mean() < 0.9


def test_batch_handles_smaller_cells_and_bad_ends(rng):
    matrices, ops = _random_raw_cells(rng, 500, size=5)
    ops[:50, 0] = OPS[0]
    batch = hash_cells(matrices, ops)
    assert not batch.valid[:50].any()
    for i in range(50, 500):
        assert batch.hashes[i] == (Cell(matrices[i], ops[i]).hash or "")


def test_batch_rejects_malformed_input_naming_the_cell():
    matrices = np.zeros((3, 3, 3), dtype=int)
    matrices[2, 1, 0] = 1
    ops = np.array([[INPUT, OPS[0], OUTPUT]] * 3)
    with pytest.raises(ValueError, match="cell 2: matrix must be strictly upper-triangular"):
        hash_cells(matrices, ops)
    with pytest.raises(ValueError, match=r"ops must have shape \(3, 3\)"):
        hash_cells(np.zeros((3, 3, 3), dtype=int), ops[:2])
