"""Progress on stderr: a bar with an ETA for ``run``, a spinner for other long steps.

Shown only to a person watching: when stderr is a terminal and no ``CI`` variable is set
(``NASARENA_PROGRESS=0`` turns it off, ``=1`` forces it on). Piped or logged output stays
free of control characters, and stdout only ever holds results.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def progress_wanted() -> bool:
    setting = os.environ.get("NASARENA_PROGRESS")
    if setting is not None:
        return setting not in ("0", "", "false", "no")
    return sys.stderr.isatty() and not os.environ.get("CI")


def _console():
    from rich.console import Console

    return Console(stderr=True)


@contextmanager
def spinner(description: str) -> Iterator[None]:
    """A spinner with the elapsed time while the block runs (removed when it ends)."""
    if not progress_wanted():
        yield
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=_console(),
                  transient=True) as progress:
        progress.add_task(description, total=None)
        yield


class RunProgress:
    """The bar of ``nasarena run``: finished runs plus the budget share of running ones, with an ETA.

    ``advance_run`` is told a run's share of its budget from time to time (see
    ``run_experiment(on_progress=...)``) and ``finish_run`` its end, so a few long runs show
    progress too, not only once each ends.
    """

    def __init__(self, total: int) -> None:
        self.total = total
        self.finished: set = set()
        self.shares: dict = {}
        self._progress = None
        self._task = None

    def __enter__(self) -> RunProgress:
        if progress_wanted() and self.total:
            from rich.progress import (
                BarColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(TextColumn("runs"), BarColumn(), TaskProgressColumn(), TextColumn("{task.fields[done]}"),
                                      TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                      console=_console(), transient=False)
            self._progress.__enter__()
            self._task = self._progress.add_task("runs", total=self.total, done=f"0/{self.total} done")
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def advance_run(self, spec, share: float) -> None:
        if spec.file_name in self.finished:
            return  # a late message of a run that has ended
        self.shares[spec.file_name] = max(share, self.shares.get(spec.file_name, 0.0))
        self._show()

    def finish_run(self, spec) -> None:
        self.finished.add(spec.file_name)
        self.shares.pop(spec.file_name, None)
        self._show()

    @property
    def completed(self) -> float:
        return len(self.finished) + sum(self.shares.values())

    def _show(self) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=self.completed, done=f"{len(self.finished)}/{self.total} done")
