"""Correlation of one-shot and NB101 rankings (NAS-Bench-1Shot1 Sec. 5.2) joined to the supernet
evaluation: a run's kept supernets are scored, written in the format 'supernet evaluate --scores'
reads, and read back by it with the same numbers.

Tiny scale (4 channels, one cell per stack, 16 x 16 images, 20 images per class, 2 epochs, a
seeded subset of the architectures) on real CIFAR-10 and nb101-noisy.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from typer.testing import CliRunner

from nasarena.analysis.supernet import ChoiceSoftmaxSampler, sampling_probabilities
from nasarena.cli.main import app
from nasarena.errors import DataFileError, InvalidSettingError
from nasarena.oneshot import quick_settings
from nasarena.oneshot.run import read_weights, run_search, snapshot_path
from nasarena.oneshot.search import fixed_validation_batches
from nasarena.oneshot.supernet import PathWeights, Supernet
from nasarena.spaces.oneshot import OneShotArch, architectures
from nasarena.spaces.oneshot.positions import position, representative
from nasarena.studies.oneshot_correlation import (
    CORRELATION_FILE,
    SCORES_FILE,
    Scoring,
    candidates,
    choice_encodings,
    choice_sampler,
    score_runs,
    spearman_table,
)

SPACE = "nb1shot1-1"
TINY = {"cells_per_stack": 1, "subset": 20, "epochs": 2, "snapshot_every": 1}


@pytest.fixture(scope="module")
def data():
    from nasarena.training.data import load_cifar10

    try:
        return load_cifar10(image_size=16, subset=20)
    except DataFileError as error:
        pytest.skip(f"CIFAR-10 not available: {error}")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, data):
    """A DARTS and an ENAS run with both epochs' supernets kept, scored on 40 architectures."""
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("runs")
    dirs = []
    for optimizer in ("darts", "enas"):
        run_dir = out / optimizer / "seed-0"
        run_search(quick_settings(optimizer, SPACE, **TINY), 0, run_dir, data=data)
        dirs.append(run_dir)
    count, _ = score_runs(dirs, Scoring(batches=1, architectures=40))
    assert count > 40  # 40 per DARTS epoch plus ENAS's samples
    return out, dirs


def test_positions_are_rows_of_the_set_without_loose_ends():
    chosen = architectures(SPACE, loose_ends=False)
    assert [position(chosen[i]) for i in range(0, len(chosen), 50)] == list(range(0, len(chosen), 50))
    # a loose end (block 3 feeds nothing) is the same network as its representative
    arch = OneShotArch(SPACE, ((0,), (0, 1), (0, 1), (0, 2)), ("conv3x3-bn-relu", "maxpool3x3", "conv1x1-bn-relu",
                                                                  "conv3x3-bn-relu"), (2, 4))
    assert 3 not in arch.active_blocks()
    rep = representative(arch)
    assert rep.to_cell().hash == arch.to_cell().hash and rep.ops[2] == "conv3x3-bn-relu"
    assert chosen[position(arch)] == rep
    assert position(arch.to_string()) == position(rep)


def test_scores_are_the_snapshot_supernets_one_shot_accuracy(runs, data):
    _, (darts, _) = runs
    settings = quick_settings("darts", SPACE, **TINY)
    scores = pd.read_csv(darts / SCORES_FILE)
    first = scores[scores["checkpoint"] == 2].iloc[0]
    supernet = Supernet(SPACE, settings.channels, settings.stacks, settings.cells_per_stack)
    supernet.load_state_dict(torch.load(snapshot_path(darts, 2), weights_only=True)["supernet"])
    supernet.train()
    images, labels = fixed_validation_batches(data, settings.batch_size, 1)[0]
    with torch.no_grad():
        logits = supernet(images, PathWeights.of_architecture(OneShotArch.from_string(first["arch_id"])))
    assert first["score"] == pytest.approx(float((logits.argmax(1) == labels).float().mean()))


def test_run_scores_are_read_back_by_supernet_evaluate(runs, tmp_path):
    _, (darts, enas) = runs
    correlation = pd.read_csv(darts / CORRELATION_FILE)
    result = CliRunner().invoke(app, ["supernet", "evaluate", "--benchmark", SPACE, "--scores",
                                      str(darts / SCORES_FILE), "--weights", str(darts / "weights"), "--ks", "5,10",
                                      "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    assert "40 of 2,487 architectures scored" in result.output
    metrics = pd.read_csv(tmp_path / "report" / "metrics.csv")
    for metric in ("spearman", "kendall"):
        ours = correlation[(correlation.metric == metric) & (correlation.parameter == "all")]["value"].to_numpy()
        theirs = metrics[(metrics.metric == metric) & (metrics.parameter == "all")]["value"].to_numpy()
        np.testing.assert_allclose(theirs, ours)
    assert set(metrics["metric"]) >= {"a1", "a2", "spearman", "kendall"}
    # ENAS scored only its controller's samples: read as a partial score file
    result = CliRunner().invoke(app, ["supernet", "evaluate", "--benchmark", SPACE, "--scores",
                                      str(enas / SCORES_FILE), "--ks", "2,5", "--out", str(tmp_path / "enas")])
    assert result.exit_code == 0, result.output
    table = spearman_table([darts, enas])
    scored = table.set_index("optimizer")["scored"]
    assert (scored["darts"] == 40).all() and (scored["enas"] <= quick_settings("enas", SPACE).samples).all()


def test_supernet_evaluate_of_a_sample_judges_it_among_what_was_scored(runs, tmp_path):
    """Regression: with 40 of 2,487 architectures scored, the report's and the printed random a1
    baseline was k/2,487 (so a1 looked far above random), k above 40 showed as NaN, and the
    clusters were of a random subset of the whole set, most without a supernet score."""
    _, (darts, _) = runs
    result = CliRunner().invoke(app, ["supernet", "evaluate", "--benchmark", SPACE, "--scores",
                                      str(darts / SCORES_FILE), "--weights", str(darts / "weights"), "--ks",
                                      "5,10,50", "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "40 of 2,487 architectures scored, a1 among them" in lines[0]
    assert lines[1].split() == ["k", "a1(k)", "random", "a1", "a2(k)", "random", "a2", "(k/N)"]
    assert lines[2].split()[0] == "5" and lines[2].split()[2] == "0.12500"  # 5 of the 40 scored
    assert lines[2].split()[4] == f"{5 / 2487:.5f}"  # a2 is over the whole set
    assert lines[4].split()[:3] == ["50", "-", "k"]
    assert any(line.startswith("Kendall per checkpoint") for line in lines)
    clusters = pd.read_csv(tmp_path / "report" / "clusters.csv")
    assert clusters["size"].sum() == 40 and clusters["mean_supernet"].notna().all()
    assert "clusters: " in result.output and "40 architectures" in result.output
    page = (tmp_path / "report" / "report.html").read_text()
    assert "0.12500" in page and ">nan<" not in page and "40 of the 2,487 architectures scored" in page


def test_enas_scores_its_controller_samples(runs):
    _, (_, enas) = runs
    scoring = Scoring(batches=1, architectures=40)
    first, again = candidates(enas, 2, scoring), candidates(enas, 2, scoring)
    assert first == again and 0 < len(first) <= quick_settings("enas", SPACE, **TINY).samples
    written = pd.read_csv(enas / SCORES_FILE)
    assert sorted(written[written.checkpoint == 2]["arch_id"]) == sorted(a.to_string() for a in first)


def test_scoring_resumes_and_refuses_other_choices(runs):
    _, (darts, _) = runs
    before = pd.read_csv(darts / SCORES_FILE)
    (darts / "scores" / "epoch-002.csv").unlink()  # as if killed before the last epoch was written
    count, _ = score_runs([darts], Scoring(batches=1, architectures=40))
    assert count == 40
    pd.testing.assert_frame_equal(pd.read_csv(darts / SCORES_FILE), before)
    with pytest.raises(InvalidSettingError, match="was scored with"):
        score_runs([darts], Scoring(batches=2, architectures=40))


def test_choice_sampler_is_a_distribution_over_the_set(runs):
    _, (darts, _) = runs
    encodings = choice_encodings(SPACE)
    probabilities = sampling_probabilities(choice_sampler(SPACE, read_weights(darts / "weights" / "epoch-002.npz")),
                                           encodings)
    assert probabilities.shape == (len(architectures(SPACE, loose_ends=False)),)
    assert probabilities.sum() == pytest.approx(1.0) and (probabilities > 0).all()
    flat = ChoiceSoftmaxSampler([np.zeros(int(encodings[:, c].max()) + 1) for c in range(encodings.shape[1])])
    np.testing.assert_allclose(sampling_probabilities(flat, encodings), 1 / len(encodings))


def test_correlate_cli_refuses_runs_without_supernets(tmp_path, data):
    run_search(quick_settings("random-ws", SPACE, **{**TINY, "snapshot_every": 0, "epochs": 1}), 0,
               tmp_path / "random-ws" / "seed-0", data=data)
    result = CliRunner().invoke(app, ["oneshot", "correlate", str(tmp_path), "--workers", "1"])
    assert result.exit_code == 2 and "snapshot_every" in result.output
    result = CliRunner().invoke(app, ["oneshot", "correlate", str(tmp_path / "none")])
    assert result.exit_code == 2 and "no one-shot runs" in result.output


def test_scoring_on_a_named_device_gives_the_same_scores(runs, tmp_path):
    """--device is passed to every worker (the supernet and the fixed batches go there; a GPU
    machine scores on its GPU); on the CPU it reproduces the default scoring, and a device this
    machine lacks is refused before any work."""
    import shutil

    _, (darts, _) = runs
    copy = tmp_path / "darts" / "seed-0"
    shutil.copytree(darts, copy, ignore=shutil.ignore_patterns("scores", SCORES_FILE, CORRELATION_FILE))
    count, _ = score_runs([copy], Scoring(batches=1, architectures=40), device="cpu", workers=2)
    assert count == 80
    pd.testing.assert_frame_equal(pd.read_csv(copy / SCORES_FILE), pd.read_csv(darts / SCORES_FILE))
    with pytest.raises(InvalidSettingError, match="unknown device"):
        score_runs([copy], Scoring(batches=1, architectures=40), device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(InvalidSettingError, match="no CUDA GPU"):
            score_runs([copy], Scoring(batches=1, architectures=40), device="cuda")
    result = CliRunner().invoke(app, ["oneshot", "correlate", str(tmp_path), "--workers", "1", "--device", "cpu",
                                      "--architectures", "40"])
    assert result.exit_code == 0, result.output
    assert "darts" in result.output and "Spearman" in result.output


def test_fixed_validation_batches_mix_the_classes(data):
    """Regression (issue 15 GPU proof): the split is stored ordered by class, so its batches in stored
    order each held one class; with the batch statistics the supernet measures with, the one-shot
    valid error stayed at 0.86-0.89 (chance 0.9) while DARTS's train error fell to 0.26, and every
    architecture was scored on 96 airplanes. The fixed batches are a seeded class-mixed order."""
    from nasarena.training.data import batches

    stored = next(iter(batches(data.valid, 32, augment=False, generator=None, mean=data.mean, std=data.std)))[1]
    assert len(stored.unique()) <= 2  # the trap: 20 of class 0, 12 of class 1
    fixed = fixed_validation_batches(data, 32)
    assert len(fixed[0][1].unique()) >= 6
    labels = torch.cat([y for _, y in fixed])
    assert labels.bincount().tolist() == [20] * 10  # every image once
    again = fixed_validation_batches(data, 32, 2)
    assert all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) for a, b in zip(fixed[:2], again))


def test_the_run_measures_on_the_fixed_batches(data):
    from nasarena.oneshot.lookup import Nb101Lookup
    from nasarena.oneshot.optimizers import search_class

    settings = quick_settings("random-ws", SPACE, **TINY)
    search = search_class("random-ws")(settings, data, Nb101Lookup(SPACE, settings.benchmark), 0, "cpu")
    ours = search.validation_batches(3)
    for (x, y), (fx, fy) in zip(ours, fixed_validation_batches(data, settings.batch_size, 3), strict=True):
        assert torch.equal(x, fx) and torch.equal(y, fy)


def test_scores_of_the_class_ordered_split_are_refused(runs, tmp_path):
    import json
    import shutil

    _, (darts, _) = runs
    copy = tmp_path / "darts" / "seed-0"
    shutil.copytree(darts, copy)
    (copy / "scores" / "scoring.json").write_text(json.dumps({"batches": 1, "architectures": 40, "seed": 0}))
    with pytest.raises(InvalidSettingError, match="one class per batch"):
        score_runs([copy], Scoring(batches=1, architectures=40))
