"""torch on one intra-op thread: the same bits for every worker count, and workers that share cores.

A CPU reduction's summation order depends on torch's thread count, so a computation whose values
are recorded (a proxy table, a timing that states its thread count) runs on one thread, whatever
the process had; and a worker of a process pool takes one thread, as its siblings share the cores.
torch is imported when called, so importing this module costs nothing without the torch extra.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

#: What the fork server of a pool whose workers train imports for them (``preload=``): torch, and
#: torch._dynamo, which the first ``torch.optim`` optimizer of a process imports. Seconds each
#: (about 2 and 2 on a 2 GHz core): once per server, not once per worker; a pool that starts
#: workers per group of tasks (``oneshot tune``) paid them for every trial. Neither starts a
#: thread when imported, so forking workers after them is safe.
TORCH_MODULES = ("torch", "torch._dynamo")


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """torch on one intra-op thread inside the block; the caller's thread count restored after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def worker_on_one_thread() -> None:
    """A process pool worker's initializer: torch on one thread for the worker's lifetime."""
    import torch

    torch.set_num_threads(1)
