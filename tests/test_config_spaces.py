"""ConfigSpace encodings of the NB101 and NB201 spaces: names, conditions, round trips, validity rates."""

import math

import numpy as np
import pytest

ConfigSpace = pytest.importorskip("ConfigSpace")

from nasarena.spaces.nb101 import Cell  # noqa: E402
from nasarena.spaces.nb101 import config_space as nb101_config  # noqa: E402
from nasarena.spaces.nb101.space import NB101Space  # noqa: E402
from nasarena.spaces.nb201 import NUM_CELLS, OPS, Cell201, NB201Space  # noqa: E402
from nasarena.spaces.nb201 import config_space as nb201_config  # noqa: E402

NB101 = NB101Space()

# Exact fractions of uniformly sampled configurations that decode to valid NB101 cells, by
# exhaustive enumeration of the upper-triangular 0/1 matrices (valid: the input reaches the
# output, and at most 9 edges remain after pruning). Ops never matter: all three are allowed.
VALID_MATRICES = {2: (1, 2), 3: (5, 8), 4: (47, 64), 5: (840, 1024), 6: (27_142, 32_768), 7: (1_538_083, 2**21)}
# Subsets of N of the 21 edges of a 7-vertex matrix that connect input to output, N = 0..9.
CONNECTED_SUBSETS = (0, 1, 25, 290, 2055, 9880, 34_035, 87_243, 172_010, 267_955)
EXPECTED_VALID_RATE = {
    "categorical": VALID_MATRICES[7][0] / VALID_MATRICES[7][1],  # 21 fair coins
    "variable_size": np.mean([valid / total for valid, total in VALID_MATRICES.values()]),  # n uniform in 2..7
    "continuous": np.mean([count / math.comb(21, n) for n, count in enumerate(CONNECTED_SUBSETS)]),  # N in 0..9
}


def _real_cells(count: int, seed: int) -> list[Cell]:
    """Cells of every size: uniform over the unique cells, plus the original sampler's ones."""
    rng = np.random.default_rng(seed)
    unique, raw = NB101Space(sampler="unique"), NB101Space(sampler="raw")
    cells = [unique.sample(rng) for _ in range(count)] + [raw.sample(rng) for _ in range(count)]
    assert {cell.num_vertices for cell in cells} >= {3, 4, 5, 6, 7}
    return cells


def test_spaces_advertise_their_encodings():
    assert NB101.config_encodings == ("categorical", "variable_size", "continuous")
    assert NB201Space.config_encodings == ("categorical",)
    for space in (NB101, NB201Space()):
        with pytest.raises(ValueError, match="unknown .* config encoding 'path'; available: categorical"):
            space.config_space("path")
        with pytest.raises(ValueError, match="unknown .* config encoding"):
            space.from_config({}, "one_hot")


def test_nb101_categorical_is_the_papers_21_edges_and_5_ops():
    space = NB101.config_space("categorical")
    assert set(space) == {f"edge_{x}_{y}" for y in range(7) for x in range(y)} | {f"op_{i}" for i in range(1, 6)}
    assert not space.conditions
    assert space["edge_2_5"].choices == (0, 1)
    assert space["op_3"].choices == ("conv3x3-bn-relu", "conv1x1-bn-relu", "maxpool3x3")


def test_nb101_categorical_decodes_like_from_categorical(rng):
    """Same edge order as categorical_dims()/from_categorical(), so both encodings agree."""
    dims = NB101.categorical_dims()
    for _ in range(50):
        vector = [int(rng.integers(k)) for k in dims]
        config = dict(zip(nb101_config.EDGE_NAMES, vector[:21]))
        config.update((name, nb101_config.OPS[i]) for name, i in zip(nb101_config.OP_NAMES, vector[21:]))
        decoded, reference = NB101.from_config(config), NB101.from_categorical(vector)
        assert decoded.original_matrix == reference.original_matrix and decoded.original_ops == reference.original_ops


def test_nb101_variable_size_conditions_follow_the_number_of_vertices():
    space = NB101.config_space("variable_size")
    assert space["num_vertices"].lower == 2 and space["num_vertices"].upper == 7
    assert len(space.conditions) == 20 + 5  # every edge but 0->1, every op
    for n in range(2, 8):
        ops = ["input", *["maxpool3x3"] * (n - 2), "output"]
        chain = Cell([[int(y == x + 1) for y in range(n)] for x in range(n)], ops)
        config = ConfigSpace.Configuration(space, values=nb101_config.encode_config(chain, "variable_size"))
        active = space.get_active_hyperparameters(config)
        expected = {"num_vertices"} | {f"edge_{x}_{y}" for y in range(n) for x in range(y)} \
            | {f"op_{i}" for i in range(1, n - 1)}
        assert active == expected


def test_nb101_continuous_is_supplement_s3():
    space = NB101.config_space("continuous")
    assert len(space) == 21 + 1 + 5
    assert (space["num_edges"].lower, space["num_edges"].upper) == (0, 9)
    assert (space["edge_score_0_6"].lower, space["edge_score_0_6"].upper) == (0.0, 1.0)
    config = {name: 0.0 for name in nb101_config.SCORE_NAMES} | {f"op_{i}": "conv1x1-bn-relu" for i in range(1, 6)}
    config |= {"edge_score_0_6": 0.9, "edge_score_0_1": 0.8, "edge_score_1_6": 0.7, "edge_score_2_3": 0.6}
    direct = NB101.from_config(config | {"num_edges": 1}, "continuous")
    assert direct.hash == Cell([[0, 1], [0, 0]], ["input", "output"]).hash
    via_vertex_1 = NB101.from_config(config | {"num_edges": 3}, "continuous")
    assert via_vertex_1.num_vertices == 3 and via_vertex_1.num_edges == 3  # the top-3 edges; 2->3 is unused
    assert via_vertex_1.ops == ("input", "conv1x1-bn-relu", "output")
    assert not NB101.from_config(config | {"num_edges": 0}, "continuous").is_valid


@pytest.mark.parametrize("encoding", NB101Space.config_encodings)
def test_nb101_real_cells_round_trip(encoding):
    """encode -> a legal configuration of the space -> decode gives back the architecture (its hash)."""
    space = NB101.config_space(encoding)
    for cell in _real_cells(150, seed=len(encoding)):
        values = nb101_config.encode_config(cell, encoding)
        configuration = ConfigSpace.Configuration(space, values=values)  # raises if illegal or wrongly active
        assert NB101.from_config(configuration, encoding).hash == cell.hash


@pytest.mark.parametrize("encoding", NB101Space.config_encodings)
def test_nb101_sampled_configurations_are_valid_at_the_exact_rate(encoding):
    space = NB101.config_space(encoding)
    space.seed(7)
    samples = 3000
    valid = np.mean([NB101.from_config(config, encoding).is_valid for config in space.sample_configuration(samples)])
    expected = EXPECTED_VALID_RATE[encoding]
    assert abs(valid - expected) < 4 * math.sqrt(expected * (1 - expected) / samples)


def test_expected_rates_differ_enough_to_tell_the_encodings_apart():
    rates = EXPECTED_VALID_RATE
    assert rates["categorical"] == pytest.approx(0.73342, abs=1e-5)
    assert rates["variable_size"] == pytest.approx(0.70690, abs=1e-5)
    assert rates["continuous"] == pytest.approx(0.43480, abs=1e-5)


def test_config_spaces_are_fresh_and_seeded():
    first, second = NB101.config_space("continuous"), NB101.config_space("continuous")
    assert first is not second
    assert first.sample_configuration(5) == second.sample_configuration(5)


def test_nb101_bad_configurations_name_the_parameter():
    good = nb101_config.encode_config(NB101Space(sampler="unique").sample(np.random.default_rng(0)), "categorical")
    with pytest.raises(KeyError, match="lacks the active parameter 'op_4'"):
        NB101.from_config({k: v for k, v in good.items() if k != "op_4"})
    with pytest.raises(ValueError, match="'op_2' must be one of conv3x3-bn-relu"):
        NB101.from_config(good | {"op_2": "conv5x5"})
    with pytest.raises(ValueError, match="'edge_0_3' must be 0 or 1"):
        NB101.from_config(good | {"edge_0_3": 2})
    with pytest.raises(ValueError, match="'num_vertices' must be a number in"):
        NB101.from_config({"num_vertices": 9}, "variable_size")
    with pytest.raises(ValueError, match="'num_vertices' must be an integer"):
        NB101.from_config({"num_vertices": 4.5}, "variable_size")
    scores = {name: 0.5 for name in nb101_config.SCORE_NAMES}
    with pytest.raises(ValueError, match="'edge_score_1_2' must be a number in \\[0.0, 1.0\\]"):
        NB101.from_config(scores | {"edge_score_1_2": 1.5, "num_edges": 3}, "continuous")
    with pytest.raises(ValueError, match="only valid cells have a configuration"):
        nb101_config.encode_config(Cell([[0, 0], [0, 0]], ["input", "output"]))


def test_nb201_one_categorical_op_per_edge_round_trips_every_cell():
    space = NB201Space()
    config_space = space.config_space()
    assert set(config_space) == {"edge_0_1", "edge_0_2", "edge_0_3", "edge_1_2", "edge_1_3", "edge_2_3"}
    assert all(config_space[name].choices == OPS for name in config_space)
    assert config_space.estimate_size() == NUM_CELLS
    for index in range(0, NUM_CELLS, 7):
        cell = Cell201.from_index(index)
        assert space.from_config(nb201_config.encode_config(cell)) == cell
    cell = Cell201.from_string("|nor_conv_3x3~0|+|skip_connect~0|none~1|+|avg_pool_3x3~0|nor_conv_1x1~1|none~2|")
    assert nb201_config.encode_config(cell)["edge_1_3"] == "nor_conv_1x1"  # node 3's input from node 1
    config_space.seed(3)
    sampled = [space.from_config(config) for config in config_space.sample_configuration(200)]
    assert len({c.to_string() for c in sampled}) > 190  # uniform over 15,625 cells: few repeats
    with pytest.raises(KeyError, match="lacks the parameter 'edge_2_3'"):
        space.from_config({name: "none" for name in nb201_config.EDGE_NAMES[:5]})
    with pytest.raises(ValueError, match="'edge_0_1' must be one of none"):
        space.from_config({name: "conv" for name in nb201_config.EDGE_NAMES})
