"""The execution layer (issue 30, point 1): the contract of :func:`nasarena.execution.run_tasks`,
and its guarantees: Ctrl-C ends the work at once keeping what finished, and the workers never
outlive a killed main process. The same guarantees for each family of work on the layer, through
its command: ``tests/test_kill_families.py``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nasarena.errors import InvalidSettingError
from nasarena.execution import reporter, run_tasks, runs_here
from process_helpers import gone_within, kill_all


def _nap(seconds: float, value: int) -> tuple[int, int]:
    time.sleep(seconds)
    return value * value, os.getpid()


def _fail_or_nap(folder: Path, seconds: float, value: int) -> tuple[int, int]:
    """Task ``value`` marks that it started; a negative one fails once task 2 has started."""
    (folder / f"started-{value}").touch()
    if value < 0:
        deadline = time.monotonic() + 30
        while not (folder / "started-2").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        raise ValueError(f"task {value} fails")
    return _nap(seconds, value)


def _chatty(value: int, messages: int) -> int:
    send = reporter()
    for index in range(messages):
        if send is not None:
            send((value, index))
    return value


def _collect(done: list):
    return lambda task, result: done.append((task, result))


def test_results_go_to_on_done_as_tasks_finish_whatever_their_order():
    tasks = [(1.5, 1), (0.0, 2), (0.0, 3), (0.0, 4), (0.0, 5)]
    done: list = []
    run_tasks(_nap, tasks, 2, _collect(done))
    assert sorted(result[0] for _, result in done) == [1, 4, 9, 16, 25]
    assert all(any(task is given for given in tasks) for task, _ in done)  # the caller's own tuples
    assert all(task[1] ** 2 == result[0] for task, result in done)
    assert done[-1][0] is tasks[0]  # the slow first task finishes last
    assert os.getpid() not in {pid for _, (_, pid) in done}  # on worker processes


def test_one_job_or_one_task_runs_in_this_process_in_order():
    done: list = []
    run_tasks(_nap, [(0.0, 3), (0.0, 2)], 1, _collect(done))
    assert [result for _, result in done] == [(9, os.getpid()), (4, os.getpid())]
    done.clear()
    run_tasks(_nap, [(0.0, 7)], 4, _collect(done))
    assert done == [((0.0, 7), (49, os.getpid()))]
    messages: list = []
    run_tasks(_chatty, [(1, 2)], 1, lambda task, result: messages.append("done"), progress=messages.append)
    assert messages == [(1, 0), (1, 1), "done"]
    assert reporter() is None  # nothing listens once the tasks are done
    assert runs_here(1, 4) and runs_here(5, 1) and not runs_here(5, 2) and not runs_here(1, 1, "ray")
    with pytest.raises(InvalidSettingError, match="backend"):
        run_tasks(_nap, [(0.0, 1)], 1, _collect(done), backend="dask")


def test_progress_of_a_task_arrives_before_it_is_done():
    events: list = []
    run_tasks(_chatty, [(value, 20) for value in range(4)], 2,
              lambda task, result: events.append(("done", result)), progress=events.append)
    for value in range(4):
        assert [e for e in events if e[0] == value] == [(value, index) for index in range(20)]
        assert events.index((value, 19)) < events.index(("done", value))


def test_a_worker_error_is_raised_after_the_running_tasks_finish(tmp_path):
    done: list = []
    with pytest.raises(ValueError, match="task -1 fails"):
        run_tasks(_fail_or_nap, [(tmp_path, 0.0, -1), (tmp_path, 1.0, 2),
                                 *[(tmp_path, 30.0, value) for value in range(3, 9)]], 2, _collect(done))
    assert [(task[1:], result[0]) for task, result in done] == [((1.0, 2), 4)]  # the running task was passed on
    assert not list(tmp_path.glob("started-[3-9]"))  # no queued task started after the error
    with pytest.raises(ValueError, match="task -1 fails"):
        run_tasks(_fail_or_nap, [(tmp_path, 0.0, 2), (tmp_path, 0.0, -1)], 1, _collect(done))  # here: at once


_SCRIPT = """
import os, sys, time
from pathlib import Path

from nasarena.execution import run_tasks


def task(folder, index, seconds):
    Path(folder, f"pid-{index}").write_text(str(os.getpid()))
    time.sleep(seconds)
    return index


if __name__ == "__main__":
    folder = sys.argv[1]
    tasks = [(folder, 0, 0.0), *[(folder, index, 1e6) for index in range(1, 5)]]
    run_tasks(task, tasks, 2, lambda task, result: Path(folder, f"done-{result}").write_text(""))
"""


def _wait_for(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds  # the machine running the suite may be busy
    while time.monotonic() < deadline and not condition():
        time.sleep(0.05)
    assert condition()


def _start_endless(folder: Path) -> subprocess.Popen:
    script = folder / "endless.py"
    script.write_text(_SCRIPT)
    return subprocess.Popen([sys.executable, str(script), str(folder)], start_new_session=True,
                            stderr=subprocess.PIPE)


def _worker_pids(folder: Path) -> set[int]:
    return {int(path.read_text()) for path in folder.glob("pid-*") if path.read_text()}


def test_ctrl_c_stops_the_workers_at_once_and_keeps_finished_tasks(tmp_path):
    process = _start_endless(tmp_path)
    try:
        # task 0 done, tasks 1 and 2 running on the two workers, tasks 3 and 4 queued
        _wait_for(lambda: (tmp_path / "done-0").exists() and len(list(tmp_path.glob("pid-*"))) >= 3)
        workers = _worker_pids(tmp_path)
        time.sleep(0.3)
        start = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)  # as Ctrl-C in a terminal: to every process of the group
        _, stderr = process.communicate(timeout=30)
        assert time.monotonic() - start < 10
    finally:
        kill_all({process.pid} | _worker_pids(tmp_path))
    assert process.returncode != 0 and b"KeyboardInterrupt" in stderr
    assert len(workers) == 2 and gone_within(workers, 30)
    assert [path.name for path in tmp_path.glob("done-*")] == ["done-0"]
    assert not (tmp_path / "pid-3").exists() and not (tmp_path / "pid-4").exists()  # queued: never started


def test_workers_exit_when_the_main_process_is_killed(tmp_path):
    process = _start_endless(tmp_path)
    try:
        _wait_for(lambda: len(list(tmp_path.glob("pid-*"))) >= 3)
        workers = _worker_pids(tmp_path)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert len(workers) == 2 and gone_within(workers, 30)
    finally:
        kill_all({process.pid} | _worker_pids(tmp_path))


def test_a_worker_dying_at_start_up_fails_the_pool_instead_of_hanging_it(tmp_path):
    """A worker that dies in its initializer, after its watchdog started waiting for the stop
    signal, breaks the pool: run_tasks raises and the command ends. (With a multiprocessing
    Event as the stop signal, Event.set() waited for the dead sleeper for ever.)"""
    import subprocess
    import sys
    import textwrap

    script = tmp_path / "dies.py"
    script.write_text(textwrap.dedent("""
        import os, time
        from nasarena.execution import run_tasks

        def die():
            time.sleep(0.2)  # the watchdog is waiting by now
            os._exit(3)

        def square(x):
            return x * x

        if __name__ == "__main__":
            try:
                run_tasks(square, [(i,) for i in range(8)], 2, lambda task, result: None, initializer=die)
            except Exception as error:
                print("raised", type(error).__name__)
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert "raised BrokenProcessPool" in done.stdout, done.stdout + done.stderr
