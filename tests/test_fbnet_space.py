"""The FBNet space: size, text form, sampling, mutation, neighbourhoods, ConfigSpace and encodings."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from nasarena.optimizers.base import Observation
from nasarena.optimizers.evolution import RegularizedEvolution
from nasarena.spaces.fbnet import BLOCKS, GRAPH_LABELS, NUM_LAYERS, FBNetArch, FBNetSpace

SPACE = FBNetSpace()
# FBNet-A (Wu et al. 2019) as FBNet's model definitions list its 22 searched layers, their
# shuffle blocks ``ir_k3_s2`` / ``ir_k5_s2`` (expansion 1, grouped 1x1 convs) written k*_e1_g2.
FBNET_A = ("skip,k3_e3,k3_e1,skip,skip,k5_e6,k3_e3,k5_e1,k3_e3,k5_e6,k5_e3,k5_e1_g2,k5_e6,k3_e6,k5_e1_g2,k5_e1,"
           "k3_e1_g2,k5_e6,k5_e6,k5_e3,k5_e6,k5_e6")
block_lists = st.lists(st.sampled_from(BLOCKS), min_size=NUM_LAYERS, max_size=NUM_LAYERS)


@pytest.fixture(scope="module")
def arch():
    return SPACE.from_text(FBNET_A)


def test_size_and_vocabulary():
    assert SPACE.size == 9**22 and isinstance(SPACE.size, int)
    assert BLOCKS == ("k3_e1", "k3_e1_g2", "k3_e3", "k3_e6", "k5_e1", "k5_e1_g2", "k5_e3", "k5_e6", "skip")
    assert SPACE.categorical_dims() == (9,) * 22


def test_text_round_trips_and_tolerates_spaces(arch):
    assert SPACE.to_text(arch) == FBNET_A and str(arch) == FBNET_A
    assert SPACE.from_text(" , ".join(FBNET_A.split(","))) == arch
    assert arch.blocks[4] == "skip" and arch.blocks[16] == "k3_e1_g2" and len(arch.blocks) == 22
    assert FBNetArch.from_dict(arch.to_dict()) == arch and arch.to_dict()["blocks"][1] == "k3_e3"


@pytest.mark.parametrize("text, message", [
    (FBNET_A.rsplit(",", 1)[0], "expected 22 comma-separated block names, got 21"),
    (FBNET_A + ",skip", "got 23"),
    (FBNET_A.replace("k3_e6", "k7_e6"), "layer 13: unknown block 'k7_e6'"),
    (FBNET_A.replace("skip", "", 1), "layer 0: unknown block ''"),
    (FBNET_A.replace(",skip,", ";skip,"), "got 21"),
])
def test_invalid_text_names_the_layer(text, message):
    with pytest.raises(ValueError, match=message):
        SPACE.from_text(text)


def test_constructor_errors():
    with pytest.raises(ValueError, match="22 searchable layers"):
        FBNetArch(("skip",) * 21)
    with pytest.raises(ValueError, match="22 searchable layers"):
        FBNetArch("skip")
    with pytest.raises(ValueError, match="layer 3: block index must be in 0..8, got 9"):
        SPACE.from_categorical([0, 0, 0, 9] + [0] * 18)
    with pytest.raises(ValueError, match="needs a 'blocks' list"):
        FBNetArch.from_dict({"ops": []})


def test_sampling_is_seeded_and_uniform():
    rng = np.random.default_rng(0)
    archs = [SPACE.sample(rng) for _ in range(2000)]
    assert [SPACE.sample(np.random.default_rng(0)) for _ in range(1)] == archs[:1]
    counts = Counter(block for a in archs for block in a.blocks)
    assert chisquare([counts[b] for b in BLOCKS]).pvalue > 1e-3
    per_layer = np.array([a.block_indices for a in archs])
    for layer in range(NUM_LAYERS):
        assert chisquare(np.bincount(per_layer[:, layer], minlength=9)).pvalue > 1e-4


def test_mutation_changes_exactly_one_layer(arch):
    rng = np.random.default_rng(1)
    layers = Counter()
    parent = arch
    for _ in range(1000):
        child = SPACE.mutate(parent, rng)
        (changed,) = [i for i, (a, b) in enumerate(zip(parent.blocks, child.blocks)) if a != b]
        layers[changed] += 1
        parent = child
    assert len(layers) == NUM_LAYERS and chisquare(list(layers.values())).pvalue > 1e-3
    assert SPACE.mutate(arch, np.random.default_rng(2)) == SPACE.mutate(arch, np.random.default_rng(2))


def test_neighbours_are_the_176_single_changes(arch):
    neighbours = SPACE.neighbours(arch)
    identities = {SPACE.identity(n) for n in neighbours}
    assert len(neighbours) == len(identities) == 22 * 8
    assert SPACE.identity(arch) not in identities
    assert all(sum(a != b for a, b in zip(arch.blocks, n.blocks)) == 1 for n in neighbours)
    rng = np.random.default_rng(3)
    assert {SPACE.identity(SPACE.mutate(arch, rng)) for _ in range(300)} <= identities


def test_configspace_round_trips_and_vectors_equal_configspaces():
    cs = SPACE.config_space()
    assert sorted(cs) == sorted(f"op_{i}" for i in range(22)) and not cs.conditions
    assert list(cs["op_7"].choices) == list(BLOCKS)
    cs.seed(4)
    for config in cs.sample_configuration(50):
        arch = SPACE.from_config(config)
        assert SPACE.to_config(arch) == {k: str(v) for k, v in dict(config).items()}
        assert np.array_equal(SPACE.encode(arch, "config_vector"), config.get_array())
    with pytest.raises(KeyError, match="missing parameter.*op_21"):
        SPACE.from_config({f"op_{i}": "skip" for i in range(21)})
    with pytest.raises(KeyError, match="unknown parameter.*op_22"):
        SPACE.from_config({f"op_{i}": "skip" for i in range(23)})
    with pytest.raises(ValueError, match="layer 0: unknown block 'conv'"):
        SPACE.from_config({"op_0": "conv", **{f"op_{i}": "skip" for i in range(1, 22)}})
    with pytest.raises(ValueError, match="unknown config encoding"):
        SPACE.from_config({}, "variable_size")


@settings(max_examples=40, deadline=None)
@given(block_lists)
def test_every_representation_round_trips(blocks):
    arch = FBNetArch(tuple(blocks))
    assert SPACE.from_text(SPACE.to_text(arch)) == arch
    assert SPACE.from_config(SPACE.to_config(arch)) == arch
    assert SPACE.from_categorical(arch.block_indices) == arch
    one_hot = SPACE.encode(arch, "one_hot").reshape(NUM_LAYERS, len(BLOCKS))
    assert [BLOCKS[i] for i in one_hot.argmax(axis=1)] == blocks


def test_encodings_shapes_determinism_and_graph_layout(arch):
    sizes = {"config_vector": 22, "one_hot": 22 * 9, "graph": 24 * 24 + 24 * 11}
    assert set(SPACE.encodings) == set(sizes) and SPACE.graph_size == (24, 11)
    neighbour = SPACE.neighbours(arch)[-1]
    for kind, size in sizes.items():
        vector = SPACE.encode(arch, kind)
        assert vector.shape == (size,) and vector.dtype == np.float32
        assert np.array_equal(vector, SPACE.encode(SPACE.from_text(FBNET_A), kind))
        assert not np.array_equal(vector, SPACE.encode(neighbour, kind))
    graph = SPACE.encode(arch, "graph")
    adjacency, features = graph[: 24 * 24].reshape(24, 24), graph[24 * 24 :].reshape(24, 11)
    assert np.array_equal(adjacency, np.eye(24, k=1))  # input -> layer 0 -> ... -> layer 21 -> output
    labels = [GRAPH_LABELS[i] for i in features.argmax(axis=1)]
    assert labels == ["input", *arch.blocks, "output"] and (features.sum(axis=1) == 1).all()
    with pytest.raises(ValueError, match="unknown encoding 'path'"):
        SPACE.encode(arch, "path")


def test_regularized_evolution_runs_on_the_space():
    optimizer = RegularizedEvolution(SPACE, seed=0, population_size=20, tournament_size=5)
    scores = []
    for _ in range(200):
        trial = optimizer.ask()
        scores.append(sum(block == "k5_e6" for block in trial.arch.blocks) / NUM_LAYERS)
        optimizer.tell(trial, Observation(scores[-1], 1.0))
    assert max(scores[100:]) > max(scores[:20])
