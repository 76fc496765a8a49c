"""Imported by the runner's fork server when it starts (and by nothing else): the server exits
with the main process, so its workers, which die with it, never outlive an experiment.

No watchdog thread here: the server forks every worker, and forking a threaded process is
what :mod:`.workers` avoids. The modules the workers need are imported once, here.
"""

from . import experiment  # noqa: F401  (preloaded for the forked workers)
from .workers import die_with_parent

die_with_parent(watchdog=False)
