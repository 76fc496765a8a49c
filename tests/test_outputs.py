"""The one rule for output folders and files (``nasarena.io.outputs``): nasarena writes only into
a new or empty folder or one it marked for the same command, and a second writer with other
settings is refused, at once or after the first one finished."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys

import pytest

from nasarena.errors import OutputError
from nasarena.io.outputs import MARK_FILE, own_folder, writer_lock


def test_a_new_or_empty_folder_is_marked_and_accepted_again_with_equal_settings(tmp_path):
    folder = own_folder(tmp_path / "a" / "b", "train", {"seed": 0, "arch": (1, 2)})
    mark = json.loads((folder / MARK_FILE).read_text())
    assert mark == {"command": "train", "settings": {"seed": 0, "arch": [1, 2]}}
    (folder / "record.json").write_text("{}")
    assert own_folder(folder, "train", {"arch": [1, 2], "seed": 0}) == folder  # key order, tuple/list
    empty = tmp_path / "empty"
    empty.mkdir()
    own_folder(empty, "report")
    assert (empty / MARK_FILE).exists()


def test_foreign_files_a_file_another_command_and_other_settings_are_refused_and_kept(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "record.json").write_text("my own notes")
    with pytest.raises(OutputError, match="did not write there.*record.json"):
        own_folder(mine, "train")
    assert (mine / "record.json").read_text() == "my own notes" and not (mine / MARK_FILE).exists()
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("chapter 1")
    with pytest.raises(OutputError, match="is a file"):
        own_folder(thesis, "analyze")
    with pytest.raises(OutputError, match="cannot create"):
        own_folder(thesis / "sub", "analyze")
    assert thesis.read_text() == "chapter 1"
    trained = own_folder(tmp_path / "run", "train", {"seed": 0, "epochs": 3})
    with pytest.raises(OutputError, match="nasarena train"):
        own_folder(trained, "supernet evaluate")
    with pytest.raises(OutputError, match=r"\(seed differ\)"):
        own_folder(trained, "train", {"seed": 1, "epochs": 3})


def test_a_folder_of_an_earlier_nasarena_is_recognised_by_its_files(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "settings.json").write_text("{}")
    own_folder(old, "oneshot run", {"x": 1}, recognised=["settings.json"])
    assert (old / MARK_FILE).exists()


def _own(folder, value, queue):
    try:
        own_folder(folder, "oneshot run", {"learning_rate": value})
        queue.put("accepted")
    except OutputError as error:
        queue.put(f"refused: {error}")


def test_of_two_writers_starting_at_once_with_other_settings_exactly_one_is_refused(tmp_path):
    context = multiprocessing.get_context("spawn")
    for attempt in range(5):
        folder, queue = tmp_path / f"race-{attempt}", context.Queue()
        workers = [context.Process(target=_own, args=(folder, value, queue)) for value in (0.05, 0.2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        answers = sorted(queue.get(timeout=10) for _ in workers)
        assert answers[0] == "accepted" and answers[1].startswith("refused") and "learning_rate" in answers[1]


def test_the_writer_lock_refuses_other_settings_while_held_and_is_taken_over_from_a_killed_writer(tmp_path):
    target = tmp_path / "data.parquet"
    with writer_lock(target, {"strategies": ["rs"]}):
        with pytest.raises(OutputError, match="being written right now"):
            with writer_lock(target, {"strategies": ["re"]}):
                pass
        with writer_lock(target, {"strategies": ["rs"]}):  # the same settings write the same content
            pass
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock = tmp_path / ".data.parquet.nasarena-writer"
    lock.write_text(json.dumps({"owner": f"{os.uname().nodename} {dead.stdout.strip()}", "settings": "x"}))
    with writer_lock(target, {"strategies": ["re"]}):
        assert json.loads(lock.read_text())["owner"].endswith(str(os.getpid()))
    assert not lock.exists()


def test_release_unused_takes_back_only_a_bare_mark(tmp_path):
    from nasarena.io.outputs import release_unused

    bare = own_folder(tmp_path / "bare", "oneshot run", {"x": 1})
    release_unused(bare)
    assert list(bare.iterdir()) == []
    used = own_folder(tmp_path / "used", "oneshot run", {"x": 1})
    (used / "records.jsonl").write_text("{}\n")
    release_unused(used)
    assert (used / MARK_FILE).exists()
