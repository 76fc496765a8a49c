"""The training loop of issue 13: protocols, TF-RMSProp, determinism, checkpoints, exact resume."""

import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from conftest import write_batches_folder  # noqa: E402
from nasarena.errors import DataFileError, InvalidSettingError, UnknownNameError  # noqa: E402
from nasarena.training.checkpoint import CHECKPOINT_FILE  # noqa: E402
from nasarena.training.data import Cifar10, Split  # noqa: E402
from nasarena.training.loop import TrainingRecord, seeded_network, train  # noqa: E402
from nasarena.training.optim import TFRMSprop  # noqa: E402
from nasarena.training.protocols import protocol  # noqa: E402

torch.set_num_threads(1)


def _split(count: int, seed: int, side: int = 8) -> Split:
    """Learnable synthetic images: the label sets the mean brightness of one channel."""
    generator = torch.Generator().manual_seed(seed)
    labels = torch.arange(count) % 10
    images = torch.randint(0, 128, (count, 3, side, side), generator=generator, dtype=torch.uint8)
    images[:, 0] += (labels * 12).to(torch.uint8).view(-1, 1, 1)
    return Split(images=images, labels=labels.to(torch.int64))


def _data(side: int = 8, count: int = 200) -> Cifar10:
    held_out = count // 4
    return Cifar10(train=_split(count, 0, side), valid=_split(held_out, 1, side), test=_split(held_out, 2, side),
                   image_size=side, subset=None, source=Path("synthetic"), mean=(0.4, 0.25, 0.25),
                   std=(0.25, 0.25, 0.25))


def _network(seed: int = 0):
    def build():
        return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                   torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 10))

    return seeded_network(build, seed)


QUICK = protocol("nb101").replace(batch_size=32, epochs=4)


def test_presets_follow_the_papers():
    nb101, nb201, nb301 = protocol("nb101"), protocol("nb201"), protocol("nb301")
    assert (nb101.optimizer, nb101.learning_rate, nb101.batch_size, nb101.weight_decay) == (
        "rmsprop_tf", 0.2, 256, 1e-4)
    assert (nb101.rmsprop_decay, nb101.momentum, nb101.rmsprop_epsilon, nb101.budgets) == (0.9, 0.9, 1.0,
                                                                                         (4, 12, 36, 108))
    assert (nb201.optimizer, nb201.nesterov, nb201.learning_rate, nb201.weight_decay, nb201.epochs) == (
        "sgd", True, 0.1, 5e-4, 200)
    assert (nb301.learning_rate, nb301.weight_decay, nb301.cutout, nb301.epochs) == (0.025, 3e-4, 16, 100)
    assert nb301.drop_path > 0 and not nb301.nesterov
    # cosine to 0 over the budget, per step
    assert nb101.learning_rate_at(0, 0, 10, 4) == pytest.approx(0.2)
    assert nb101.learning_rate_at(2, 0, 10, 4) == pytest.approx(0.1)
    assert nb101.learning_rate_at(4, 0, 10, 4) == pytest.approx(0.0)


def test_protocol_overrides_are_checked():
    assert protocol("nb201").with_settings(["learning_rate=0.05", "nesterov=false"]).learning_rate == 0.05
    with pytest.raises(InvalidSettingError, match="batch_size"):
        protocol("nb101").replace(batch_size=0)
    with pytest.raises(UnknownNameError, match="did you mean"):
        protocol("nb101").replace(learnin_rate=0.1)
    with pytest.raises(UnknownNameError):
        protocol("nb999")
    with pytest.raises(InvalidSettingError, match="KEY=VALUE"):
        protocol("nb101").with_settings(["learning_rate"])


def test_tf_rmsprop_matches_the_tensorflow_update():
    weight = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    optimizer = TFRMSprop([weight], lr=0.2, decay=0.9, momentum=0.9, epsilon=1.0, weight_decay=1e-4)
    ms, mom, w = [1.0, 1.0], [0.0, 0.0], [1.0, -2.0]
    for gradient in ([0.5, -1.0], [0.3, 0.2]):
        weight.grad = torch.tensor(gradient)
        optimizer.step()
        for i in range(2):
            g = gradient[i] + 1e-4 * w[i]
            ms[i] = 0.9 * ms[i] + 0.1 * g * g
            mom[i] = 0.9 * mom[i] + 0.2 * g / math.sqrt(ms[i] + 1.0)
            w[i] -= mom[i]
    assert weight.detach().tolist() == pytest.approx(w, rel=1e-6)


def test_training_is_deterministic_and_learns(tmp_path):
    first = train(_network(), _data(), QUICK, seed=3, progress=False)
    second = train(_network(), _data(), QUICK, seed=3, progress=False)
    assert isinstance(first, TrainingRecord) and first.complete and len(first.epochs) == 4
    strip = [{k: v for k, v in vars(e).items() if "seconds" not in k and k != "images_per_second"}
             for e in first.epochs]
    assert strip == [{k: v for k, v in vars(e).items() if "seconds" not in k and k != "images_per_second"}
                     for e in second.epochs]
    assert first.final.train_accuracy > 0.1 and first.epochs[-1].learning_rate < first.epochs[0].learning_rate
    assert first.parameters == sum(p.numel() for p in _network().parameters()) and first.flops > 0
    assert first.halfway.epoch == 2


def test_resume_after_a_stop_equals_the_uninterrupted_run(tmp_path):
    whole = train(_network(), _data(), QUICK, seed=5, progress=False)
    stopped = train(_network(), _data(), QUICK, seed=5, out_dir=tmp_path, stop_after_epoch=2, progress=False)
    assert len(stopped.epochs) == 2 and not stopped.complete
    resumed = train(_network(), _data(), QUICK, seed=5, out_dir=tmp_path, progress=False)
    assert [e.test_loss for e in resumed.epochs] == [e.test_loss for e in whole.epochs]
    assert [e.valid_accuracy for e in resumed.epochs] == [e.valid_accuracy for e in whole.epochs]
    assert (tmp_path / "record.json").exists()
    again = train(_network(), _data(), QUICK, seed=5, out_dir=tmp_path, progress=False)  # finished: no retraining
    assert again.epochs == resumed.epochs


def test_checkpoint_of_other_settings_is_refused_and_kept(tmp_path):
    train(_network(), _data(), QUICK, seed=1, out_dir=tmp_path, stop_after_epoch=1, progress=False)
    before = (tmp_path / CHECKPOINT_FILE).read_bytes()
    with pytest.raises(InvalidSettingError, match="learning_rate"):
        train(_network(), _data(), QUICK.replace(learning_rate=0.1), seed=1, out_dir=tmp_path, progress=False)
    with pytest.raises(InvalidSettingError, match="seed"):
        train(_network(), _data(), QUICK, seed=2, out_dir=tmp_path, progress=False)
    assert (tmp_path / CHECKPOINT_FILE).read_bytes() == before
    (tmp_path / CHECKPOINT_FILE).write_bytes(b"garbage")
    with pytest.raises(DataFileError, match="not a readable"):
        train(_network(), _data(), QUICK, seed=1, out_dir=tmp_path, progress=False)


def test_bad_settings_are_refused():
    with pytest.raises(InvalidSettingError, match="epochs"):
        train(_network(), _data(), QUICK, seed=0, epochs=0)
    with pytest.raises(InvalidSettingError, match="seed"):
        train(_network(), _data(), QUICK, seed=-1)
    with pytest.raises(InvalidSettingError, match="device"):
        train(_network(), _data(), QUICK, seed=0, device="tpu")


def test_batch_norm_momentum_setting():
    assert protocol("nb101").with_settings(["batch_norm_momentum=none"]).batch_norm_momentum is None
    assert protocol("quick").batch_norm_momentum == 0.1 and protocol("quick").epochs == 3
    network = _network()
    train(network, _data(), QUICK.replace(batch_norm_momentum=0.25, epochs=1), seed=0, progress=False)
    assert network[1].momentum == 0.25


TARBALL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cifar10" / "cifar10-jpeg.tar.gz"
INCEPTION_LIKE = ('{"matrix":[[0,1,1,1,0,1,0],[0,0,0,0,0,0,1],[0,0,0,0,0,0,1],[0,0,0,0,1,0,0],[0,0,0,0,0,0,1],'
                  '[0,0,0,0,0,0,1],[0,0,0,0,0,0,0]],"ops":["input","conv1x1-bn-relu","conv3x3-bn-relu",'
                  '"conv3x3-bn-relu","conv3x3-bn-relu","maxpool3x3","output"]}')


@pytest.mark.skipif(not TARBALL.exists(), reason=f"the CIFAR-10 tarball is not at {TARBALL}")
def test_quick_nb101_run_on_real_cifar10_beats_chance():
    """The issue's quick run: 16 channels, one cell per stack, 16x16 images, 500 per class, 3 epochs."""
    import time

    from nasarena.training import build_network, load_cifar10

    data = load_cifar10(TARBALL, image_size=16, subset=500)
    network = seeded_network(lambda: build_network("nb101", INCEPTION_LIKE, stem_channels=16, cells_per_stack=1), 0)
    start = time.process_time()  # one thread: CPU time is the wall time of an unloaded core
    record = train(network, data, protocol("quick"), seed=0, progress=False)
    assert time.process_time() - start < 120
    assert record.complete and len(record.epochs) == 3
    assert record.final.test_accuracy > 0.20  # measured 0.3628 on this seed



NB201_CELL = "|nor_conv_3x3~0|+|nor_conv_3x3~0|skip_connect~1|+|skip_connect~0|none~1|avg_pool_3x3~2|"


def test_train_command_trains_resumes_and_reports_errors(tmp_path):
    import json

    from typer.testing import CliRunner

    from nasarena.cli.main import app

    folder = write_batches_folder(tmp_path)
    out = tmp_path / "run"
    arguments = ["train", "--space", "nb201", "--arch", NB201_CELL, "--epochs", "2", "--data", str(folder),
                 "--image-size", "8", "--scale", "channels=4", "--scale", "cells_per_stage=1", "--out", str(out),
                 "--set", "batch_size=64", "--device", "cpu"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    assert "parameters" in result.output and "images/s" in result.output
    record = json.loads((out / "record.json").read_text())
    assert record["complete"] and len(record["epochs"]) == 2 and record["network"]["scale"]["channels"] == 4
    again = CliRunner().invoke(app, arguments + ["--json"])  # finished: the record, no retraining
    assert json.loads(again.output)["epochs"] == record["epochs"]
    other = CliRunner().invoke(app, arguments[:-4] + ["--set", "batch_size=32"])
    assert other.exit_code == 2 and "other settings" in other.output and "batch_size" in other.output
    bad = CliRunner().invoke(app, ["train", "--space", "nb201", "--arch", "bogus", "--data", str(folder)])
    assert bad.exit_code == 2 and "does not parse" in bad.output
    bad = CliRunner().invoke(app, arguments[:-2] + ["--set", "momentun=0.5"])
    assert bad.exit_code == 2 and "momentum" in bad.output


def test_nb301_pipeline_on_a_tiny_darts_network_is_deterministic_and_resumes(tmp_path):
    """Cutout, mixup, drop path and the auxiliary head all draw from the seeded per-epoch streams."""
    from nasarena.training import build_network

    genotype = ("Genotype(normal=[('sep_conv_3x3', 0), ('skip_connect', 1), ('dil_conv_3x3', 0), ('max_pool_3x3', 2),"
                " ('avg_pool_3x3', 1), ('sep_conv_5x5', 3), ('skip_connect', 0), ('dil_conv_5x5', 4)], normal_concat="
                "[2, 3, 4, 5], reduce=[('max_pool_3x3', 0), ('max_pool_3x3', 1), ('skip_connect', 2), ('avg_pool_3x3',"
                " 0), ('sep_conv_3x3', 3), ('skip_connect', 2), ('dil_conv_3x3', 1), ('sep_conv_5x5', 4)], "
                "reduce_concat=[2, 3, 4, 5])")
    nb301 = protocol("nb301").replace(batch_size=50, cutout=4, epochs=2)

    def network():
        return seeded_network(lambda: build_network("darts", genotype, channels=4, layers=3, auxiliary=True), 0)

    data = _data(side=32, count=100)  # the auxiliary head needs 8x8 features after the second reduction
    whole = train(network(), data, nb301, seed=2, progress=False)
    twice = train(network(), data, nb301, seed=2, progress=False)
    assert [e.train_loss for e in whole.epochs] == [e.train_loss for e in twice.epochs]
    train(network(), data, nb301, seed=2, out_dir=tmp_path, stop_after_epoch=1, progress=False)
    resumed = train(network(), data, nb301, seed=2, out_dir=tmp_path, progress=False)
    assert [(e.train_loss, e.test_loss) for e in resumed.epochs] == [(e.train_loss, e.test_loss) for e in whole.epochs]
    assert whole.epochs[0].learning_rate == pytest.approx(0.025)  # NB301: cosine per epoch, from 0.025


def test_kill_during_training_then_resume_equals_the_uninterrupted_run(tmp_path):
    """``kill -9`` of ``nasarena train`` after its first epoch; resuming finishes the same run."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    from nasarena.training import build_network, load_cifar10

    folder = write_batches_folder(tmp_path)
    out = tmp_path / "run"
    arguments = [sys.executable, "-m", "nasarena.cli.main", "train", "--space", "nb201", "--arch", NB201_CELL,
                 "--epochs", "6", "--data", str(folder), "--image-size", "8", "--scale", "channels=4", "--scale",
                 "cells_per_stage=1", "--out", str(out), "--set", "batch_size=16", "--device", "cpu", "--json"]
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "NASARENA_PROGRESS": "0"}
    process = subprocess.Popen(arguments, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        # record.json is the last file an epoch writes (after checkpoint.pt): wait for it, not the checkpoint
        while not (out / "record.json").exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    killed_at = len(json.loads((out / "record.json").read_text())["epochs"])
    assert 1 <= killed_at < 6, "the run was not killed in the middle; make the run longer"

    def network():
        return seeded_network(lambda: build_network("nb201", NB201_CELL, channels=4, cells_per_stage=1), 0)

    data, nb201 = load_cifar10(folder, image_size=8), protocol("nb201").replace(batch_size=16)
    resumed = train(network(), data, nb201, seed=0, epochs=6, out_dir=out, progress=False)  # what a rerun does
    whole = train(network(), data, nb201, seed=0, epochs=6, progress=False)
    assert [e.test_loss for e in resumed.epochs] == [e.test_loss for e in whole.epochs]
    assert [e.train_accuracy for e in resumed.epochs] == [e.train_accuracy for e in whole.epochs]


def test_device_choice_and_progress_bar(capsys):
    from nasarena.training.device import pick_device

    assert pick_device("cpu").type == "cpu"
    expected = "cuda" if torch.cuda.is_available() else None
    assert pick_device(None).type == (expected or pick_device("auto").type)
    if not torch.cuda.is_available():
        with pytest.raises(InvalidSettingError, match="no CUDA GPU"):
            pick_device("cuda")
    with pytest.raises(InvalidSettingError, match="unknown device"):
        pick_device("gpu-please")
    record = train(_network(), _data(), QUICK.replace(epochs=1), seed=0, device="cpu", progress=True)
    assert record.device == "cpu" and "images/s" in capsys.readouterr().err


def test_a_gpu_computes_recorded_values_in_ieee_float32_with_deterministic_kernels_and_restores_the_settings():
    """exact_float32 on a CUDA device turns cudnn's default TF32 and algorithm timing off inside the
    block and gives the process its own settings back after (the flags are process-wide, so this
    holds without a GPU); on a CPU it changes nothing."""
    from nasarena.training.device import exact_float32

    cudnn, matmul = torch.backends.cudnn, torch.backends.cuda.matmul

    def flags():
        return cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark, matmul.allow_tf32

    before = flags()
    cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark, matmul.allow_tf32 = True, False, True, True
    try:
        with exact_float32(torch.device("cpu")):
            assert flags() == (True, False, True, True)
        with pytest.raises(RuntimeError, match="inside"):
            with exact_float32(torch.device("cuda")):
                assert flags() == (False, True, False, False)
                raise RuntimeError("inside")
        assert flags() == (True, False, True, True)
    finally:
        cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark, matmul.allow_tf32 = before
