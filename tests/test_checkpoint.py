"""A run killed midway resumes from its checkpoint (runner.checkpoint): the resumed run's rows are
those of the run never stopped, on the anytime presets' real runs (SMAC racing on three trials,
RE with caching, irace on the variable-size encoding), in this process and after ``kill -9``; a
checkpoint of another run or of other code is ignored, but not one whose only changed code the run
never imported; a finished run leaves none behind."""

from __future__ import annotations

import dataclasses
import io
import math
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from nasarena.runner import checkpoint as checkpoints
from nasarena.runner.checkpoint import Checkpoint
from nasarena.runner.experiment import CHECKPOINTS_DIR, _benchmark, execute, load_results, run_experiment
from nasarena.runner.protocol import Budget
from nasarena.studies.anytime_presets import PRESETS
from nasarena.testing import StoppedAfterSave, stop_after_save

MEASURED = ["optimizer_cpu_time"]


def preset_spec(preset: str, optimizer: str, seconds: float, seed: int = 3):
    [spec] = PRESETS[preset].specs(seeds=[seed], optimizers=[optimizer])
    return dataclasses.replace(spec, budget=Budget(seconds=seconds))


@pytest.mark.parametrize(("preset", "optimizer", "seconds", "at"), [
    ("anytime-O", "smac", 3e5, 150),  # the intensifier racing new configurations on three trials
    ("anytime-CVS", "smac", 3e5, 150),  # the variable-size encoding's conditions, with caching
    ("anytime-C", "re", 1e6, 2_000),  # caching: the cache and the events in flight are state too
    ("anytime-VS", "irace", 5e5, 300),  # races over the variable-size encoding
])
def test_a_run_resumed_from_its_checkpoint_is_the_run_never_stopped(tmp_path, preset, optimizer, seconds, at):
    spec = preset_spec(preset, optimizer, seconds)
    whole = execute(spec)
    path = tmp_path / "run.pickle"
    with pytest.raises(StoppedAfterSave):
        execute(spec, checkpoint=stop_after_save(path, spec.file_name, at))
    assert path.is_file()
    resumed = execute(spec, checkpoint=Checkpoint(path, spec.file_name, interval=math.inf))
    assert len(whole) > 100
    pd.testing.assert_frame_equal(resumed.drop(columns=MEASURED), whole.drop(columns=MEASURED))


def _stopped_run(tmp_path):
    """A short RE run stopped right after its checkpoint: its spec, checkpoint file and shared objects."""
    spec = preset_spec("anytime-C", "re", 2e5)
    path = tmp_path / "run.pickle"
    with pytest.raises(StoppedAfterSave):
        execute(spec, checkpoint=stop_after_save(path, spec.file_name, 50))
    bench = _benchmark(spec.benchmark)
    return spec, path, {"benchmark": bench, "space": bench.space}


def test_a_checkpoint_of_another_run_or_other_code_is_ignored(tmp_path, monkeypatch):
    spec, path, shared = _stopped_run(tmp_path)
    assert Checkpoint(path, spec.file_name).load(shared) is not None
    other = dataclasses.replace(spec, seed=4)
    assert Checkpoint(path, other.file_name).load(shared) is None  # another run's
    monkeypatch.setattr(checkpoints, "source_digest", lambda files: "other code")
    assert Checkpoint(path, spec.file_name).load(shared) is None  # the same run, other code
    path.write_bytes(b"not a pickle")
    monkeypatch.undo()
    assert Checkpoint(path, spec.file_name).load(shared) is None  # unreadable: a lost head start only
    pd.testing.assert_frame_equal(execute(spec, checkpoint=Checkpoint(path, spec.file_name)).drop(columns=MEASURED),
                                  execute(spec).drop(columns=MEASURED))


def test_only_a_change_to_code_the_run_imported_discards_its_checkpoint(tmp_path, monkeypatch):
    spec, path, shared = _stopped_run(tmp_path)
    (key, files, digest), _ = checkpoints._Unpickler(io.BytesIO(path.read_bytes()), shared).load()
    assert key == spec.file_name and {"runner/protocol.py", "runner/checkpoint.py"} <= set(files)
    package = sorted(file.relative_to(checkpoints._PACKAGE).as_posix() for file in checkpoints._PACKAGE.rglob("*.py"))
    never_imported = [file for file in package if file not in files]
    assert never_imported and len(files) < len(package)
    monkeypatch.setitem(checkpoints._FILE_DIGESTS, never_imported[0], "edited")  # as if read after an edit
    assert Checkpoint(path, spec.file_name).load(shared) is not None
    monkeypatch.setitem(checkpoints._FILE_DIGESTS, "runner/protocol.py", "edited")
    assert Checkpoint(path, spec.file_name).load(shared) is None


_SCRIPT = """
import dataclasses, sys
from pathlib import Path
from nasarena.runner import checkpoint
from nasarena.runner.experiment import run_experiment
from nasarena.runner.protocol import Budget
from nasarena.studies.anytime_presets import PRESETS
from nasarena.testing import StoppedAfterSave, stop_after_save
checkpoint.INTERVAL_SECONDS = 0.5
[spec] = PRESETS["anytime-O"].specs(seeds=[3], optimizers=["smac"])
run_experiment([dataclasses.replace(spec, budget=Budget(seconds=float(sys.argv[2])))], Path(sys.argv[1]), jobs=1)
"""


def test_kill_9_midway_then_resume_gives_the_uninterrupted_run_and_no_checkpoint_is_left(tmp_path):
    seconds = 6e5
    out = tmp_path / "out"
    command = [sys.executable, "-c", _SCRIPT, str(out), str(seconds)]
    process = subprocess.Popen(command, start_new_session=True)
    folder = out / CHECKPOINTS_DIR
    deadline = time.monotonic() + 120
    while not any(folder.glob("*.pickle")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before its first checkpoint: give it a larger budget"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not any((out / "runs").glob("[!.]*.parquet"))  # killed midway: no run file yet
    subprocess.run(command, check=True, timeout=300)
    resumed = load_results(out)
    spec = preset_spec("anytime-O", "smac", seconds)
    whole = execute(spec)
    pd.testing.assert_frame_equal(resumed.drop(columns=["benchmark", "optimizer", "settings_hash", "seed", "setup"],
                                               errors="ignore").reset_index(drop=True),
                                  whole.drop(columns=[*MEASURED, "benchmark", "optimizer", "settings_hash", "seed",
                                                      "setup"], errors="ignore").reset_index(drop=True),
                                  check_dtype=False, check_categorical=False)
    assert not any(folder.glob("*"))  # the finished run's checkpoint is deleted
    run_experiment([spec], out, jobs=1)  # nothing left to do: no checkpoint appears
    assert not any(folder.glob("*"))


def test_a_state_that_does_not_pickle_or_a_file_that_cannot_be_written_never_stops_the_run(tmp_path):
    saver = Checkpoint(tmp_path / "run.pickle", "a run", interval=0.0)
    with pytest.warns(RuntimeWarning, match="does not pickle"):
        saver.save((lambda: None,), {})
    assert saver.failed and not saver.path.exists() and not saver.due()
    (tmp_path / "a file").write_text("not a folder")
    saver = Checkpoint(tmp_path / "a file" / "run.pickle", "a run", interval=0.0)
    with pytest.warns(RuntimeWarning, match="cannot be written"):
        saver.save((1, 2), {})
    assert saver.failed and not saver.due()
