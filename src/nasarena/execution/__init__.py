"""One way to run a set of resumable tasks on local processes or Ray.

:func:`run_tasks` (:mod:`.pool`, where its contract is written) runs tasks in this process, on
worker processes of a fork server that die with their parent and stop at once on Ctrl-C
(:mod:`.workers`), or as Ray tasks (:mod:`.ray`); the claims of :mod:`nasarena.io.claims` keep two
processes sharing a folder from computing one task twice.
"""

from .pool import BACKENDS, reporter, run_tasks, runs_here

__all__ = ["BACKENDS", "reporter", "run_tasks", "runs_here"]
