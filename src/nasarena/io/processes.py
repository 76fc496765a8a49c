"""Who wrote a lock or claim: this host and process, and whether that writer may still run."""

from __future__ import annotations

import os
import socket


def owner_text() -> str:
    """This process as a lock's owner line: ``<host> <pid>``."""
    return f"{socket.gethostname()} {os.getpid()}\n"


def owner_alive(text: str) -> bool:
    """Whether the process that wrote ``text`` (host and pid) may still be running.

    Text that is not an owner line was not written by nasarena: nobody holds it. A process on
    another machine cannot be checked, so it is respected."""
    try:
        host, pid = text.split()
        pid = int(pid)
    except ValueError:
        return False
    return host != socket.gethostname() or pid_alive(pid)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host exists (one of another user counts: it may run)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
