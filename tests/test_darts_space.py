"""The DARTS space: size, genotype text, sampling, mutation, neighbourhoods, identities, NB301's
ConfigSpace and the encodings."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from nasarena.optimizers.base import Observation
from nasarena.optimizers.differential_evolution import DifferentialEvolution
from nasarena.optimizers.evolution import RegularizedEvolution
from nasarena.optimizers.local_search import LocalSearch
from nasarena.spaces.darts import (
    CATEGORICAL_DIMS,
    EDGE_SLOTS,
    GRAPH_LABELS,
    OPS,
    SIZE,
    DartsArch,
    DartsSpace,
    cell_size,
    to_categorical,
)

SPACE = DartsSpace()
# The published DARTS (second order) genotype, as printed by the DARTS code's genotypes.py.
DARTS_V2 = ("Genotype(normal=[('sep_conv_3x3', 0), ('sep_conv_3x3', 1), ('sep_conv_3x3', 0), ('sep_conv_3x3', 1), "
            "('sep_conv_3x3', 1), ('skip_connect', 0), ('skip_connect', 0), ('dil_conv_3x3', 2)], "
            "normal_concat=[2, 3, 4, 5], reduce=[('max_pool_3x3', 0), ('max_pool_3x3', 1), ('skip_connect', 2), "
            "('max_pool_3x3', 1), ('max_pool_3x3', 0), ('skip_connect', 2), ('skip_connect', 2), "
            "('max_pool_3x3', 1)], reduce_concat=[2, 3, 4, 5])")
# DARTS-V1 as the DARTS repository's genotypes.py lays it out: one pair a line, range concat.
DARTS_V1_SOURCE = """Genotype(
  normal=[
    ('sep_conv_3x3', 1),
    ('sep_conv_3x3', 0),
    ('skip_connect', 0),
    ('sep_conv_3x3', 1),
    ('skip_connect', 0),
    ('sep_conv_3x3', 1),
    ('sep_conv_3x3', 0),
    ('skip_connect', 2),
  ],
  normal_concat=range(2, 6),
  reduce=[("max_pool_3x3", 0), ("max_pool_3x3", 1), ("skip_connect", 2), ("max_pool_3x3", 0),
          ("max_pool_3x3", 0), ("skip_connect", 2), ("skip_connect", 2), ("avg_pool_3x3", 0)],
  reduce_concat=[2, 3, 4, 5],
)"""
categorical_vectors = st.tuples(*[st.integers(0, size - 1) for size in CATEGORICAL_DIMS])


def swapped(arch: DartsArch, cell_type: str, node: int) -> DartsArch:
    """``arch`` with the written order of one node's two pairs reversed."""
    edges = list(arch.cell(cell_type))
    first = 2 * (node - 2)
    edges[first], edges[first + 1] = edges[first + 1], edges[first]
    return arch.replace_cell(cell_type, edges)


def differences(a: DartsArch, b: DartsArch) -> list[tuple[str, int, tuple, tuple]]:
    return [(cell_type, position, x, y) for cell_type in ("normal", "reduce")
            for position, (x, y) in enumerate(zip(a.cell(cell_type), b.cell(cell_type))) if x != y]


@pytest.fixture(scope="module")
def v2():
    return SPACE.from_text(DARTS_V2)


@pytest.fixture(scope="module")
def config_space():
    return SPACE.config_space()


# --- size ------------------------------------------------------------------------------------


def test_size_is_computed_and_matches_the_paper_order_of_magnitude():
    assert isinstance(SIZE, int) and SPACE.size == SIZE == cell_size() ** 2
    assert cell_size() == 3 * 6 * 10 * 7**8 == 1_037_664_180
    assert 10**18 < SIZE < 1.1 * 10**18


def test_size_equals_the_configspace_count_computed_from_its_conditions(config_space):
    """Count configurations from the ConfigSpace's own parameters and conditions: for every
    choice of the input-pair parameters, the product of the choices of the active edges."""
    children = {}
    for condition in config_space.conditions:
        children.setdefault(condition.parent.name, []).append(condition)
    total = 1
    for cell_type in ("normal", "reduce"):
        parents = [config_space[f"inputs_node_{cell_type}_{n}"] for n in (3, 4, 5)]
        edges = [config_space[name] for name in config_space if name.startswith(f"edge_{cell_type}_")]
        unconditional = [hp for hp in edges if hp.name not in {c.child.name for c in config_space.conditions}]
        count = 0
        for values in itertools.product(*(p.choices for p in parents)):
            active = list(unconditional)
            for parent, value in zip(parents, values):
                active += [c.child for c in children[parent.name] if value in c.values]
            count += math.prod(len(hp.choices) for hp in active)
        assert count == cell_size()
        total *= count
    assert total == SIZE


def test_one_cell_brute_force_distinct_cells_are_unordered_pairs():
    """All writings of one cell with a fixed op (ordered distinct inputs per node: 2*6*12*20)
    collapse to 3*6*10 identities: one per ConfigSpace input-pair assignment."""
    writings = [list(itertools.permutations(range(node), 2)) for node in (2, 3, 4, 5)]
    identities = set()
    count = 0
    for pairs in itertools.product(*writings):
        cell = [("skip_connect", source) for pair in pairs for source in pair]
        identities.add(SPACE.identity(DartsArch(cell, cell)))
        count += 1
    assert count == 2 * 6 * 12 * 20
    assert len(identities) == 3 * 6 * 10 == cell_size() // 7**8


# --- text ------------------------------------------------------------------------------------


def test_darts_v2_text_round_trips_exactly(v2):
    assert SPACE.to_text(v2) == DARTS_V2
    assert v2.normal[4:6] == (("sep_conv_3x3", 1), ("skip_connect", 0))  # written order kept
    assert v2.reduce[2] == ("skip_connect", 2)
    assert SPACE.from_text(SPACE.to_text(v2)) == v2


def test_darts_code_layout_with_range_double_quotes_and_trailing_commas_parses():
    v1 = SPACE.from_text(DARTS_V1_SOURCE)
    assert v1.normal[0] == ("sep_conv_3x3", 1) and v1.reduce[-1] == ("avg_pool_3x3", 0)
    assert SPACE.from_text(SPACE.to_text(v1)) == v1
    assert "normal_concat=[2, 3, 4, 5]" in SPACE.to_text(v1)


def test_fields_in_any_order_parse_to_the_same_architecture(v2):
    reordered = (f"Genotype(reduce_concat=[2,3,4,5], reduce={list(v2.reduce)}, normal_concat=range(2, 6), "
                 f"normal={list(v2.normal)})")
    assert SPACE.from_text(reordered) == v2


@pytest.mark.parametrize("edit, message", [
    (("('dil_conv_3x3', 2)]", "('dil_conv_3x3', 2), ('skip_connect', 3), ('sep_conv_3x3', 4)]"),
     "normal cell: expected 8"),
    (("('sep_conv_3x3', 1), ('skip_connect', 0)", "('sep_conv_7x7', 1), ('skip_connect', 0)"),
     "normal cell, node 4: unknown op 'sep_conv_7x7'"),
    (("('skip_connect', 2), ('max_pool_3x3', 1)", "('skip_connect', 2), ('max_pool_3x3', 3)"),
     "reduce cell, node 3: input 3 is not an earlier"),
    (("('skip_connect', 0), ('dil_conv_3x3', 2)", "('skip_connect', 2), ('dil_conv_3x3', 2)"),
     "normal cell, node 5: both inputs are node 2"),
    (("normal=[('sep_conv_3x3', 0)", "normal=[('none', 0)"), "normal cell, node 2: unknown op 'none'"),
    (("normal_concat=[2, 3, 4, 5]", "normal_concat=[4, 5, 6]"), "normal_concat must be"),
    ((", reduce_concat=[2, 3, 4, 5]", ""), "missing field.*reduce_concat"),
    (("reduce_concat", "reduction_concat"), "unknown field 'reduction_concat'"),
    (("('max_pool_3x3', 1)], reduce_concat", "('max_pool_3x3', 1), reduce_concat"), "expected"),
    (("normal=[('sep_conv_3x3', 0)", "normal=[('sep_conv_3x3', 0, 1)"),
     "normal cell, node 2: expected an \\(op, input"),
    (("Genotype(", "Genotype(normal=[], "), "given twice"),
    (("[2, 3, 4, 5])", "[2, 3, 4, 5]) extra"), "after the closing"),
])
def test_invalid_text_says_what_is_wrong(edit, message):
    old, new = edit
    assert old in DARTS_V2
    with pytest.raises(ValueError, match=message):
        SPACE.from_text(DARTS_V2.replace(old, new, 1))


@pytest.mark.parametrize("text", ["", "Genotype", "__import__('os').system('false')", "Genotype(normal=[('a', 0)",
                                  "Genotype(normal=open('x'))", "{'normal': []}", "Genotype(normal=[1.5])"])
def test_text_that_is_not_a_genotype_is_refused_without_being_run(text):
    with pytest.raises(ValueError, match="genotype text"):
        SPACE.from_text(text)


def test_constructor_and_dict_errors(v2):
    assert DartsArch.from_dict(v2.to_dict()) == v2
    assert v2.to_dict()["normal"][0] == ["sep_conv_3x3", 0]
    with pytest.raises(ValueError, match="missing reduce"):
        DartsArch.from_dict({"normal": v2.to_dict()["normal"]})
    with pytest.raises(ValueError, match="node 3: input must be a node number"):
        DartsArch(v2.normal[:2] + (("skip_connect", "x"),) + v2.normal[3:], v2.reduce)
    with pytest.raises(ValueError, match="unknown cell type"):
        v2.cell("reduction")


# --- sampling, mutation, neighbours ----------------------------------------------------------


def test_sampling_is_seeded_valid_canonical_and_uniform():
    rng = np.random.default_rng(0)
    archs = [SPACE.sample(rng) for _ in range(3000)]
    again = np.random.default_rng(0)
    assert [SPACE.sample(again) for _ in range(20)] == archs[:20]
    assert all(arch == arch.canonical() for arch in archs)
    vectors = np.array([to_categorical(arch) for arch in archs])
    for dim, size in enumerate(CATEGORICAL_DIMS):
        counts = np.bincount(vectors[:, dim], minlength=size)
        assert chisquare(counts).pvalue > 1e-3, (dim, counts)
    assert len({SPACE.identity(arch) for arch in archs}) == len(archs)


def test_mutation_changes_exactly_one_edge_op_or_input():
    rng = np.random.default_rng(1)
    parent = SPACE.from_text(DARTS_V2)
    kinds = Counter()
    for _ in range(600):
        child = SPACE.mutate(parent, rng)
        (diff,) = differences(parent, child)
        cell_type, position, (old_op, old_input), (new_op, new_input) = diff
        assert (old_op == new_op) != (old_input == new_input)
        kinds[cell_type, "op" if old_op != new_op else "input"] += 1
        assert SPACE.identity(child) != SPACE.identity(parent)
        if old_input != new_input:
            assert position >= 2  # node 2's inputs are fixed
        parent = child
    assert set(kinds) == {(c, k) for c in ("normal", "reduce") for k in ("op", "input")}
    assert chisquare(list(kinds.values())).pvalue > 1e-3
    v2 = SPACE.from_text(DARTS_V2)
    assert SPACE.mutate(v2, np.random.default_rng(1)) == SPACE.mutate(v2, np.random.default_rng(1))


def test_neighbours_are_all_120_single_changes_and_contain_every_mutation(v2):
    rng = np.random.default_rng(2)
    for arch in (v2, SPACE.sample(rng), swapped(SPACE.sample(rng), "reduce", 5)):
        neighbours = SPACE.neighbours(arch)
        identities = {SPACE.identity(n) for n in neighbours}
        assert len(neighbours) == len(identities) == 2 * (8 * 6 + 2 * 1 + 2 * 2 + 2 * 3) == 120
        assert SPACE.identity(arch) not in identities
        assert all(len(differences(arch, n)) == 1 for n in neighbours)
        assert {SPACE.identity(SPACE.mutate(arch, rng)) for _ in range(200)} <= identities


# --- identity and canonical form -------------------------------------------------------------


def test_identity_is_invariant_under_swapping_a_nodes_inputs(v2):
    for cell_type, node in itertools.product(("normal", "reduce"), (2, 3, 4, 5)):
        other = swapped(v2, cell_type, node)
        assert other != v2 and other.canonical() == v2.canonical()
        assert SPACE.identity(other) == SPACE.identity(v2)
        assert SPACE.to_config(other) == SPACE.to_config(v2)
        for kind in SPACE.encodings:
            assert np.array_equal(SPACE.encode(other, kind), SPACE.encode(v2, kind))
    assert SPACE.from_text(SPACE.identity(v2)) == v2.canonical()


@settings(max_examples=40, deadline=None)
@given(categorical_vectors, st.lists(st.tuples(st.sampled_from(["normal", "reduce"]), st.integers(2, 5)), max_size=6))
def test_every_representation_round_trips(values, swaps):
    arch = SPACE.from_categorical(values)
    assert to_categorical(arch) == tuple(values)
    written = arch
    for cell_type, node in swaps:
        written = swapped(written, cell_type, node)
    assert SPACE.identity(written) == SPACE.identity(arch)
    assert SPACE.from_text(SPACE.to_text(written)) == written
    assert DartsArch.from_dict(written.to_dict()) == written
    assert SPACE.from_config(SPACE.to_config(written)) == arch
    assert SPACE.from_categorical(to_categorical(written)) == arch


def test_categorical_vector_errors():
    assert SPACE.categorical_dims() == ((7, 7) + (3, 7, 7) + (6, 7, 7) + (10, 7, 7)) * 2
    with pytest.raises(ValueError, match="expected 22"):
        SPACE.from_categorical([0] * 21)
    with pytest.raises(ValueError, match="dimension 8 must be in 0..9"):
        SPACE.from_categorical([0] * 8 + [10] + [0] * 13)


# --- ConfigSpace -----------------------------------------------------------------------------


def test_configspace_is_nb301s(config_space):
    names = list(config_space)
    assert len(names) == 2 * (14 + 3)
    # NB301's configspace.json order: unconditional parameters, then conditional, each sorted
    assert names[:10] == ["edge_normal_0", "edge_normal_1", "edge_reduce_0", "edge_reduce_1",
                          *(f"inputs_node_{c}_{n}" for c in ("normal", "reduce") for n in (3, 4, 5))]
    assert list(config_space["inputs_node_normal_4"].choices) == ["0_1", "0_2", "0_3", "1_2", "1_3", "2_3"]
    assert list(config_space["edge_reduce_13"].choices) == list(OPS)
    conditions = {c.child.name: (c.parent.name, sorted(c.values)) for c in config_space.conditions}
    assert len(conditions) == 2 * 12
    assert conditions["edge_normal_2"] == ("inputs_node_normal_3", ["0_1", "0_2"])
    assert conditions["edge_normal_4"] == ("inputs_node_normal_3", ["0_2", "1_2"])
    assert conditions["edge_reduce_7"] == ("inputs_node_reduce_4", ["0_2", "1_2", "2_3"])
    assert conditions["edge_reduce_13"] == ("inputs_node_reduce_5", ["0_4", "1_4", "2_4", "3_4"])
    assert [EDGE_SLOTS[k] for k in (0, 1, 2, 4, 5, 8, 9, 13)] == [(2, 0), (2, 1), (3, 0), (3, 2), (4, 0), (4, 3),
                                                                  (5, 0), (5, 4)]


def test_sampled_configurations_round_trip_and_vectors_equal_configspaces(config_space):
    from ConfigSpace import Configuration

    config_space.seed(5)
    for config in config_space.sample_configuration(60):
        arch = SPACE.from_config(config)
        assert SPACE.to_config(arch) == {name: str(value) for name, value in dict(config).items()}
        expected = np.nan_to_num(config.get_array(), nan=-1.0)
        assert np.array_equal(SPACE.encode(arch, "config_vector"), expected)
    rng = np.random.default_rng(6)
    for _ in range(30):
        arch = swapped(SPACE.sample(rng), "normal", 4)
        config = Configuration(config_space, values=SPACE.to_config(arch))  # ConfigSpace checks activity
        assert np.array_equal(SPACE.encode(arch, "config_vector"), np.nan_to_num(config.get_array(), nan=-1.0))


def test_from_config_errors_name_the_parameter(v2):
    values = SPACE.to_config(v2)
    assert SPACE.from_config({**values, "edge_normal_13": "skip_connect"}) == v2.canonical()  # inactive: ignored
    with pytest.raises(KeyError, match="unknown parameter.*edge_normal_14"):
        SPACE.from_config({**values, "edge_normal_14": "skip_connect"})
    with pytest.raises(KeyError, match="'edge_normal_11' is missing.*node 5 uses input 2"):
        SPACE.from_config({k: v for k, v in values.items() if k != "edge_normal_11"})
    with pytest.raises(KeyError, match="'inputs_node_reduce_4' is missing"):
        SPACE.from_config({k: v for k, v in values.items() if k != "inputs_node_reduce_4"})
    with pytest.raises(ValueError, match="inputs_node_normal_3 = '0_3'"):
        SPACE.from_config({**values, "inputs_node_normal_3": "0_3"})
    with pytest.raises(ValueError, match="edge_normal_0 = 'conv'"):
        SPACE.from_config({**values, "edge_normal_0": "conv"})
    with pytest.raises(ValueError, match="unknown config encoding 'continuous'"):
        SPACE.config_space("continuous")


# --- encodings -------------------------------------------------------------------------------


def graph_parts(vector):
    n, f = SPACE.graph_size
    return vector[: n * n].reshape(n, n), vector[n * n :].reshape(n, f)


def decode_graph(vector) -> DartsArch:
    """Read the canonical genotype back from a graph encoding: its 14-edge structure is all there."""
    adjacency, features = graph_parts(vector)
    cells = []
    for base in (0, 15):
        edges = []
        for edge_node in range(base + 7, base + 15):
            (source,) = np.flatnonzero(adjacency[:, edge_node])
            (target,) = np.flatnonzero(adjacency[edge_node])
            assert target - base == 2 + (edge_node - base - 7) // 2
            edges.append((GRAPH_LABELS[int(np.argmax(features[edge_node]))], int(source - base)))
        cells.append(edges)
    return DartsArch(*cells)


def test_encodings_shapes_types_and_determinism(v2):
    sizes = {"config_vector": 34, "one_hot": 75 * 2, "adjacency_one_hot": 105 * 2, "graph": 30 * 30 + 30 * 11}
    assert set(SPACE.encodings) == set(sizes) and SPACE.graph_size == (30, 11)
    neighbour = SPACE.neighbours(v2)[0]
    for kind, size in sizes.items():
        vector = SPACE.encode(v2, kind)
        assert vector.shape == (size,) and vector.dtype == np.float32
        assert np.array_equal(vector, SPACE.encode(SPACE.from_text(DARTS_V2), kind))
        assert not np.array_equal(vector, SPACE.encode(neighbour, kind))
    with pytest.raises(ValueError, match="unknown encoding 'path'"):
        SPACE.encode(v2, "path")


def test_one_hot_and_adjacency_one_hot_layouts(v2):
    one_hot = SPACE.encode(v2, "one_hot")
    assert one_hot.sum() == len(CATEGORICAL_DIMS)
    assert np.flatnonzero(one_hot[:14]).tolist() == [3, 7 + 3]  # node 2: sep_conv_3x3 on inputs 0 and 1
    encoding = SPACE.encode(v2, "adjacency_one_hot")
    normal = encoding[:49].reshape(7, 7)
    assert normal.sum() == 8 + 4 and normal[:, 6].tolist() == [0, 0, 1, 1, 1, 1, 0]
    assert normal[:, 5].tolist() == [1, 0, 1, 0, 0, 0, 0]  # node 5 reads nodes 0 and 2
    ops = encoding[49:105].reshape(8, 7)
    assert [OPS[i] for i in ops.argmax(axis=1)] == [op for op, _ in v2.canonical().normal]


def test_graph_follows_fig_15_and_is_injective(v2):
    adjacency, features = graph_parts(SPACE.encode(v2, "graph"))
    assert (features.sum(axis=1) == 1).all()
    assert adjacency.sum() == 2 * (8 + 8 + 4 + 2) + 1
    assert adjacency[6, 6] == 1 and adjacency[21, 21] == 0  # self-loop on the normal output only
    assert adjacency[6, [15, 16]].tolist() == [1, 1] and adjacency[21, [0, 1]].tolist() == [1, 1]
    labels = [GRAPH_LABELS[i] for i in features.argmax(axis=1)]
    assert labels[:7] == ["input_0", "input_1", *["intermediate"] * 4, "output"] == labels[15:22]
    assert decode_graph(SPACE.encode(v2, "graph")) == v2.canonical()
    rng = np.random.default_rng(7)
    for _ in range(20):
        arch = SPACE.sample(rng)
        assert decode_graph(SPACE.encode(arch, "graph")) == arch


# --- the optimizers' interface ---------------------------------------------------------------


def _score(arch: DartsArch) -> float:
    """A synthetic objective: the fraction of separable convolutions."""
    return sum(op.startswith("sep_conv") for cell in (arch.normal, arch.reduce) for op, _ in cell) / 16


@pytest.mark.parametrize("optimizer", [
    lambda: RegularizedEvolution(SPACE, seed=0, population_size=20, tournament_size=5),
    lambda: LocalSearch(SPACE, seed=0),
    lambda: DifferentialEvolution(SPACE, seed=0),
])
def test_optimizers_run_on_the_space(optimizer):
    opt = optimizer()
    scores = []
    for _ in range(150):
        trial = opt.ask()
        assert isinstance(trial.arch, DartsArch)
        scores.append(_score(trial.arch))
        opt.tell(trial, Observation(scores[-1], 1.0))
    assert max(scores) > scores[0]
