"""Helpers for the tests of process guarantees (workers die with their parent, Ctrl-C ends a pool):
whether processes are gone, and killing what a test started."""

from __future__ import annotations

import os
import signal
import time


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to read its status has ended)."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def gone_within(pids: set[int], seconds: float) -> bool:
    """Whether every process of ``pids`` has exited within ``seconds`` (returns as soon as they have:
    a generous limit costs nothing on an idle machine and keeps a busy one from failing the test)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(running(pid) for pid in pids):
        time.sleep(0.1)
    return not any(running(pid) for pid in pids)


def kill_all(pids: set[int]) -> None:
    """SIGKILL each of ``pids`` that still exists (cleanup after a test, whatever it left)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
