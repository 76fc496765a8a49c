"""Issue 32: NB101 tables drawn from the slice (real accuracies at 4-108 epochs), proxies beside
short training on any space, and the proxies' published correlations beside nasarena's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nasarena
from nasarena.errors import InvalidSettingError
from nasarena.estimators.published import ABDELFATTAH_NB201, published_spearman
from nasarena.studies.estimator_evaluation import compare_with_training
from nasarena.studies.estimator_table import compute_table, plan


def test_a_sample_within_the_slice_draws_slice_cells_only_and_other_restrictions_are_refused():
    slice_ = nasarena.benchmark("nb101-slice")
    drawn = plan("nb101", 40, 0, within="nb101-slice")
    rows = np.array([row for _, row in drawn])
    assert len(set(rows.tolist())) == 40 and np.isin(rows, slice_.positions).all()
    assert plan("nb101", 40, 0, within="nb101-slice") == drawn  # seeded
    with pytest.raises(InvalidSettingError, match="subset of the nb101 space.*holds all of it"):
        plan("nb101", 5, 0, within="nb101-lite")
    with pytest.raises(InvalidSettingError, match="its cells are nb101 cells, the table's are nb201"):
        plan("nb201", 5, 0, within="nb101-slice")
    with pytest.raises(InvalidSettingError, match="choose one"):
        plan("nb201", 5, 0, unique=True, within="nb101-slice")


def test_proxies_stand_beside_training_at_every_lower_fidelity_of_the_slice(tmp_path):
    frame = compute_table("nb101", ["params"], tmp_path / "nb101.parquet", sample=60, seed=1, within="nb101-slice")
    metrics = compare_with_training(frame, "nb101-slice", [5], "nb101").set_index("estimator")
    assert list(metrics.index) == ["params", "train-4ep", "train-12ep", "train-36ep"]
    # the slice's real learning curves: more epochs rank the 108-epoch accuracy better
    assert metrics.loc["train-36ep", "spearman"] > metrics.loc["train-4ep", "spearman"]
    assert metrics.loc["train-36ep", "seconds"] == pytest.approx(3 * metrics.loc["train-12ep", "seconds"], rel=1e-6)
    assert metrics.loc["params", "published_spearman"] != metrics.loc["params", "published_spearman"]  # none: NaN
    with pytest.raises(InvalidSettingError, match="nb201 space, the table over nb101"):
        compare_with_training(frame, "nb201-cifar10", [5], "nb101")


def test_published_values_are_abdelfattahs_and_synflow_on_the_embedded_table_reproduces_its_own():
    from nasarena.estimators import embedded_table
    from nasarena.studies.estimator_evaluation import compare_estimators

    assert published_spearman("synflow", "nb201-cifar10") == 0.737
    assert published_spearman("jacob_cov", "nb201-imagenet16-120") == ABDELFATTAH_NB201["imagenet16-120"]["jacob_cov"]
    assert math.isnan(published_spearman("naswot", "nb201-cifar10")) and math.isnan(published_spearman("zen", "x"))
    metrics = compare_estimators(embedded_table("nb201"), "nb201-cifar10", [10], surrogate=False).set_index("estimator")
    assert metrics.loc["synflow", "published_spearman"] == 0.737
    # the same proxy on a sample of unique cells, against validation instead of test accuracy
    assert metrics.loc["synflow", "spearman"] == pytest.approx(0.737, abs=0.03)
    assert np.isnan(metrics.loc["train-12ep", "published_spearman"])


def test_the_embedded_nb101_table_is_a_seeded_slice_sample_whose_rows_recompute():
    import hashlib

    from nasarena.estimators import compute_proxies, embedded_table
    from nasarena.io.packaged import NB101_PROXIES_FILE, data_dir, read_manifest

    entry = read_manifest()[NB101_PROXIES_FILE]
    assert hashlib.sha256((data_dir() / NB101_PROXIES_FILE).read_bytes()).hexdigest() == entry.sha256
    assert "--within nb101-slice --sample 500 --seed 0" in entry.provenance and "torch" in entry.provenance
    frame = embedded_table("nb101")
    settings = frame.attrs["settings"]
    assert settings["within"] == "nb101-slice" and settings["sample"] == 500 and len(frame) == 500
    assert [text for text, _ in plan("nb101", 500, 0, within="nb101-slice")] == frame["arch"].tolist()
    stored = frame.iloc[int(np.random.default_rng(0).integers(len(frame)))]
    result = compute_proxies("nb101", stored["arch"], settings["proxies"], seed=settings["seed"])
    assert result.values["params"] == stored["params"] and result.values["flops"] == stored["flops"]
    assert result.values["synflow"] == pytest.approx(stored["synflow"], rel=1e-9)
