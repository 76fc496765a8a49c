"""Spaces own their knowledge (issue 30, point 3): the optional capabilities a space declares
(:mod:`nasarena.spaces.protocol`) and the modules that dispatch through them instead of
comparing space names: ``build_network``, the live benchmark's space, the surrogates' index."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from nasarena.errors import UnknownNameError
from nasarena.spaces.protocol import resolve
from nasarena.spaces.registry import SPACES, space, spaces_with
from nasarena.surrogates.spaces import finite_index


def test_the_trainable_and_the_whole_table_spaces_are_the_ones_that_declare_it():
    assert spaces_with("network") == ["nb101", "nb201", "darts"]
    assert spaces_with("encode_rows") == ["nb101", "nb201"]
    for name in spaces_with("network"):
        declared = SPACES[name]
        assert declared.network.count(":") == 1 and declared.network.startswith("nasarena.training.networks.")
        assert list(declared.network_scale) and isinstance(declared.architecture, type)


def test_a_space_that_cannot_be_trained_is_the_same_unknown_name_error():
    for name in ("fbnet", "nb1shot1-2", "nb301"):
        with pytest.raises(UnknownNameError, match=r"unknown space for training .*\(available: darts, nb101, nb201\)"):
            space(name, needs="network")
    assert space("fbnet").name == "fbnet"  # without needs: every space
    with pytest.raises(UnknownNameError, match="unknown search space 'nb301'"):
        space("nb301")


def test_spaces_import_neither_torch_nor_the_layers_above_them():
    code = ("import sys\nfrom nasarena.spaces.registry import SPACES, spaces_with\n"
            "spaces_with('network'); [SPACES[n] for n in SPACES]\n"
            "bad = sorted(m for m in sys.modules if m == 'torch' or m.startswith(('nasarena.training', "
            "'nasarena.surrogates', 'nasarena.benchmarks')))\nprint(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_network_capability_resolves_to_the_training_networks():
    pytest.importorskip("torch")
    from nasarena.training.networks.build import SPACES as SCALES
    from nasarena.training.networks.nb201 import NB201Network

    assert resolve(SPACES["nb201"].network) is NB201Network
    assert SCALES == {"nb101": {"stem_channels": 128, "stacks": 3, "cells_per_stack": 3, "num_classes": 10},
                      "nb201": {"channels": 16, "cells_per_stage": 5, "num_classes": 10},
                      "darts": {"channels": 36, "layers": 20, "auxiliary": True, "num_classes": 10}}


def test_build_network_errors_are_unchanged():
    pytest.importorskip("torch")
    from nasarena.errors import InvalidArchitectureError, InvalidSettingError
    from nasarena.spaces.nb101 import Cell
    from nasarena.training.networks.build import build_network

    with pytest.raises(UnknownNameError, match="unknown space for training 'fbnet'"):
        build_network("fbnet", "x")
    with pytest.raises(InvalidSettingError, match=r"darts scale knob layers=2 must be >= 3 \(two of them are reduction cells\)"):
        build_network("darts", "x", layers=2)
    with pytest.raises(InvalidSettingError, match="darts scale knob auxiliary=1 must be True or False"):
        build_network("darts", "x", auxiliary=1)
    with pytest.raises(InvalidSettingError, match="nb201 scale knob channels=0 must be a whole number >= 1"):
        build_network("nb201", "x", channels=0)
    with pytest.raises(InvalidSettingError, match="unknown scale knob 'layers' for space 'nb201'; accepted: channels, "
                                                  "cells_per_stage, num_classes"):
        build_network("nb201", "x", layers=3)
    with pytest.raises(InvalidArchitectureError, match="a nb201 architecture is a Cell201 or its text form, got int"):
        build_network("nb201", 3)
    invalid = Cell(np.zeros((2, 2), dtype=int), ["input", "output"])
    with pytest.raises(InvalidArchitectureError, match=r"the NB101 cell is outside the space \(.+\); it has no network"):
        build_network("nb101", invalid, stem_channels=4, stacks=1, cells_per_stack=1)


def test_the_finite_index_encodes_numbers_and_names_rows_as_the_space_does():
    rng = np.random.default_rng(1)
    nb101 = finite_index("nb101")
    rows = rng.integers(0, nb101.size, 40)
    cells = [nb101.architecture(r) for r in rows]
    space101 = space("nb101")
    assert [nb101.row(c) for c in cells] == rows.tolist()
    assert list(nb101.identities(rows)) == [c.hash for c in cells]
    for kind in space101.encodings:
        expected = np.stack([space101.encode(c, kind) for c in cells]).astype(np.float32)
        assert np.array_equal(nb101.encode_rows(rows, kind), expected), kind
    nb201 = finite_index("nb201")
    rows = rng.integers(0, nb201.size, 40)
    assert [nb201.row(nb201.architecture(r)) for r in rows] == rows.tolist()
    assert nb201.identity(int(rows[0])) == nb201.architecture(rows[0]).to_string()
    for kind in space("nb201").encodings:
        expected = np.stack([space("nb201").encode(nb201.architecture(r), kind) for r in rows]).astype(np.float32)
        assert np.array_equal(nb201.encode_rows(rows, kind), expected), kind
    assert finite_index("darts") is None and finite_index("fbnet") is None and finite_index("nope") is None
    with pytest.raises(ValueError, match="NB201 index must be in 0..15624"):
        nb201.architecture(15_625)
    invalid = space101.from_categorical([0] * 21 + [0] * 5)
    with pytest.raises(ValueError, match="invalid NB101 cell has no row: "):
        nb101.row(invalid)


def test_a_subset_space_encodes_its_own_positions():
    subset = np.array([5, 17, 4_000, 300_000])
    nb101 = space("nb101").__class__(subset=subset)
    whole = space("nb101")
    assert np.array_equal(nb101.encode_rows([1, 3], "adjacency_one_hot"), whole.encode_rows([17, 300_000], "adjacency_one_hot"))
    assert list(nb101.identities([0, 2])) == list(whole.identities([5, 4_000]))
    assert nb101.at_row(2).hash == whole.at_row(4_000).hash


def test_the_one_shot_optimizers_are_one_table():
    from nasarena.oneshot.names import OPTIMIZERS, SEARCHES, check_optimizer

    assert list(SEARCHES) == list(OPTIMIZERS) == ["darts", "darts-2nd", "gdas", "pc-darts", "random-ws", "enas"]
    assert all(SEARCHES.target(name).startswith("nasarena.oneshot.optimizers:") for name in SEARCHES)
    with pytest.raises(UnknownNameError, match="unknown one-shot optimizer 'dart'; did you mean darts"):
        check_optimizer("dart")
    pytest.importorskip("torch")
    from nasarena.oneshot.optimizers import search_class

    assert all(search_class(name).name == name for name in OPTIMIZERS)
    with pytest.raises(UnknownNameError, match=r"unknown one-shot optimizer 'dart'; did you mean darts.*\(available: "
                                                r"darts, darts-2nd, enas, gdas, pc-darts, random-ws\)"):
        search_class("dart")


def test_exact_parameters_come_from_the_space():
    from nasarena.io.packaged import LITE_FILE, load_arrays
    from nasarena.spaces.nb201 import trainable_parameters
    from nasarena.surrogates.spaces import exact_parameters

    assert exact_parameters("darts", None) is None and exact_parameters("nope", None) is None
    cell = finite_index("nb101").architecture(1234)
    assert exact_parameters("nb101", None)(cell) == load_arrays(LITE_FILE)["trainable_parameters"].item(1234)
    cell = finite_index("nb201").architecture(77)
    assert exact_parameters("nb201", None)(cell) == trainable_parameters(cell, "cifar10")
    assert exact_parameters("nb201", "cifar100")(cell) == trainable_parameters(cell, "cifar100")


def test_the_study_the_comparison_the_deduplication_and_json_cells_are_declared_by_their_spaces():
    assert spaces_with("dataset_study") == ["nb101", "nb201"]  # nasarena analyze on a table
    assert spaces_with("estimator_comparison") == ["nb201"]  # nasarena estimators evaluate beyond the proxies
    assert spaces_with("representatives") == ["nb201"]  # nasarena estimators compute --unique
    # nasarena query with a JSON cell: NB101's {"matrix", "ops"}, NAS-Bench-Graph's {"links", "ops"}
    assert spaces_with("from_mapping") == ["nb101", "nbgraph", "nbgraph-proteins"]
    for capability in ("dataset_study", "estimator_comparison"):
        for name in spaces_with(capability):
            assert callable(resolve(getattr(SPACES[name], capability)))
    representatives = space("nb201").representatives()
    assert len(np.unique(representatives)) == 6_466 and (representatives <= np.arange(len(representatives))).all()
    cell = space("nb101").from_mapping({"matrix": [[0, 1], [0, 0]], "ops": ["input", "output"]})
    assert cell.ops == ("input", "output") and cell.hash is not None
    with pytest.raises(ValueError, match="no 'ops' key"):
        space("nb101").from_mapping({"matrix": [[0, 1], [0, 0]]})
