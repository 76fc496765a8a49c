"""Surrogate batches at table speed: every finite-space built-in is tabulated, tabulating an
existing artefact equals fitting with ``tabulate=True``, and the vectorised encoders of the
large spaces (DARTS, FBNet) give the per-architecture encoders' rows exactly."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from nasarena.benchmarks.surrogate import load_builtin
from nasarena.io.packaged import data_dir
from nasarena.spaces.darts.genotype import DartsArch
from nasarena.spaces.darts.space import DartsSpace
from nasarena.spaces.fbnet.space import FBNetSpace
from nasarena.surrogates.batch_encoding import MIN_BATCH, batch_encoder
from nasarena.surrogates.builtin import BUILTINS
from nasarena.surrogates.encoding import ArchitectureEncoder
from nasarena.surrogates.prediction import FastEnsemble
from nasarena.surrogates.spaces import finite_index

pytest.importorskip("xgboost")
pytest.importorskip("lightgbm")

TREE_BUILTINS = [name for name, recipe in BUILTINS.items() if recipe.settings.model in ("xgb", "lgb")]
#: float16 keeps 11 significant bits: relative rounding up to 2^-11.
FLOAT16_RELATIVE = 2.0 ** -11


# --- tabulated built-ins -------------------------------------------------------------------------

def test_every_finite_space_builtin_is_tabulated_by_its_recipe():
    for name, recipe in BUILTINS.items():
        assert finite_index(recipe.space) is not None and recipe.settings.tabulate, name


@pytest.mark.parametrize("name", TREE_BUILTINS)
def test_the_shipped_table_is_the_shipped_models_prediction_rounded(name):
    bench = load_builtin(name)
    artifact, table = bench.artifact, bench.artifact.prediction_table
    index = finite_index(artifact.space)
    assert table is not None and table.size == index.size and set(table.mean) == set(artifact.fidelities)
    assert artifact.settings.tabulate
    rows = np.random.default_rng(0).integers(0, index.size, 2_000)
    x = index.encode_rows(rows, artifact.encoding)
    for fidelity in artifact.fidelities:
        mean, std = FastEnsemble(artifact.ensemble(fidelity)).predict(x)
        assert np.array_equal(table.mean[fidelity][rows], mean.astype(np.float32)), fidelity
        np.testing.assert_allclose(table.std[fidelity][rows], std, rtol=FLOAT16_RELATIVE, atol=6e-8)
        answered, spread = bench.predict(rows, fidelity)
        assert np.array_equal(answered, mean.astype(np.float32).astype(np.float64))
        np.testing.assert_array_equal(spread, table.std[fidelity][rows].astype(np.float64))
    seconds = artifact.runtime_model.predict(x, 1)
    np.testing.assert_allclose(table.cost(rows, 1), seconds, rtol=FLOAT16_RELATIVE)
    # the optimum is the table's best row
    top = artifact.prediction_table.mean[artifact.fidelity]
    assert artifact.optimum.value == float(top.max()) and artifact.optimum.identity == index.identity(int(top.argmax()))


def test_the_manifest_records_the_tabulated_files():
    folder = data_dir() / "surrogates"
    manifest = json.loads((folder / "manifest.json").read_text())
    for name in TREE_BUILTINS:
        entry = manifest[name + ".nsa"]
        assert entry["size"] == (folder / (name + ".nsa")).stat().st_size
        assert "tabulated" in entry["provenance"]


def test_tabulating_an_artefact_equals_fitting_it_with_a_table():
    from nasarena.studies.builtin_surrogates import nb201_cifar10_data
    from nasarena.surrogates.fitting import add_prediction_table, fit_surrogate
    from nasarena.surrogates.settings import FitSettings

    data, _ = nb201_cifar10_data()
    small = (("n_estimators", 20), ("learning_rate", 0.3), ("max_depth", 4))
    settings = FitSettings("xgb", 2, 0, model_settings=small)
    plain = fit_surrogate(data, "nb201", "nb201-xgb-v0.1", settings, dataset="cifar10")
    fitted = fit_surrogate(data, "nb201", "nb201-xgb-v0.1", dataclasses.replace(settings, tabulate=True),
                           dataset="cifar10")
    added = add_prediction_table(plain, data)
    assert plain.prediction_table is None and added.settings == fitted.settings
    assert repr(added.validations) == repr(fitted.validations)  # repr: NaN KL divergences compare equal
    assert added.optimum == fitted.optimum
    for fidelity in (12, 200):
        assert np.array_equal(added.prediction_table.mean[fidelity], fitted.prediction_table.mean[fidelity])
        assert np.array_equal(added.prediction_table.std[fidelity], fitted.prediction_table.std[fidelity])
    with pytest.raises(ValueError, match="not on the given data"):
        add_prediction_table(plain, dataclasses.replace(data, sha256="0" * 64))


# --- vectorised encodings of the large spaces ---------------------------------------------------

@pytest.mark.parametrize("space", [DartsSpace(), FBNetSpace()], ids=["darts", "fbnet"])
def test_batch_encoders_give_the_per_architecture_rows(space):
    rng = np.random.default_rng(0)
    archs = [space.sample(rng) for _ in range(1_000)]
    if space.name == "darts":  # the other writing of each node's pair encodes alike
        archs += [DartsArch(*(tuple(e for i in range(0, 8, 2) for e in getattr(a, c)[i:i + 2][::-1])
                              for c in ("normal", "reduce"))) for a in archs[:200]]
    expected = np.stack([space.encode(a, "config_vector") for a in archs])
    batched = batch_encoder(space.name, "config_vector")(archs)
    assert batched.dtype == np.float32 and np.array_equal(batched, expected)
    encoder = ArchitectureEncoder(space, "config_vector")
    assert np.array_equal(encoder.encode_many(archs[:MIN_BATCH]), expected[:MIN_BATCH])
    assert np.array_equal(encoder.encode_many(archs[:3]), expected[:3])  # small batches: one at a time
    assert batch_encoder(space.name, "one_hot") is None
