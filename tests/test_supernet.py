"""Supernet evaluation metrics on hand-made cases, the paper's toy example, and the GDAS data."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from conftest import SHARED_DATA
from nasarena.analysis.supernet import (
    IndependentSoftmaxSampler,
    SupernetScores,
    cluster_architectures,
    cluster_summary,
    correlations,
    cumulative_sampling_probability,
    evaluate_checkpoints,
    id_rate,
    id_rate_curve,
    random_baseline,
    read_scores,
    regret_thresholds_to_k,
    sampling_probabilities,
)
from nasarena.cli.main import app


def test_id_rate_by_hand():
    true = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    supernet = np.array([0.1, 0.5, 0.4, 0.3, 0.2])  # misses the best, then ranks 2-5 correctly
    assert id_rate(true, supernet, [1, 2, 3, 5]).tolist() == pytest.approx([0.0, 0.5, 2 / 3, 1.0])
    assert id_rate_curve(true, supernet).tolist() == pytest.approx([0.0, 0.5, 2 / 3, 0.75, 1.0])


def test_ties_at_the_cut_count_as_expected_overlap():
    true = np.array([0.9, 0.8, 0.7, 0.6])
    supernet = np.array([0.5, 0.5, 0.5, 0.1])  # three-way tie for two places
    # the true top 2 are each in V_2 with probability 2/3: expected overlap 4/3 of 2
    assert id_rate(true, supernet, [2])[0] == pytest.approx(2 / 3)
    assert id_rate(true, supernet, [2], ties="index")[0] == 1.0  # index order happens to favour them
    assert id_rate(true, supernet[::-1].copy()[::-1], [2])[0] == id_rate(true, supernet, [2])[0]


def test_the_papers_toy_example():
    n = 15_625
    true = np.arange(n, 0, -1, dtype=float)  # architecture 0 is the best
    estimate = np.concatenate([true[:625], true[625:][::-1]])  # top 625 right, the rest reversed
    assert np.all(id_rate(true, estimate, [1, 10, 100, 625]) == 1.0)
    spearman, kendall = correlations(true, estimate)
    assert spearman == pytest.approx(-0.7695, abs=1e-4) and kendall == pytest.approx(-0.8432, abs=1e-4)
    assert np.all(id_rate_curve(true, estimate)[:625] == 1.0)


def test_random_baseline_is_the_exact_expectation():
    n, k = 200, 20
    rng = np.random.default_rng(0)
    true = rng.random(n)
    simulated = np.mean([id_rate(true, rng.random(n), [k])[0] for _ in range(3000)])
    assert simulated == pytest.approx(random_baseline([k], n)[0], abs=0.01)


def test_softmax_sampler_over_all_nb201_cells():
    import itertools

    encodings = np.array(list(itertools.product(range(5), repeat=6)))
    weights = np.random.default_rng(1).normal(size=(6, 5))
    probabilities = sampling_probabilities(IndependentSoftmaxSampler(weights), encodings)
    assert probabilities.sum() == pytest.approx(1.0)
    softmax = np.exp(weights) / np.exp(weights).sum(axis=1, keepdims=True)
    assert probabilities[1234] == pytest.approx(np.prod(softmax[np.arange(6), encodings[1234]]))
    true = np.random.default_rng(2).random(len(encodings))
    uniform = np.full(len(encodings), 1 / len(encodings))
    assert cumulative_sampling_probability(true, uniform, [100])[0] == pytest.approx(100 / len(encodings))


def test_clusters_group_structurally_similar_cells():
    encodings = np.array([[0, 0, 0], [0, 0, 1], [4, 4, 4], [4, 4, 3]])
    rows, labels = cluster_architectures(encodings, threshold=1.0)
    assert labels[0] == labels[1] != labels[2] == labels[3]
    summary = cluster_summary(rows, labels, np.array([0.9, 0.8, 0.2, 0.3]), np.array([0.5, 0.4, 0.1, 0.1]))
    assert summary["size"].tolist() == [2, 2] and summary["mean_true"].tolist() == pytest.approx([0.85, 0.25])
    with pytest.raises(ValueError, match="explicit rng"):
        cluster_architectures(encodings, 1.0, subsample=2)


def test_regret_thresholds_map_to_k():
    assert regret_thresholds_to_k([0.9, 0.85, 0.8, 0.5], [0.0, 0.05, 0.1]).tolist() == [1, 2, 3]


def test_user_files_wide_and_long_with_clear_errors(tmp_path):
    wide = pd.DataFrame({"arch_id": [2, 0, 1], "e1": [0.1, 0.2, 0.3], "e2": [0.4, 0.5, 0.6]})
    wide.to_csv(tmp_path / "wide.csv", index=False)
    scores = read_scores(tmp_path / "wide.csv", 3)
    assert scores.checkpoints == ("e1", "e2") and scores.scores[0].tolist() == [0.2, 0.3, 0.1]
    long = wide.melt(id_vars="arch_id", var_name="checkpoint", value_name="score")
    long.to_parquet(tmp_path / "long.parquet")
    assert np.array_equal(read_scores(tmp_path / "long.parquet", 3).scores, scores.scores)
    wide.iloc[:2].to_csv(tmp_path / "missing.csv", index=False)
    with pytest.raises(ValueError, match=r"1 architecture id\(s\) missing, e.g. \[1\]"):
        read_scores(tmp_path / "missing.csv", 3)
    wide.assign(e2=["0.4", "x", "0.6"]).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match="checkpoint e2, arch_id 0: not a number"):
        read_scores(tmp_path / "bad.csv", 3)
    pd.concat([long, long.iloc[:1]]).to_csv(tmp_path / "dup.csv", index=False)
    with pytest.raises(ValueError, match="appears twice at checkpoint"):
        read_scores(tmp_path / "dup.csv", 3)


def test_gdas_supernet_on_real_data():
    path = SHARED_DATA / "nb201" / "nb201-cifar10-gdas-supernet-accuracies.json"
    if not path.exists():
        pytest.skip("real data not available")
    raw = json.loads(path.read_text())
    true = pd.read_csv(SHARED_DATA / "nb201" / "nb201-cifar10-200epochs.csv")["test_top1"].to_numpy() / 100
    from nasarena.plots.supernet_report import embedded_gdas_scores

    scores = embedded_gdas_scores()
    assert scores.checkpoints[-1] == "249" and scores.scores.shape == (25, 15_625)
    assert np.allclose(scores.scores[-1], raw["249"], atol=1e-6)
    metrics = evaluate_checkpoints(true, scores, ks=(10, 50, 100, 500))
    last = metrics[metrics.checkpoint == "249"].set_index(["metric", "parameter"])["value"]
    assert [last[("a1", k)] for k in (10, 50, 100, 500)] == pytest.approx([0.0, 0.16, 0.2, 0.382])
    assert last[("spearman", "all")] == pytest.approx(0.7030, abs=1e-3)
    assert (metrics[metrics.metric == "a1"]["value"].between(0, 1)).all()


def test_cli_evaluates_the_embedded_supernet(tmp_path):
    pytest.importorskip("matplotlib")
    result = CliRunner().invoke(app, ["supernet", "evaluate", "--out", str(tmp_path), "--cluster-threshold", "4"])
    assert result.exit_code == 0, result.output
    assert "checkpoint 249" in result.output and "Spearman per checkpoint" in result.output
    html = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64" in html and "http" not in html
    assert "no checkpoint at epoch 220" in html  # point 18: the source has none between 210 and 230
    for stem in ("id_rate", "correlation_vs_id_rate", "clusters"):
        assert (tmp_path / "figures" / f"{stem}.png").exists() and (tmp_path / "figures" / f"{stem}.pdf").exists()


def test_point18_supernet_figures_log_a1_with_k10_bubble_legend_and_missing_checkpoint():
    pytest.importorskip("matplotlib")
    from nasarena.plots.supernet import cluster_plot, correlation_vs_id_rate
    from nasarena.plots.supernet_report import embedded_gdas_scores, missing_checkpoints

    assert missing_checkpoints(embedded_gdas_scores().checkpoints) == ["220"]  # 210, 230: the source lacks 220
    assert missing_checkpoints(("early", "late", "final")) == [] and missing_checkpoints(("10", "20", "30")) == []
    rng = np.random.default_rng(0)
    true = rng.random(200)
    scores = SupernetScores(("10", "20", "40"), np.vstack([true + rng.normal(0, s, 200) for s in (1, 0.5, 0.1)]))
    metrics = evaluate_checkpoints(true, scores, ks=(10, 50, 100))
    figure = correlation_vs_id_rate(metrics, (10, 50, 100))
    right = figure.axes[1]
    assert right.get_yscale() == "log"
    assert [t.get_text() for t in right.get_legend().get_texts()] == ["k = 10", "k = 50", "k = 100"]
    summary = pd.DataFrame({"size": [1, 40, 160], "mean_true": [0.9, 0.8, 0.7], "mean_supernet": [0.5, 0.4, 0.3]})
    legend = cluster_plot(summary, "40").axes[0].get_legend()
    assert legend.get_title().get_text() == "cluster size"
    assert [t.get_text() for t in legend.get_texts()] == ["1 architecture", "40 architectures", "160 architectures"]


def test_point11_and_13_scores_with_architecture_strings_and_named_checkpoints(tmp_path):
    """arch_id may be an NB201 cell string; checkpoints may be names, kept in the file's order."""
    pytest.importorskip("matplotlib")
    import nasarena
    from nasarena.plots.supernet_report import embedded_gdas_scores

    bench = nasarena.benchmark("nb201-cifar10")
    embedded = embedded_gdas_scores()
    texts = [str(cell) for cell in bench.space.enumerate()]
    ids = [texts[i] if i % 2 else i for i in range(len(texts))]  # every other architecture as text
    frame = pd.DataFrame({"arch_id": ids, "early": embedded.scores[10], "final": embedded.scores[-1]})
    frame.iloc[::-1].to_csv(tmp_path / "scores.csv", index=False)
    scores = read_scores(tmp_path / "scores.csv", len(texts), row_of=lambda text: int(bench.rows([text])[0]))
    assert scores.checkpoints == ("early", "final")
    assert np.allclose(scores.scores, embedded.scores[[10, -1]])
    long = frame.melt(id_vars="arch_id", var_name="checkpoint", value_name="score")
    long.assign(checkpoint=long["checkpoint"].map({"early": "100", "final": "20"})).to_csv(tmp_path / "long.csv",
                                                                                        index=False)
    assert read_scores(tmp_path / "long.csv", len(texts), row_of=lambda t: int(bench.rows([t])[0])).checkpoints == \
        ("100", "20")  # the file's order, not pivot's sorted one
    result = CliRunner().invoke(app, ["supernet", "evaluate", "--scores", str(tmp_path / "scores.csv"), "--out",
                                      str(tmp_path / "report"), "--cluster-threshold", "4"])
    assert result.exit_code == 0, result.output
    assert "checkpoint final" in result.output and "early: -0.471, final: +0.703" in result.output
