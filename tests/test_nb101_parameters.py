"""Trainable parameters against the real values of all 30,001 cells of the shared slices."""

import numpy as np

from nasarena.spaces.nb101 import CONV1X1, CONV3X3, INPUT, MAXPOOL3X3, OUTPUT, Cell, unique_cells
from nasarena.spaces.nb101.parameters import trainable_parameters, vertex_channels


def test_every_real_cell_has_its_real_parameter_count(nb101_slices):
    table = unique_cells()
    mismatches = []
    for start, columns in nb101_slices:
        for offset, expected in enumerate(columns["trainable_parameters"]):
            got = trainable_parameters(table.cell(start + offset))
            if got != expected:
                mismatches.append((start + offset, got, expected))
    assert mismatches == []
    assert sum(len(c["trainable_parameters"]) for _, c in nb101_slices) == 30_001


def test_vertex_channels_split_the_output_and_propagate_backwards():
    # 0 -> 1 -> 2 -> 4, 0 -> 3 -> 4: vertices 2 and 3 feed the output, 1 takes max of its successor
    matrix = np.zeros((5, 5), dtype=int)
    matrix[0, 1] = matrix[1, 2] = matrix[2, 4] = matrix[0, 3] = matrix[3, 4] = 1
    assert vertex_channels(128, 257, matrix) == [128, 129, 129, 128, 257]


def test_two_vertex_cell_is_a_projection_per_module():
    cell = Cell([[0, 1], [0, 0]], [INPUT, OUTPUT])
    stem = 27 * 128 + 256
    modules = (128 * 128 + 256) * 3 + (128 * 256 + 512) + (256 * 256 + 512) * 2 + (256 * 512 + 1024) + (512 * 512 + 1024) * 2
    assert trainable_parameters(cell) == stem + modules + 512 * 10 + 10


def test_maxpool_has_no_parameters_but_its_input_projection_does():
    pool = Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, MAXPOOL3X3, OUTPUT])
    conv = Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, CONV1X1, OUTPUT])
    three = Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, CONV3X3, OUTPUT])
    # one module at constant width C adds C*C + 2C (1x1) or 9C*C + 2C (3x3) over max-pool
    widths = [128] * 3 + [256] * 3 + [512] * 3
    assert trainable_parameters(conv) - trainable_parameters(pool) == sum(c * c + 2 * c for c in widths)
    assert trainable_parameters(three) - trainable_parameters(pool) == sum(9 * c * c + 2 * c for c in widths)
