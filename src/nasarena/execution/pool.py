"""One way to run a set of independent, resumable tasks: in this process, on local worker
processes, or as Ray tasks.

:func:`run_tasks` is the contract every family of work in nasarena runs on (experiments, data
collection, one-shot searches, their scoring and tuning):

- A **task** is a tuple of picklable arguments; ``function(*task)`` computes it. ``function``
  is a module-level function (workers import it by name) and returns a picklable result, or
  ``None`` when it writes its own output (the task is resumable because its output says it is
  done, so a task cut short is simply run again by the next call).
- ``on_done(task, result)`` is called **in the calling process** as each task finishes, in
  the order they finish, with the very tuple object of ``tasks``.
- ``jobs <= 1`` or a single task: every task runs **in this process**, in order (no worker to
  start; Ctrl-C and errors behave as in any Python call). ``backend="ray"`` always runs Ray
  tasks (:mod:`.ray`).
- Otherwise ``jobs`` **worker processes** of a fork server (:mod:`.workers`): the main process
  is never forked, so threads of libraries it loaded (XGBoost's OpenMP, torch) cannot deadlock
  a worker, and a CUDA context in it does not pass to one. At most ``2 * jobs`` tasks are
  submitted at a time, in the order given. Workers ignore SIGINT and exit when the main process
  dies (even by ``kill -9``) or when the pool stops them.
- **Ctrl-C** (``KeyboardInterrupt`` in the calling process) stops the workers at once, in the
  middle of their tasks; queued tasks never start; tasks already passed to ``on_done`` are
  kept; the interrupt is raised again.
- A task's **error** cancels the queued tasks (none starts after it); the running ones finish
  and go to ``on_done``; then the first error is raised (with the worker's traceback as its
  cause). On Ray it is raised at once. An error in this process (of ``on_done`` or
  ``progress``) stops the workers at once, as Ctrl-C does, and is raised.
- **Progress**: with ``progress``, a task may call the function :func:`reporter` returns to
  send a picklable message; ``progress(message)`` is called in this process (directly when the
  task runs here, otherwise from a queue read at least every ``PROGRESS_INTERVAL`` seconds).
  The messages of a task reach ``progress`` before ``on_done`` is told it finished. Ray tasks
  report nothing.
- ``initializer``: a module-level function each worker process calls once before its first
  task (one torch thread, say); not called for tasks run in this process.
- ``preload``: modules the fork server imports once for every worker it starts (see
  :func:`.workers.context`).
- ``gpu_per_task``: on Ray, one GPU per task where the cluster has GPUs.

Claims (:mod:`nasarena.io.claims`, a file-system primitive below this layer) keep two processes that
share a folder from computing one task twice.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from typing import Any

from ..errors import InvalidSettingError
from .workers import context, die_with_parent

BACKENDS = ("process", "ray")
PROGRESS_INTERVAL = 0.5  # seconds between two reads of the progress queue

#: Where :func:`reporter` sends from this process: the pool's progress queue in a worker, the
#: caller's ``progress`` while tasks run in this process, None when nobody listens.
_send: Callable[[Any], None] | None = None
#: In a worker: the pool's event set when a task has failed (queued tasks are then skipped).
_cancelled = None


def reporter() -> Callable[[Any], None] | None:
    """For a running task: the function that passes a message to ``run_tasks(progress=...)``,
    or None when the caller asked for no progress (so a task can skip preparing messages)."""
    return _send


def runs_here(count: int, jobs: int, backend: str = "process") -> bool:
    """Whether :func:`run_tasks` runs ``count`` tasks in this process (else on other processes,
    which load what the tasks need themselves)."""
    return backend != "ray" and (jobs <= 1 or count <= 1)


def run_tasks(function: Callable[..., Any], tasks: Sequence[tuple], jobs: int,
              on_done: Callable[[tuple, Any], None], *, backend: str = "process",
              progress: Callable[[Any], None] | None = None, gpu_per_task: bool = False,
              initializer: Callable[[], None] | None = None, preload: Sequence[str] = ()) -> None:
    """Run ``function(*task)`` for every task and pass each result to ``on_done(task, result)``
    as it finishes; see the module docstring for the contract."""
    if backend not in BACKENDS:
        raise InvalidSettingError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    tasks = list(tasks)
    if backend == "ray":
        from .ray import run_on_ray

        run_on_ray(function, tasks, jobs, on_done, gpu_per_task=gpu_per_task)
    elif runs_here(len(tasks), jobs, backend):
        _run_here(function, tasks, on_done, progress)
    else:
        _run_on_processes(function, tasks, jobs, on_done, progress, initializer, tuple(preload))


def _run_here(function, tasks: list[tuple], on_done, progress) -> None:
    global _send
    before, _send = _send, progress
    try:
        for task in tasks:
            on_done(task, function(*task))
    finally:
        _send = before


def _run_on_processes(function, tasks: list[tuple], jobs: int, on_done, progress, initializer,
                      preload: tuple[str, ...]) -> None:
    server = context(preload)
    # written by the task itself (no feeder thread): its messages are in the pipe before its result
    messages = server.SimpleQueue() if progress is not None else None
    # The stop signal is a pipe, not an Event: Event.set() waits until every process sleeping in
    # wait() has woken, so one worker that died while its watchdog waited (a pool broken by a
    # worker killed at start-up) made set() block for ever. Writing a byte never waits.
    stop, stop_signal = server.Pipe(duplex=False)
    cancelled = server.Event()  # nobody waits on it (workers only read is_set()), so set() never blocks
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=server, initializer=_start_worker,
                               initargs=(messages, os.getpid(), stop, cancelled, initializer))
    try:
        _feed(pool, function, tasks, jobs, on_done, messages, progress, cancelled)
    except BaseException:
        # Ctrl-C, or on_done failed: the workers exit now, in the middle of their tasks (a
        # resumable task leaves nothing half-written visible, and the next call runs it again);
        # the finished tasks are kept. (A task's error is raised by _feed once the others end.)
        stop_signal.send_bytes(b"stop")
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # queued tasks never start
        stop_signal.close()
        stop.close()


def _feed(pool: ProcessPoolExecutor, function, tasks: list[tuple], jobs: int, on_done, messages, progress,
          cancelled) -> None:
    """Keep ``2 * jobs`` tasks submitted until every task has finished or one has failed."""
    remaining = iter(tasks)
    running: dict[Future, tuple] = {pool.submit(_call, function, task): task for task in islice(remaining, 2 * jobs)}
    error: BaseException | None = None
    while running:
        done, _ = wait(running, timeout=PROGRESS_INTERVAL if messages is not None else None,
                       return_when=FIRST_COMPLETED)
        _drain(messages, progress)
        for future in done:
            task = running.pop(future)
            if future.cancelled() or (future.exception() is None and future.result() is _Skipped):
                continue
            if future.exception() is not None:
                if error is None:
                    error = future.exception()
                    cancelled.set()  # a worker skips the tasks it takes from now on
                    for queued in running:
                        queued.cancel()  # those still in this process are dropped at once
                continue
            on_done(task, future.result())
            following = next(remaining, None) if error is None else None
            if following is not None:
                running[pool.submit(_call, function, following)] = following
    if error is not None:
        raise error


class _Skipped:
    """The result of a queued task that a worker did not start because another task failed."""


def _call(function, task: tuple):
    """In a worker: ``function(*task)``, unless a task of the pool has failed.

    A failing task sets the pool's flag itself, before its error travels back: had it waited
    for the caller to read the error and set it, this worker could already have taken and
    started the next queued task (seen on a busy machine: a 30-second task after the error)."""
    if _cancelled is not None and _cancelled.is_set():
        return _Skipped
    try:
        return function(*task)
    except BaseException:
        if _cancelled is not None:
            _cancelled.set()
        raise


def _drain(messages, progress) -> None:
    """Pass every message waiting in the queue on to ``progress``."""
    while messages is not None and not messages.empty():
        progress(messages.get())


def _start_worker(messages, main_pid: int, stop, cancelled, initializer) -> None:
    """Worker initializer: exit with the parent or the main process ``main_pid``, or when the
    pool writes to (or closes) the pipe end ``stop``; send progress to ``messages``; skip tasks once ``cancelled`` is set;
    then the caller's ``initializer``.

    A Ctrl-C in a terminal reaches every process of the group; the workers ignore it, so that
    the main process alone decides how the work ends (a worker that caught it would end its
    task and take the next queued one, and the caller would wait for that one)."""
    global _send, _cancelled
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(main_pid=main_pid, stop=stop)
    _cancelled = cancelled
    if messages is not None:
        _send = messages.put
    if initializer is not None:
        initializer()
