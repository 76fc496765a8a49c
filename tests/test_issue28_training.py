"""Regression tests of issue 28 ("tried as a careless user would"): ``nasarena train``, ``nasarena
collect`` and the CIFAR-10 pipeline. Command-line cases run the real command in a subprocess and
expect ``error: ...``, exit status 2 and no traceback, with nothing of the user's lost."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from nasarena.errors import DataFileError, InvalidSettingError  # noqa: E402
from nasarena.io.outputs import LOCK_SUFFIX, MARK_FILE  # noqa: E402
from nasarena.training.data import CLASSES  # noqa: E402

torch.set_num_threads(1)

NB201_CELL = "|nor_conv_3x3~0|+|nor_conv_3x3~0|skip_connect~1|+|skip_connect~0|none~1|avg_pool_3x3~2|"
TINY = ("--epochs", "1", "--image-size", "8", "--device", "cpu")


def _environment(extra: dict | None = None) -> dict:
    return {**os.environ, "OMP_NUM_THREADS": "1", "NASARENA_PROGRESS": "0", **(extra or {})}


def nasarena(*arguments, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nasarena.cli.main", *map(str, arguments)], capture_output=True,
                          text=True, timeout=timeout, env=_environment(env))


def refused(result: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit status 2, one ``error:`` line holding every fragment, no traceback."""
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)


def train_arguments(*extra, scale=("channels=4", "cells_per_stage=1")) -> list[str]:
    """``nasarena train`` of a 4-channel NB201 network, one epoch of 8x8 images."""
    knobs = [part for knob in scale for part in ("--scale", knob)]
    return ["train", "--space", "nb201", "--arch", NB201_CELL, *TINY, *knobs, "--set", "batch_size=64", *extra]


def collect_arguments(folder: Path, store: Path, out: Path, strategy: str, n: int, trajectory: int) -> list[str]:
    """``nasarena collect`` of 4-channel NB201 networks, one epoch of 8x8 images each."""
    return ["collect", "--space", "nb201", "--strategies", strategy, "--n", str(n), "--trajectory", str(trajectory),
            "--out", str(out), "--data", str(folder), "--store", str(store), *TINY, "--scale", "channels=4",
            "--scale", "cells_per_stage=1", "--set", "batch_size=100"]


def _image_file(seed: int) -> bytes:
    from PIL import Image

    pixels = np.random.default_rng(seed).integers(0, 256, (32, 32, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "PNG")
    return buffer.getvalue()


def _add(archive: tarfile.TarFile, name: str, content: bytes) -> None:
    member = tarfile.TarInfo(name)
    member.size = len(content)
    archive.addfile(member, io.BytesIO(content))


# --- point 2: two collections into one file at once ---------------------------------------------


def test_point02_a_second_collect_with_other_strategies_is_refused_while_the_first_runs(cifar_folder, tmp_path):
    out, store = tmp_path / "data.parquet", tmp_path / "store"
    lock = out.with_name(f".{out.name}{LOCK_SUFFIX}")
    first = subprocess.Popen([sys.executable, "-m", "nasarena.cli.main",
                              *collect_arguments(cifar_folder, store, out, "rs", 1000, 1000)],
                             env=_environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not lock.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lock.exists() and first.poll() is None, "the first collection did not start"
        second = nasarena(*collect_arguments(cifar_folder, store, out, "re", 2, 2))
        assert first.poll() is None, "the first collection ended: the lock was not what refused the second"
    finally:
        first.kill()
        first.wait()
    refused(second, str(out), "being written right now", "other settings")
    assert not out.exists() or set(pd.read_parquet(out)["source"]) == {"rs"}  # nothing of the second's


# --- point 3: a smaller n ----------------------------------------------------------------------


def test_point03_a_smaller_n_is_refused_and_the_collected_rows_are_kept(cifar_folder, tmp_path):
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    out, store = tmp_path / "data.parquet", tmp_path / "store"
    done = CliRunner().invoke(app, collect_arguments(cifar_folder, store, out, "rs,re", 4, 2))  # in-process: faster
    assert done.exit_code == 0, done.output
    before = out.read_bytes()
    result = nasarena(*collect_arguments(cifar_folder, store, out, "rs,re", 2, 2))
    refused(result, str(out), "n=4 (4 architectures)", "n=2 is smaller", "use n=4 or more")
    assert out.read_bytes() == before and len(pd.read_parquet(out)) == 4


# --- point 5: train writes only into its own folders -------------------------------------------


def test_point05_train_keeps_a_record_json_it_did_not_write(cifar_folder, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "record.json").write_text('{"my": "results"}')
    result = nasarena(*train_arguments("--data", cifar_folder, "--out", mine))
    refused(result, str(mine), "record.json", "did not write")
    assert (mine / "record.json").read_text() == '{"my": "results"}' and sorted(os.listdir(mine)) == ["record.json"]


def test_point05_a_train_folder_of_before_the_mark_still_resumes_and_another_runs_is_left_unmarked(cifar_folder,
                                                                                                  tmp_path):
    from nasarena.training import build_network, load_cifar10
    from nasarena.training.loop import seeded_network, train
    from nasarena.training.protocols import protocol

    def network():
        return seeded_network(lambda: build_network("nb201", NB201_CELL, channels=4, cells_per_stage=1), 0)

    data, nb201, out = load_cifar10(cifar_folder, image_size=8), protocol("nb201").replace(batch_size=64), tmp_path
    first = train(network(), data, nb201, seed=0, epochs=2, out_dir=out, stop_after_epoch=1, progress=False)
    (out / MARK_FILE).unlink()  # as a nasarena of before the marks left its run folder
    with pytest.raises(InvalidSettingError, match="seed"):
        train(network(), data, nb201, seed=1, epochs=2, out_dir=out, progress=False)
    assert not (out / MARK_FILE).exists()  # another run's folder is not marked as this one's
    resumed = train(network(), data, nb201, seed=0, epochs=2, out_dir=out, progress=False)
    assert len(resumed.epochs) == 2 and resumed.epochs[0] == first.epochs[0] and (out / MARK_FILE).exists()


# --- point 6: an incomplete CIFAR-10 source ------------------------------------------------------


def test_point06_a_tarball_cut_after_three_training_classes_is_refused(tmp_path):
    """The shared tarball holds test/ before train/: cut at a member boundary, it keeps every test
    image and the training images of the first classes."""
    tarball = tmp_path / "cut.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        for k, cls in enumerate(CLASSES):
            _add(archive, f"cifar10/test/{cls}/0000.png", _image_file(k))
        for k, cls in enumerate(CLASSES[:3]):
            for image in range(5):
                _add(archive, f"cifar10/train/{cls}/{image:04d}.png", _image_file(100 + 10 * k + image))
    result = nasarena(*train_arguments("--data", tarball), env={"NASARENA_CACHE": str(tmp_path / "cache")})
    refused(result, str(tarball), "train split holds airplane 4, automobile 4, bird 4, cat 0", "incomplete")
    from nasarena.training.data import load_cifar10

    with pytest.raises(DataFileError, match=r"train split \(subset=2: up to 2 images per class\) holds airplane 2, "
                                            r"automobile 2, bird 2, cat 0"):
        load_cifar10(tarball, subset=2)  # a subset says what it took


# --- point 7: $NASARENA_CIFAR10 is an explicit choice -------------------------------------------


def test_point07_an_unusable_NASARENA_CIFAR10_is_an_error_naming_it_never_a_fall_back(tmp_path, monkeypatch):
    from nasarena.training.data import load_cifar10

    empty, garbage = tmp_path / "empty", tmp_path / "cifar.tar.gz"
    empty.mkdir()
    garbage.write_bytes(b"not a tarball")
    result = nasarena(*train_arguments(), env={"NASARENA_CIFAR10": str(empty)})
    refused(result, f"$NASARENA_CIFAR10={empty}: no CIFAR-10 data there", "unset the variable")
    monkeypatch.setenv("NASARENA_CIFAR10", str(garbage))
    monkeypatch.setenv("NASARENA_CACHE", str(tmp_path / "cache"))
    with pytest.raises(DataFileError, match=r"\$NASARENA_CIFAR10=.*cifar.tar.gz: .*not a readable tarball"):
        load_cifar10()


# --- point 12: outputs that cannot be written ----------------------------------------------------


def test_point12_train_refuses_a_file_and_a_path_under_a_file_as_out(cifar_folder, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    for out, why in ((notes, "is a file"), (notes / "run", "cannot create it")):
        result = nasarena(*train_arguments("--data", cifar_folder, "--out", out))
        refused(result, str(out), why)
    assert notes.read_text() == "keep me"


def test_point12_collect_refuses_a_folder_and_a_path_under_a_file_as_out_before_training(cifar_folder, tmp_path):
    folder, notes, store = tmp_path / "folder", tmp_path / "notes.txt", tmp_path / "store"
    folder.mkdir()
    notes.write_text("keep me")
    for out, why in ((folder, "is a folder"), (notes / "data.parquet", "cannot create its folder")):
        result = nasarena(*collect_arguments(cifar_folder, store, out, "rs", 2, 2))
        refused(result, str(out), why)
    assert notes.read_text() == "keep me" and os.listdir(folder) == [] and not store.exists()  # nothing trained


# --- point 13: scale knobs the data or the memory cannot take ---------------------------------


def test_point13_train_refuses_a_num_classes_other_than_cifar10s(cifar_folder, tmp_path):
    result = nasarena(*train_arguments("--data", cifar_folder, "--out", tmp_path / "run",
                                       scale=("channels=4", "cells_per_stage=1", "num_classes=3")))
    refused(result, "num_classes=3", "num_classes must be 10")
    assert not (tmp_path / "run" / "checkpoint.pt").exists()


def test_point13_train_refuses_a_network_too_large_for_memory_before_building_it(cifar_folder):
    started = time.monotonic()
    result = nasarena(*train_arguments("--data", cifar_folder, scale=("channels=20000",)))
    refused(result, "channels=20000", "868,004,820,010 parameters", "GB for their weights", "free")
    assert time.monotonic() - started < 120  # refused from shapes alone, nothing of the 3.5 TB allocated


def test_point13_train_refuses_activations_that_cannot_fit_before_the_first_epoch(monkeypatch, cifar_folder):
    from nasarena.training import build_network, load_cifar10, preflight
    from nasarena.training.loop import train
    from nasarena.training.protocols import protocol

    network = build_network("nb201", NB201_CELL, channels=4, cells_per_stage=1)
    monkeypatch.setattr(preflight, "available_bytes", lambda device: 1_000_000)
    with pytest.raises(InvalidSettingError, match=r"batch_size=256 .* for the activations of a batch\), but cpu has "
                                                  r"0.0 GB free"):
        train(network, load_cifar10(cifar_folder, image_size=8), protocol("nb201"), seed=0, device="cpu")
