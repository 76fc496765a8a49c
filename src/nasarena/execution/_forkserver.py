"""Imported by the fork server of nasarena's pools first when it starts (and by nothing else): the
server exits with the main process, so its workers, which die with it, never outlive the command
that started them.

No watchdog thread here: the server forks every worker, and forking a threaded process is what
:mod:`.workers` avoids. The modules a pool's workers need are imported once by the server
after this one (``context(preload=...)``).
"""

from .workers import die_with_parent

die_with_parent(watchdog=False)
