"""Surrogate fit metrics and stratified splits."""

import numpy as np
import pytest
from scipy import stats

from nasarena.surrogates.metrics import fit_metrics, normal_kl_divergence, r2_score, sparse_kendall_tau
from nasarena.surrogates.splits import leave_one_source_out, stratified_split


def test_perfect_and_constant_predictions():
    true = np.array([0.90, 0.91, 0.93, 0.94])
    perfect = fit_metrics(true, true)
    assert (perfect.r2, perfect.mae, perfect.kendall_tau, perfect.spearman) == (1.0, 0.0, 1.0, 1.0)
    assert r2_score(true, np.full(4, true.mean())) == pytest.approx(0.0)


def test_sparse_kendall_ignores_rank_changes_below_a_tenth_of_a_percent():
    true = np.array([0.9000, 0.9003, 0.9100, 0.9200])
    predicted = np.array([0.9002, 0.9001, 0.9100, 0.9200])  # swaps the first two by 0.01%
    assert stats.kendalltau(true, predicted).statistic < 1.0
    assert sparse_kendall_tau(true, predicted) == pytest.approx(stats.kendalltau(true, [0.900, 0.900, 0.910, 0.920]).statistic)
    assert sparse_kendall_tau(true, predicted) > stats.kendalltau(true, predicted).statistic


def test_kl_divergence_of_normals():
    assert normal_kl_divergence(0.9, 0.01, 0.9, 0.01) == pytest.approx(0.0)
    # KL(N(0,1) || N(1,2)) = log 2 + (1 + 1) / 8 - 1/2
    assert normal_kl_divergence(0, 1, 1, 2) == pytest.approx(np.log(2) + 2 / 8 - 0.5)


def test_stratified_split_keeps_each_source_share():
    sources = np.array(["rs"] * 500 + ["re"] * 300 + ["tpe"] * 200)
    split = stratified_split(sources, np.random.default_rng(0))
    assert len(split.train) == 800 and len(split.validation) == 100 and len(split.test) == 100
    for part in (split.train, split.validation, split.test):
        shares = {s: np.mean(sources[part] == s) for s in ("rs", "re", "tpe")}
        assert shares == pytest.approx({"rs": 0.5, "re": 0.3, "tpe": 0.2})
    assert len(np.unique(np.concatenate([split.train, split.validation, split.test]))) == 1000
    again = stratified_split(sources, np.random.default_rng(0))
    assert np.array_equal(again.test, split.test)


def test_leave_one_source_out():
    sources = np.array(["a", "b", "a", "c"])
    folds = {name: (train.tolist(), test.tolist()) for name, train, test in leave_one_source_out(sources)}
    assert folds == {"a": ([1, 3], [0, 2]), "b": ([0, 2, 3], [1]), "c": ([0, 1, 2], [3])}


def test_artifacts_round_trip_and_refuse_tampering(tmp_path):
    from nasarena.surrogates.artifact import ArtifactError, DataManifest, SurrogateArtifact, load, save
    from nasarena.surrogates.models import Ensemble

    pytest.importorskip("sklearn")
    rng = np.random.default_rng(0)
    x = rng.random((80, 3))
    ensemble = Ensemble("rf", members=2, seed=1, n_estimators=5).fit(x, x[:, 0])
    artifact = SurrogateArtifact("toy-rf-v1.0", "toy", "raw", ensemble, None, DataManifest("0" * 64, 80, ("rs",)))
    path = save(artifact, tmp_path / "toy-rf-v1.0.nsa")
    loaded = load(path)
    assert np.array_equal(loaded.accuracy_model.predict(x)[0], ensemble.predict(x)[0])
    content = bytearray(path.read_bytes())
    content[-10] ^= 1
    path.write_bytes(bytes(content))
    with pytest.raises(ArtifactError, match="modified or is corrupted"):
        load(path)
    with pytest.raises(ArtifactError, match="must look like"):
        SurrogateArtifact("toy", "toy", "raw", ensemble, None, DataManifest("0", 1, ()))
