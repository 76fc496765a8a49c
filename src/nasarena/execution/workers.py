"""Worker processes that are safe with threaded libraries and never outlive their parent.

Workers are started with ``forkserver`` (``spawn`` where that is missing), never with a plain
``fork`` of the main process: a fork copies the parent's memory but not its threads, so a
library that started a thread pool in the parent (XGBoost's OpenMP team, loaded with a
surrogate model) deadlocks in the child. Each worker loads the benchmarks it needs itself.

A worker also exits when its parent dies (``kill -9`` of ``nasarena run``): on Linux the kernel
sends it SIGKILL (``PR_SET_PDEATHSIG``), and everywhere a watchdog thread notices that its
parent process changed. The fork server outlives the main process on its own, so it too is
armed with ``PR_SET_PDEATHSIG`` when it starts.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence

from ..io.processes import pid_alive

WATCHDOG_INTERVAL = 1.0  # seconds between two checks of the parent
_PR_SET_PDEATHSIG = 1


def context(preload: Sequence[str] = ()):
    """The multiprocessing context of every pool of nasarena. The fork server (the workers'
    parent) imports :mod:`._forkserver` first, which ties its life to the main process too, then
    the modules ``preload`` names, so that each worker starts with them imported (modules that
    start no threads when imported). The server starts once per process: its first pool's
    ``preload`` stays."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    server = multiprocessing.get_context("forkserver")
    server.set_forkserver_preload([f"{__package__}._forkserver", *preload])
    return server


def _gone(pid: int | None) -> bool:
    return pid is not None and not pid_alive(pid)


def die_with_parent(watchdog: bool = True, main_pid: int | None = None, stop=None) -> None:
    """Make this process exit as soon as its parent, or the process ``main_pid`` (the experiment
    whose work it does), is gone. ``watchdog``: also from a thread that polls them, for systems
    without ``PR_SET_PDEATHSIG`` and for a parent that died before the signal was armed.
    ``stop``: the reading end of a pipe; the watchdog exits this process the moment something
    is written to it or its writer is gone (how an interrupted experiment ends its workers in the
    middle of a run). A pipe rather than an Event, because ``Event.set`` blocks while a process
    that died in ``wait`` is still counted as sleeping."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still applies
    if os.getppid() != parent or _gone(main_pid):  # died before the signal was armed
        os._exit(1)
    if not watchdog:
        return

    def watch() -> None:
        while True:
            if stop is None:
                time.sleep(WATCHDOG_INTERVAL)
            elif stop.poll(WATCHDOG_INTERVAL):
                os._exit(1)  # a partial file left by a write cut short is named after this pid: cleaned up on resume
            if os.getppid() != parent or _gone(main_pid):
                os._exit(1)

    threading.Thread(target=watch, name="nasarena-parent-watchdog", daemon=True).start()
