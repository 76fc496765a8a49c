"""The regularisation study (NAS-Bench-1Shot1 Appendix E): the variants, their run folders, and one
tiny end-to-end run of the command with its report (real CIFAR-10, nb101-noisy)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from typer.testing import CliRunner

from nasarena.cli.main import app
from nasarena.oneshot import quick_settings
from nasarena.studies.oneshot_regularisation import WEIGHT_DECAYS, Variant, plan_study, variants


def test_variants_are_the_papers_and_the_shared_one_runs_once(tmp_path):
    found = variants(32)
    assert Variant(16, 3e-4) in found and Variant(0, 3e-4) in found
    assert sorted(v.weight_decay for v in found if "weight_decay" in v.studies) == list(WEIGHT_DECAYS)
    assert [v.cutout for v in found if "cutout" in v.studies] == [0, 16]
    assert len(found) == len(set(found)) == 6
    jobs = plan_study([quick_settings("darts", "nb1shot1-1"), quick_settings("gdas", "nb1shot1-1")], [0, 1], tmp_path)
    assert len(jobs) == 6 * 2 * 2
    quick = variants(16)  # the quick images are 16 x 16: cutout 8
    assert {(j.settings.cutout, j.settings.weight_decay) for j in jobs} == {(v.cutout, v.weight_decay) for v in quick}
    assert all(j.run_dir.parent.parent.name == Variant(j.settings.cutout, j.settings.weight_decay).name for j in jobs)


def test_study_runs_are_reported_per_optimizer_and_study(tmp_path):
    from nasarena.errors import DataFileError
    from nasarena.oneshot.run import run_search
    from nasarena.plots.oneshot_regularisation import write_regularisation_report
    from nasarena.training.data import load_cifar10

    try:
        data = load_cifar10(image_size=16, subset=20)
    except DataFileError as error:
        pytest.skip(f"CIFAR-10 not available: {error}")
    base = quick_settings("darts", "nb1shot1-1", cells_per_stack=1, subset=20, epochs=1)
    for job in plan_study([base], [0], tmp_path):  # what 'oneshot regularise' runs, on data loaded once
        run_search(job.settings, job.seed, job.run_dir, data=data)
    for variant in variants(16):
        stored = json.loads((tmp_path / variant.name / "darts" / "seed-0" / "settings.json").read_text())["settings"]
        assert (stored["cutout"], stored["weight_decay"]) == (variant.cutout, variant.weight_decay)
    report = write_regularisation_report(tmp_path)
    assert "darts: weight decay (no cutout)" in report.read_text()
    assert {p.name for p in (tmp_path / "figures").glob("*.png")} == {"darts_cutout.png", "darts_weight_decay.png"}


def test_regularise_refuses_to_fix_what_it_varies(tmp_path):
    refused = CliRunner().invoke(app, ["oneshot", "regularise", "--quick", "--set", "cutout=4", "--out",
                                       str(tmp_path / "x")])
    assert refused.exit_code == 2 and "varies cutout" in refused.output
    assert not (tmp_path / "x").exists()
