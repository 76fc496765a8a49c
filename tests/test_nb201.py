"""The NAS-Bench-201 space and its embedded benchmarks against the shared real files."""

import itertools
import json
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

import nasarena
from nasarena.spaces.nb201 import NUM_CELLS, OPS, Cell201, NB201Space, cell_at, flops, index_of, trainable_parameters
from nasarena.spaces.nb201.space import path_encoding

from conftest import SHARED_DATA

NB201 = SHARED_DATA / "nb201"
BEST_KNOWN = "|nor_conv_3x3~0|+|nor_conv_3x3~0|avg_pool_3x3~1|+|skip_connect~0|nor_conv_3x3~1|skip_connect~2|"


@pytest.fixture(scope="module")
def archs():
    path = NB201 / "nb201-arch-strings.json"
    if not path.exists():
        pytest.skip("real data not available")
    return json.loads(path.read_text())["archs"]


def test_index_order_and_strings_match_the_benchmark(archs):
    assert len(archs) == NUM_CELLS == 15_625
    for index in range(0, NUM_CELLS, 97):
        cell = Cell201.from_string(archs[index])
        assert cell.to_string() == archs[index] and index_of(cell) == index and cell_at(index) == cell


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("|none~0|+|none~0|none~1|", "expected 3 node groups"),
        ("|none~0|+|none~0|+|none~0|none~1|none~2|", "node 2 needs 2 inputs"),
        ("|none~1|+|none~0|none~1|+|none~0|none~1|none~2|", "node 1 input 0 is written 'none~1'"),
        ("|conv~0|+|none~0|none~1|+|none~0|none~1|none~2|", "edge 0->1: unknown op 'conv'"),
    ],
)
def test_malformed_cell_strings_say_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        Cell201.from_string(text)


def test_parameter_counts_equal_the_real_values(archs):
    frame = pd.read_csv(NB201 / "nb201-cifar10-200epochs.csv")
    real = frame["params_millions"].to_numpy() * 1e6
    ours = np.array([trainable_parameters(Cell201.from_string(s)) for s in archs])
    exact = np.abs(ours - real) < 0.5
    assert exact.sum() >= 15_421
    # every other entry of the file is not a parameter count of that cell: the file gives
    # different values to cells with the same multiset of ops (which fixes the count)
    by_ops = defaultdict(set)
    for s, value in zip(archs, real):
        by_ops[tuple(sorted(Cell201.from_string(s).ops))].add(round(value, 3))
    for index in np.flatnonzero(~exact):
        key = tuple(sorted(Cell201.from_string(archs[index]).ops))
        assert len(by_ops[key]) > 1 or abs(real[index] - round(real[index])) > 1e-3


def test_flops_of_a_hand_computed_cell():
    empty = Cell201(("none",) * 6)
    stem, pool_free = 27 * 16 * 32 * 32, (9 * 16 * 32 + 9 * 32 * 32 + 16 * 32) * 16 * 16
    second = (9 * 32 * 64 + 9 * 64 * 64 + 32 * 64) * 8 * 8
    assert flops(empty) == stem + pool_free + second + 64 * 10
    one_conv = Cell201(("nor_conv_1x1",) + ("none",) * 5)
    assert flops(one_conv) - flops(empty) == 5 * (16 * 16 * 32 * 32 + 32 * 32 * 16 * 16 + 64 * 64 * 8 * 8)
    assert flops(empty, "imagenet16-120") < flops(empty, "cifar10")


def test_canonical_deduplication_gives_the_papers_6466_architectures():
    cells = [Cell201(ops) for ops in itertools.product(OPS, repeat=6)]
    assert len({c.canonical_form() for c in cells}) == 6466
    assert len({c.canonical_form(algebraic=True) for c in cells}) == 4930  # full algebra merges more
    # node 2 never reaches the output in either cell: both compute conv1x1(x)
    a = Cell201(("skip_connect", "nor_conv_3x3", "none", "none", "nor_conv_1x1", "none"))
    b = Cell201(("skip_connect", "none", "nor_conv_3x3", "none", "nor_conv_1x1", "none"))
    assert a.canonical_form() == b.canonical_form()
    swapped = Cell201(("nor_conv_1x1", "nor_conv_3x3", "none", "nor_conv_3x3", "none", "skip_connect"))
    same = Cell201(("nor_conv_3x3", "nor_conv_1x1", "none", "nor_conv_1x1", "none", "skip_connect"))
    assert swapped.canonical_form() != same.canonical_form()


def test_skip_edges_are_inlined_in_the_canonical_form():
    a = Cell201(("skip_connect", "nor_conv_3x3", "none", "none", "none", "nor_conv_1x1"))
    b = Cell201(("skip_connect", "none", "nor_conv_3x3", "none", "none", "nor_conv_1x1"))
    assert a.canonical_form() == b.canonical_form()  # node 1 is x, so conv(node 0) == conv(node 1)


def test_mutation_neighbours_and_encodings():
    space = NB201Space()
    cell = Cell201.from_string(BEST_KNOWN)
    neighbours = space.neighbours(cell)
    assert len(neighbours) == 24 and len(set(neighbours)) == 24
    assert all(sum(a != b for a, b in zip(n.ops, cell.ops)) == 1 for n in neighbours)
    rng = np.random.default_rng(0)
    children = [space.mutate(cell, rng) for _ in range(50)]
    assert all(c in neighbours for c in children)
    assert [space.mutate(cell, np.random.default_rng(3)) for _ in range(2)] == [space.mutate(cell, np.random.default_rng(3))] * 2
    assert space.encode(cell).sum() == 6 and len(space.encode(cell)) == 30
    # paths 0->3 (skip), 0->1->3 (conv3, conv3), 0->2->3 (conv3, skip), 0->1->2->3 (conv3, pool, skip)
    assert path_encoding(cell).sum() == 4 and len(path_encoding(cell)) == 84
    assert space.from_categorical(cell.op_indices) == cell


def test_benchmarks_answer_with_the_real_values(archs):
    c10 = pd.read_csv(NB201 / "nb201-cifar10-200epochs.csv")
    short = pd.read_csv(NB201 / "nb201-12epochs.csv")
    bench = nasarena.benchmark("nb201-cifar10")
    for index in (0, 1, 777, 15_624):
        cell = Cell201.from_string(archs[index])
        final = bench.query(cell)
        assert final.valid_accuracy == pytest.approx(c10["valid_top1"][index] / 100, abs=1e-6)
        assert final.test_accuracy == pytest.approx(c10["test_top1"][index] / 100, abs=1e-6)
        early = bench.query(cell, fidelity=12)
        assert early.test_accuracy == pytest.approx(short["cifar10-test"][index] / 100, abs=1e-6)
        assert final.modelled == {"cost_seconds"} and final.cost_seconds > early.cost_seconds > 0
    assert bench.optimum() == pytest.approx(c10["test_top1"].max() / 100, abs=1e-6)
    c100 = nasarena.benchmark("nb201-cifar100")
    assert np.isnan(c100.query(0).test_accuracy) and "validation accuracy" in c100.describe().modelled
    assert c100.query(0, fidelity=12).test_accuracy == pytest.approx(short["cifar100-test"][0] / 100, abs=1e-6)
