"""The one training core of issue 30 (point 2): ``nasarena train``'s loop and the one-shot search
run their epochs in :mod:`nasarena.training.epochs`, resume exactly after a stop, are refused a
folder of other settings by the same code, and the search's one-shot validation error is the
score ``nasarena oneshot correlate`` gives the same architecture on the same supernet.

Real CIFAR-10 at a tiny scale (8 x 8 images and 10 per class for the training loop; the one-shot
tests' 16 x 16 and 20 per class, 4 channels, one cell per stack, Random-WS), one torch thread.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

torch = pytest.importorskip("torch")

from nasarena.errors import DataFileError, InvalidSettingError  # noqa: E402
from nasarena.oneshot import quick_settings  # noqa: E402
from nasarena.oneshot.lookup import Nb101Lookup  # noqa: E402
from nasarena.oneshot.run import CHECKPOINT_FILE as SEARCH_CHECKPOINT  # noqa: E402
from nasarena.oneshot.run import run_search, snapshot_path  # noqa: E402
from nasarena.oneshot.scoring import correct_predictions  # noqa: E402
from nasarena.oneshot.search import fixed_validation_batches  # noqa: E402
from nasarena.oneshot.supernet import PathWeights, Supernet  # noqa: E402
from nasarena.spaces.oneshot import OneShotArch  # noqa: E402
from nasarena.studies.oneshot_correlation import Task, score_task  # noqa: E402
from nasarena.training.checkpoint import CHECKPOINT_FILE as TRAINING_CHECKPOINT  # noqa: E402
from nasarena.training.epochs import EpochRecord  # noqa: E402
from nasarena.training.loop import seeded_network, train  # noqa: E402
from nasarena.training.protocols import protocol  # noqa: E402

SPACE = "nb1shot1-1"
SEARCH = {"cells_per_stack": 1, "subset": 20, "epochs": 2, "snapshot_every": 1, "samples": 4, "finalists": 1}
TRAINING = protocol("nb101").replace(batch_size=32, epochs=2)


def _cifar10(**options):
    from nasarena.training.data import load_cifar10

    try:
        return load_cifar10(**options)
    except DataFileError as error:  # the shared data is not on every machine
        pytest.skip(f"CIFAR-10 not available: {error}")


@pytest.fixture(scope="module")
def small():
    torch.set_num_threads(1)
    return _cifar10(image_size=8, subset=10)


@pytest.fixture(scope="module")
def oneshot_data():
    torch.set_num_threads(1)
    return _cifar10(image_size=16, subset=20)


@pytest.fixture(scope="module")
def lookup():
    return Nb101Lookup(SPACE)


@pytest.fixture(scope="module")
def whole_search(tmp_path_factory, oneshot_data, lookup):
    """A whole two-epoch Random-WS run that kept both epochs' supernets: its folder and records."""
    run_dir = tmp_path_factory.mktemp("search") / "whole"
    return run_dir, _search(run_dir, oneshot_data, lookup)


def _network():
    def build():
        return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                   torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 10))

    return seeded_network(build, 0)


def _unmeasured(records) -> list[dict]:
    """The records without the measured times (everything else must match exactly)."""
    return [{k: v for k, v in r.to_dict().items() if not k.endswith("seconds") and k != "images_per_second"}
            for r in records]


def _search(run_dir, data, lookup, seed=0, **changes):
    return run_search(quick_settings("random-ws", SPACE, **{**SEARCH, **changes}), seed, run_dir, data=data,
                      lookup=lookup)


def test_both_users_records_are_the_one_epoch_record():
    from nasarena.oneshot.records import SearchEpochRecord
    from nasarena.training.loop import TrainingEpochRecord

    for record in (TrainingEpochRecord, SearchEpochRecord):
        assert issubclass(record, EpochRecord)
        assert [f.name for f in dataclasses.fields(record)][0] == "epoch"  # the files' first column, as before


def test_training_resumes_exactly_after_a_stop(tmp_path, small):
    whole = train(_network(), small, TRAINING, seed=3, progress=False)
    stopped = train(_network(), small, TRAINING, seed=3, out_dir=tmp_path, stop_after_epoch=1, progress=False)
    assert [e.epoch for e in stopped.epochs] == [1]
    record_after_stop = (tmp_path / "record.json").read_bytes()
    assert [e["epoch"] for e in json.loads(record_after_stop)["epochs"]] == [1]
    (tmp_path / "record.json").unlink()  # a kill between the checkpoint and the record
    train(_network(), small, TRAINING, seed=3, out_dir=tmp_path, stop_after_epoch=1, progress=False)
    assert (tmp_path / "record.json").read_bytes() == record_after_stop  # written again from the checkpoint
    resumed = train(_network(), small, TRAINING, seed=3, out_dir=tmp_path, progress=False)
    assert _unmeasured(resumed.epochs) == _unmeasured(whole.epochs)
    assert resumed.epochs[0] == stopped.epochs[0]  # the stopped epoch comes back from the checkpoint, times too


def test_search_resumes_exactly_after_a_stop(tmp_path, oneshot_data, lookup, whole_search):
    whole_dir, whole = whole_search
    settings = quick_settings("random-ws", SPACE, **SEARCH)
    stopped = run_search(settings, 0, tmp_path / "part", data=oneshot_data, lookup=lookup, stop_after_epoch=1)
    assert [r.epoch for r in stopped] == [1]
    resumed = _search(tmp_path / "part", oneshot_data, lookup)
    assert _unmeasured(resumed) == _unmeasured(whole)
    assert resumed[0] == stopped[0]
    # the supernet after the last epoch, bit for bit
    final = [torch.load(snapshot_path(folder, 2), weights_only=True)["supernet"] for folder in (whole_dir, tmp_path / "part")]
    assert final[0].keys() == final[1].keys()
    assert all(torch.equal(final[0][k], final[1][k]) for k in final[0])


def _refused_by_the_core(excinfo) -> str:
    """The message, after checking it was raised by the core's one refusal."""
    assert excinfo.traceback[-1].name == "refuse_other_settings"
    assert excinfo.traceback[-1].path.name == "epochs.py"
    return str(excinfo.value)


def test_a_folder_of_other_settings_is_refused_by_the_same_code_for_both(tmp_path, small, oneshot_data, lookup):
    train(_network(), small, TRAINING, seed=1, out_dir=tmp_path / "train", stop_after_epoch=1, progress=False)
    kept = (tmp_path / "train" / TRAINING_CHECKPOINT).read_bytes()
    with pytest.raises(InvalidSettingError) as excinfo:
        train(_network(), small, TRAINING.replace(learning_rate=0.1), seed=2, out_dir=tmp_path / "train",
              progress=False)
    message = _refused_by_the_core(excinfo)
    assert f"{tmp_path / 'train'} was started with other settings (" in message
    assert "protocol.learning_rate: 0.2 -> 0.1" in message and "seed: 1 -> 2" in message
    assert "its finished epochs are kept" in message
    assert (tmp_path / "train" / TRAINING_CHECKPOINT).read_bytes() == kept

    settings = quick_settings("random-ws", SPACE, **SEARCH)
    run_search(settings, 0, tmp_path / "search", data=oneshot_data, lookup=lookup, stop_after_epoch=1)
    kept = (tmp_path / "search" / SEARCH_CHECKPOINT).read_bytes()
    with pytest.raises(InvalidSettingError) as excinfo:
        run_search(settings.replace(channels=8), 5, tmp_path / "search", data=oneshot_data, lookup=lookup)
    message = _refused_by_the_core(excinfo)
    assert f"{tmp_path / 'search'} was started with other settings (" in message
    assert "channels: 4 -> 8" in message and "seed: 0 -> 5" in message
    assert "its finished epochs are kept" in message
    assert (tmp_path / "search" / SEARCH_CHECKPOINT).read_bytes() == kept


def test_the_search_validation_error_is_correlates_score(oneshot_data, whole_search):
    """The epoch's one-shot validation error (the whole fixed validation split) and correlate's
    score of that epoch's architecture on that epoch's kept supernet, on as many batches: one count."""
    run_dir, records = whole_search
    settings = quick_settings("random-ws", SPACE, **SEARCH)
    batches = fixed_validation_batches(oneshot_data, settings.batch_size)
    total = sum(len(labels) for _, labels in batches)
    for record in records:
        scores, _ = score_task(Task(run_dir, record.epoch, (record.architecture,), len(batches), None, "cpu"))
        assert round(float(scores[0]) * total) == round((1.0 - record.valid_error) * total)


def test_the_score_does_not_depend_on_the_batch_norm_momentum(oneshot_data, whole_search):
    """Why the two old treatments (the search left the momentum at NB101's 0.003, correlate set
    it to 0) agreed: with batch statistics the momentum only moves the unread running averages."""
    run_dir, records = whole_search
    settings = quick_settings("random-ws", SPACE, **SEARCH)
    batches = fixed_validation_batches(oneshot_data, settings.batch_size)
    path = PathWeights.of_architecture(OneShotArch.from_string(records[0].architecture))
    counts = []
    for momentum in (None, 0.0):
        supernet = Supernet(SPACE, settings.channels, settings.stacks, settings.cells_per_stack)
        supernet.load_state_dict(torch.load(snapshot_path(run_dir, 1), weights_only=True)["supernet"])
        for module in supernet.modules():
            if isinstance(module, torch.nn.BatchNorm2d) and momentum is not None:
                module.momentum = momentum
        counts.append(int(correct_predictions(supernet, path, batches)))
    assert counts[0] == counts[1]
    assert 0 < counts[0] < sum(len(labels) for _, labels in batches)
