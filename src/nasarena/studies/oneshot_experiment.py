"""Many searches at once: optimizers x seeds, each in ``<out>/<optimizer>/seed-<n>``, on processes
or as Ray tasks (a GPU each where the cluster has GPUs).

Every search is resumable on its own (:mod:`.run`), so rerunning the same command after a crash
continues where each one stopped. All run directories are checked before any folder is made, so
a changed setting is refused up front; then :func:`run_jobs` claims the experiment folder and
every run directory (:func:`claim`) before any search starts, so a file, an unwritable folder or
a second experiment with other settings started at the same time into the same folder is
refused before any work, and no run directory mixes two runs. The searches are tasks of
:func:`nasarena.execution.run_tasks`: worker processes come from a fork server (the main process,
whose torch thread pools would not survive a fork, is never forked), each search gets
``threads`` intra-op threads, and Ctrl-C stops the workers at once (each search resumes from its
last checkpoint).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import NasarenaError, import_extra
from ..execution import BACKENDS as BACKENDS  # where searches run (the CLI offers them)
from ..execution import reporter, run_tasks
from ..io.outputs import MARK_FILE, own_folder, release_unused
from ..oneshot.names import OPTIMIZERS
from ..oneshot.records import SearchEpochRecord as EpochRecord
from ..oneshot.run import RUN_COMMAND, check_run_dir, claim_run_dir
from ..oneshot.settings import SearchSettings
from ..training.threads import TORCH_MODULES


@dataclass(frozen=True)
class Job:
    """One search of the grid."""

    settings: SearchSettings
    seed: int
    run_dir: Path

    @property
    def experiment_dir(self) -> Path:
        """The experiment folder (``--out``) holding this job's ``<optimizer>/seed-<n>``."""
        return self.run_dir.parent.parent


def plan(settings: Sequence[SearchSettings], seeds: Sequence[int], out_dir: str | Path) -> list[Job]:
    """The grid's jobs, every run directory checked against its settings (nothing is written)."""
    jobs = [Job(s, seed, Path(out_dir) / s.optimizer / f"seed-{seed}") for s in settings for seed in seeds]
    for job in jobs:
        check_run_dir(job.run_dir, job.settings, job.seed)
    return jobs


def run_jobs(jobs: Sequence[Job], *, data_path: str | None = None, workers: int = 1, threads: int = 1,
             device: str | None = None, progress: Callable[[Job, EpochRecord], None] | None = None,
             backend: str = "process") -> None:
    """Run every job to its last epoch; with ``workers > 1`` on that many processes, or each as a
    Ray task with ``backend="ray"`` (``BACKENDS``). Every folder is claimed first (:func:`claim`).
    ``progress(job, record)`` after each epoch (on Ray, after each search: its last epoch).
    Without torch it is refused before any folder is claimed, so nothing is written."""
    import_extra("torch", "the one-shot search")
    claim(jobs)

    def finished(task: tuple, records: list[EpochRecord]) -> None:
        if backend == "ray" and progress is not None and records:  # Ray tasks report no epochs
            progress(task[0], records[-1])

    run_tasks(_run, [(job, data_path, threads, device) for job in jobs], workers, finished, backend=backend,
              progress=(lambda message: progress(*message)) if progress is not None else None, gpu_per_task=True,
              preload=(__name__, *TORCH_MODULES))


def claim(jobs: Sequence[Job]) -> None:
    """Make every experiment folder and run directory of ``jobs`` theirs, before any work.

    An experiment folder may hold several optimizers and seeds, so it is claimed for the command
    alone; one written before the mark existed is known by its optimizer folders. Each run
    directory is claimed with its settings and seed (:func:`~.run.claim_run_dir`)."""
    for folder in dict.fromkeys(job.experiment_dir for job in jobs):
        own_folder(folder, RUN_COMMAND, recognised=list(OPTIMIZERS))
    marked_now = []
    try:
        for job in jobs:
            new = not (job.run_dir / MARK_FILE).exists()
            claim_run_dir(job.run_dir, job.settings, job.seed)
            if new:
                marked_now.append(job.run_dir)
    except NasarenaError:
        for folder in marked_now:  # refused on a later folder: those marked here stay free for other runs
            release_unused(folder)
        raise


def _run(job: Job, data_path: str | None, threads: int, device: str | None) -> list[EpochRecord]:
    import torch

    from ..oneshot.run import run_search

    send = reporter()
    torch.set_num_threads(max(1, threads))
    return run_search(job.settings, job.seed, job.run_dir, data_path=data_path, device=device,
                      progress=(lambda record: send((job, record))) if send is not None else None)
