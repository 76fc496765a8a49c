"""Data collection of issue 13: random samples plus optimizer trajectories, trained by the live benchmark."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from nasarena.errors import InvalidSettingError, OutputError, UnknownNameError  # noqa: E402
from nasarena.studies.collection import Stream, collect, plan, read_settings  # noqa: E402

torch.set_num_threads(1)



def _options(folder: Path, store: Path) -> dict:
    """NB301's protocol on a tiny DARTS network (4 channels, 3 cells, 8x8 images), one epoch."""
    return dict(space="darts", data=folder, store=store, settings=("batch_size=100",), image_size=8, fidelities=(1,),
                channels=4, layers=3, auxiliary=False, device="cpu")


def test_plan_shares_n_evenly_in_streams():
    assert plan(["rs", "re", "bananas"], 10, 3) == [
        Stream("rs", 0, 3), Stream("rs", 1, 1), Stream("re", 0, 3), Stream("bananas", 0, 3)]


def test_collect_writes_what_surrogate_fit_reads_and_resumes(cifar_folder, tmp_path, monkeypatch):
    from nasarena.surrogates.data import read_training_data
    from nasarena.surrogates.spaces import space_by_name

    out = tmp_path / "data.parquet"
    frame = collect(_options(cifar_folder, tmp_path / "store"), ["rs", "re"], 4, out, trajectory=2)
    assert len(frame) == 4 and sorted(set(frame["source"])) == ["re", "rs"]
    data = read_training_data(out, space_by_name("darts"))
    assert len(data) == 4 and data.fidelities == (1,) and set(data.sources) == {"re", "rs"}
    assert np.all(data.cost_seconds > 0) and np.all((data.valid_accuracy >= 0) & (data.valid_accuracy <= 1))
    assert read_settings(out)["complete"] is True

    import nasarena.training.loop as loop

    def no_training(*args, **kwargs):
        raise AssertionError("a stored architecture was trained again")

    monkeypatch.setattr(loop, "train", no_training)
    again = collect(_options(cifar_folder, tmp_path / "store"), ["rs", "re"], 4, out, trajectory=2)
    pd.testing.assert_frame_equal(again, frame)  # a replay from the store: same rows, nothing trained
    with pytest.raises(AssertionError, match="trained again"):  # n may grow: only the new ones train
        collect(_options(cifar_folder, tmp_path / "store"), ["rs", "re"], 6, out, trajectory=2)


def test_foreign_or_other_files_are_kept(cifar_folder, tmp_path):
    options = _options(cifar_folder, tmp_path / "store")
    foreign = tmp_path / "mine.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(foreign)
    before = foreign.read_bytes()
    with pytest.raises(OutputError, match="not written by"):
        collect(options, ["rs"], 1, foreign)
    text = tmp_path / "notes.parquet"
    text.write_text("my notes")
    with pytest.raises(OutputError, match="not a Parquet"):
        collect(options, ["rs"], 1, text)
    assert foreign.read_bytes() == before and text.read_text() == "my notes"


def test_bad_settings_are_clear_errors(cifar_folder, tmp_path):
    options = _options(cifar_folder, tmp_path / "store")
    with pytest.raises(UnknownNameError, match="did you mean"):
        collect(options, ["rs", "bananaz"], 2, tmp_path / "x.parquet")
    with pytest.raises(InvalidSettingError, match="multi-fidelity"):
        collect(options, ["hb"], 2, tmp_path / "x.parquet")
    with pytest.raises(InvalidSettingError, match="n=0"):
        collect(options, ["rs"], 0, tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


def test_collect_command(cifar_folder, tmp_path):
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    out = tmp_path / "data.parquet"
    arguments = ["collect", "--space", "darts", "--strategy", "rs", "--n", "2", "--out", str(out), "--data",
                 str(cifar_folder), "--store", str(tmp_path / "store"), "--epochs", "1", "--image-size", "8",
                 "--scale", "channels=4", "--scale", "layers=3", "--scale", "auxiliary=false", "--set",
                 "batch_size=100", "--device", "cpu"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    assert "2 architectures" in result.output and len(pd.read_parquet(out)) == 2
    bad = CliRunner().invoke(app, arguments[:5] + ["--n", "2", "--out", str(out), "--scale", "chanels=4"])
    assert bad.exit_code == 2 and "chanels" in bad.output


DARTS214 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "darts" / "darts214-random-cifar10.csv"


@pytest.mark.skipif(not DARTS214.exists(), reason=f"the 214 DARTS architectures are not at {DARTS214}")
def test_the_214_real_darts_genotypes_parse_and_read_as_surrogate_data():
    """NAS-Benchmark's 214 random DARTS architectures (GPL data: read here, never shipped)."""
    from nasarena.spaces.darts import DartsSpace
    from nasarena.surrogates.data import training_data_from_frame

    table = pd.read_csv(DARTS214)
    space = DartsSpace()
    archs = [space.from_text(text) for text in table["genotype"]]  # pairs grouped per node, range(2, 6)
    assert len(archs) == 214 and len({space.identity(a) for a in archs}) == 214
    assert all(space.from_text(space.to_text(a)) == a for a in archs)
    assert all(len(a.cell("normal")) == 8 and len(a.cell("reduce")) == 8 for a in archs)
    frame = pd.DataFrame({"arch": table["genotype"], "valid_accuracy": table["final_epoch_test_acc"], "fidelity": 600})
    data = training_data_from_frame(frame, space)
    assert len(data) == 214 and data.value_scale == "percent" and 0.96 < data.valid_accuracy.min()
