"""The optimizer's own CPU time, measured at a fraction of the cost of what is measured.

Reading the process CPU clock (``time.process_time``) is a system call: ~0.7 us on an idle
machine, ~3 us on a busy one, four times per evaluation, while a cheap optimizer and the whole
protocol now take a few microseconds per evaluation. A wall-clock read (``perf_counter_ns``)
costs ~0.07 us. So each call into the optimizer is timed on the wall clock, and the CPU clock
is read only once per :data:`SYNC_NS` of wall time (and at the end): the optimizer's wall time
within each such stretch becomes CPU time by the share of the stretch the process spent on a
CPU (1 on an idle machine, about 0.5 when two processes share a core). It is an estimate; where
the optimizer's time is *charged* to the simulated clock (``count_optimizer_time``) every call
is timed on the CPU clock itself, exactly, since the run then depends on each value.
"""

from __future__ import annotations

import time

import numpy as np

#: Wall time between two reads of the process CPU clock (1 ms: ~0.01 us per evaluation of a
#: cheap optimizer, and stretches long enough for the CPU clock's resolution).
SYNC_NS = 1_000_000


class OptimizerClock:
    """Times calls into the optimizer: ``read()`` before and after each, ``sync`` when ``next_sync``
    has passed; :meth:`seconds` turns the cumulative readings into cumulative CPU seconds."""

    def __init__(self, exact: bool):
        self.exact = exact
        #: The clock each call is timed on (ns): the CPU clock when exact, else the wall clock.
        self.read = time.process_time_ns if exact else time.perf_counter_ns
        self._optimizer_ns = [0]  # cumulative optimizer wall time at each sync
        self._optimizer_cpu = [0.0]  # cumulative optimizer CPU seconds at each sync
        self._wall, self._cpu = time.perf_counter_ns(), time.process_time_ns()
        self.next_sync = self._wall + SYNC_NS if not exact else float("inf")

    def resumed(self) -> None:
        """Continue in this process (a run resumed from a checkpoint): the next stretch starts now,
        on this process's clocks."""
        self._wall, self._cpu = time.perf_counter_ns(), time.process_time_ns()
        self.next_sync = self._wall + SYNC_NS if not self.exact else float("inf")

    def sync(self, optimizer_ns: int, now_ns: int) -> None:
        """Read the CPU clock: the optimizer's wall time since the last sync (``optimizer_ns`` is
        cumulative) becomes CPU time by the process's share of the CPU over the stretch."""
        cpu = time.process_time_ns()
        wall = now_ns - self._wall
        share = (cpu - self._cpu) / wall if wall > 0 else 1.0
        self._optimizer_cpu.append(self._optimizer_cpu[-1] + (optimizer_ns - self._optimizer_ns[-1]) * share * 1e-9)
        self._optimizer_ns.append(optimizer_ns)
        self._wall, self._cpu = now_ns, cpu
        self.next_sync = now_ns + SYNC_NS

    def seconds(self, optimizer_ns: np.ndarray) -> np.ndarray:
        """Cumulative CPU seconds of cumulative readings ``optimizer_ns`` (one per evaluation, the
        last being the total so far): exact readings as they are, wall readings converted
        stretch by stretch."""
        optimizer_ns = np.asarray(optimizer_ns, dtype=np.float64)
        if self.exact:
            return optimizer_ns * 1e-9
        if len(optimizer_ns) and optimizer_ns[-1] > self._optimizer_ns[-1]:
            self.sync(int(optimizer_ns[-1]), time.perf_counter_ns())
        return np.interp(optimizer_ns, self._optimizer_ns, self._optimizer_cpu)
