"""The NAS-Bench-1Shot1 spaces: definitions, architectures, NB101 cells and discretisation."""

from __future__ import annotations

import numpy as np
import pytest

from nasarena.errors import InvalidArchitectureError, UnknownNameError
from nasarena.spaces.nb101 import Cell
from nasarena.spaces.oneshot import ONESHOT_SPACES, OneShotArch, discretize, discretize_arch, oneshot_space

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
