"""Claims of tasks, so that several processes sharing one folder never compute one task twice
(the runs of experiments writing into one folder, the trainings of a live benchmark's store).

Before a process computes a run it creates ``runs/.claim-<run file name>.lock`` holding its host
and process id. The claim appears with its content in one step (written to a private file first,
then hard-linked to the claim's name, which fails if the name exists), so a claim is never seen
empty: an empty claim read as "writer died" let two processes hold one claim. Another process
that finds the claim leaves the run alone while its owner is alive, and takes it over once the
owner is gone (a ``kill -9`` leaves a claim behind; it is stale, not binding). Temporary files
carry their writer's pid too, so start-up clean-up deletes only the partial files of dead writers.

A file-system primitive (files, their owners), so it sits in ``io`` with the locks' owner lines
(:mod:`.processes`): the execution layer's experiments and the live benchmark's store, a layer
below it, both claim through it.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import OutputError
from .processes import owner_alive, owner_text

CLAIM_PREFIX = ".claim-"
PARTIAL_PREFIX = ".partial-"


def _claim_path(directory: Path, name: str) -> Path:
    return Path(directory) / f"{CLAIM_PREFIX}{name}.lock"  # never matching a reader's "*.parquet"


def claim(directory: Path, name: str) -> bool:
    """Take run ``name`` for this process; False while another live process holds it."""
    path = _claim_path(directory, name)
    mine = path.with_name(f"{PARTIAL_PREFIX}{socket.gethostname()}-{os.getpid()}-{path.name}")
    try:
        mine.write_text(owner_text())
        for _ in range(2):
            try:
                os.link(mine, path)  # atomic: the claim exists only with its owner written in it
                return True
            except FileExistsError:
                pass
            try:
                stale = os.stat(path)
                owner = path.read_text()
            except FileNotFoundError:
                continue  # released meanwhile: try again
            if owner == owner_text():
                return True
            if owner_alive(owner):
                return False
            _remove_if_unchanged(path, stale)  # its writer is gone
        return False
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        mine.unlink(missing_ok=True)


def _remove_if_unchanged(path: Path, stale: os.stat_result) -> None:
    """Delete a stale claim unless another process has replaced it since it was read (each
    claim is a new file, so its inode tells)."""
    try:
        if os.stat(path).st_ino == stale.st_ino:
            path.unlink()
    except FileNotFoundError:
        pass


def release(directory: Path, name: str) -> None:
    """Give up the claim of run ``name`` (after its file is written, or when it failed)."""
    path = _claim_path(directory, name)
    try:
        if path.read_text() == owner_text():
            path.unlink()
    except FileNotFoundError:
        pass


@contextmanager
def held(directory: Path, name: str, poll_seconds: float = 0.05) -> Iterator[None]:
    """Wait for the claim of ``name`` and hold it for the ``with`` block: a read-modify-write of one
    shared file (settings, saved rows, a page and its record) that two processes must not interleave,
    or one would drop the other's update."""
    while not claim(directory, name):
        time.sleep(poll_seconds)
    try:
        yield
    finally:
        release(directory, name)


def partial_prefix() -> str:
    """Prefix of this process's temporary files (``.partial-<host>-<pid>-``)."""
    return f"{PARTIAL_PREFIX}{socket.gethostname()}-{os.getpid()}-"


def remove_stale_partials(directory: Path) -> None:
    """Delete the temporary files whose writer on this host is gone; leave every other file."""
    host = socket.gethostname()
    for path in Path(directory).glob(f"{PARTIAL_PREFIX}{host}-*-*"):
        pid = path.name[len(PARTIAL_PREFIX) + len(host) + 1:].split("-", 1)[0]
        if pid.isdigit() and not owner_alive(f"{host} {pid}"):
            try:
                path.unlink()
            except OSError:
                pass  # a read-only folder: nothing to clean, nothing lost


def remove_stale_claims(directory: Path) -> None:
    """Delete the claims whose owner on this host is gone (a ``kill -9`` leaves its claims
    behind, also on runs it finished); leave live owners', other hosts' and foreign files."""
    host = socket.gethostname()
    for path in Path(directory).glob(f"{CLAIM_PREFIX}*.lock"):
        try:
            stale = os.stat(path)
            owner = path.read_text()
        except OSError:
            continue
        fields = owner.split()
        if len(fields) == 2 and fields[0] == host and fields[1].isdigit() and not owner_alive(owner):
            try:
                _remove_if_unchanged(path, stale)
            except OSError:
                pass  # a read-only folder: nothing to clean, nothing lost
