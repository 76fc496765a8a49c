"""SMAC3's intensifier for one objective and no problem instances: challengers raced against the incumbent.

SMAC3 2.x (``smac.intensifier.Intensifier`` with ``max_config_calls`` > 1, the anytime paper's
SMAC with repeated evaluations) evaluates a configuration on up to ``max_config_calls`` seeds.
It draws those seeds once, and with a single instance its shuffles keep their order, so every
configuration is evaluated on the same seeds in the same order; here a seed is its position, a
*key* ``0 .. max_config_calls - 1`` (which training trial a key stands for is the benchmark's
draw). What follows is SMAC3's loop and incumbent update, specialised to that case (one
objective: one incumbent; the Pareto front of two configurations keeps the challenger only when
its mean cost is strictly lower):

* **the loop** (:meth:`Intensifier._next`): while no queued configuration is idle (none queued,
  or all have trials running), the incumbent gets one more key if it has one left and is idle,
  and the configuration selector adds a new configuration to the queue with ``N = 1``.
  Otherwise the first idle configuration in the queue is dropped if it was rejected or is the
  incumbent, or else runs on the incumbent's finished keys it has not covered, up to ``N`` keys
  in all, and goes back to the queue with ``2 N`` while ``N < max_config_calls``.
* **the incumbent update** (:meth:`Intensifier.tell`, after every result): the first result makes
  its configuration the incumbent. A configuration whose keys are all among the incumbent's is
  rejected unless its mean cost on them is below the incumbent's mean on the same keys; once it
  covers all the incumbent's keys it replaces the incumbent if its mean is strictly lower (the
  old incumbent is then rejected), else it is rejected. Rejected configurations leave the queue.

``tests/test_smac_intensifier.py`` drives SMAC3's own ``Intensifier`` and this one with the same
costs and checks that they ask for the same trials in the same order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Loop passes without a new trial before giving up (SMAC3's ``retries``).
RETRIES = 16
#: The two continuations of the loop (:meth:`Intensifier._next`).
_NEW_CONFIGURATION, _RACE = "new configuration", "race"


class Intensifier:
    """Which configuration to evaluate on which key next; configurations are integer ids that
    ``new_config()`` hands out (SMAC's configuration selector)."""

    def __init__(self, max_config_calls: int, new_config: Callable[[], int]):
        self.max_config_calls = max_config_calls
        self._new_config = new_config
        self.incumbent: int | None = None
        self._costs: dict[int, dict[int, float]] = {}  # finished: configuration -> key -> cost
        self._running: dict[int, set[int]] = {}  # configuration -> keys with a trial running
        self._rejected: set[int] = set()
        self._queue: list[tuple[int, int]] = []  # (configuration, N)
        # what the loop does at the next call: propose a new configuration, or hand out the rest of
        # a configuration's keys of this round (then requeue it); None: start the loop afresh
        self._continuation: tuple | None = None

    def next_trial(self) -> tuple[int, int]:
        """The next (configuration, key) to evaluate; it counts as running until told."""
        configuration, key = self._next()
        self._running.setdefault(configuration, set()).add(key)
        return configuration, key

    def tell(self, configuration: int, key: int, cost: float) -> None:
        """A finished trial: record its cost and update the incumbent."""
        running = self._running[configuration]
        running.discard(key)
        if not running:
            del self._running[configuration]
        self._costs.setdefault(configuration, {})[key] = cost
        self._update_incumbent(configuration)

    # -- SMAC3's loop ----------------------------------------------------------------------------
    def _next(self) -> tuple[int, int]:
        """SMAC3's ``Intensifier.__iter__`` for one objective and one instance (see the module),
        one trial per call. SMAC3's loop is a generator; here what it does after each trial it
        hands out waits in ``_continuation`` until the next call (after the trial's result may
        have come in, as with the generator), so that the intensifier is plain data: it pickles
        with the optimizer into a run's checkpoint."""
        continuation, self._continuation = self._continuation, None
        if continuation is not None:
            if continuation[0] == _NEW_CONFIGURATION:
                self._queue.append((self._new_config(), 1))
            else:
                _, entry, keys = continuation
                if keys:
                    self._continuation = (_RACE, entry, keys[1:])
                    return entry[0], keys[0]
                self._requeue(entry)
        fails = -1
        while True:
            fails += 1
            if fails > RETRIES:
                raise RuntimeError("SMAC's intensifier found no new trial to run")
            incumbent = self.incumbent
            if all(configuration in self._running for configuration, _ in self._queue):
                if incumbent is not None and incumbent not in self._running and incumbent not in self._rejected:
                    key = next((k for k in range(self.max_config_calls) if not self._covers(incumbent, k)), None)
                    if key is not None:
                        self._continuation = (_NEW_CONFIGURATION,)
                        return incumbent, key
                self._queue.append((self._new_config(), 1))
                fails = -1
                continue
            for entry in list(self._queue):
                configuration, calls = entry
                if configuration in self._running:
                    continue
                if configuration in self._rejected or configuration == incumbent:
                    self._queue.remove(entry)
                    continue
                allowed = range(self.max_config_calls) if incumbent is None else sorted(self._costs[incumbent])
                covered = sum(1 for k in allowed if self._covers(configuration, k))
                keys = [k for k in allowed if not self._covers(configuration, k)]
                if len(keys) > calls - covered:
                    keys = keys[: calls - covered]  # as SMAC3 slices (a negative bound drops from the end)
                if keys:
                    self._continuation = (_RACE, entry, keys[1:])
                    return configuration, keys[0]
                if self._requeue(entry):
                    fails = -1
                break

    def _requeue(self, entry: tuple[int, int]) -> bool:
        """After a configuration's trials of this round: out of the queue, and back with twice the
        trials while it may have more; whether it went back."""
        configuration, calls = entry
        self._queue.remove(entry)
        if calls < self.max_config_calls and (configuration, 2 * calls) not in self._queue:
            self._queue.append((configuration, 2 * calls))
            return True
        return False

    def _covers(self, configuration: int, key: int) -> bool:
        """Whether ``configuration`` has a finished or running trial on ``key``."""
        return key in self._costs.get(configuration, ()) or key in self._running.get(configuration, ())

    # -- SMAC3's incumbent update ------------------------------------------------------------------
    def _mean(self, configuration: int, keys) -> float:
        costs = self._costs[configuration]
        return float(np.mean([costs[k] for k in sorted(keys)]))  # SMAC3's average_cost, bit for bit

    def _update_incumbent(self, configuration: int) -> None:
        incumbent = self.incumbent
        if incumbent is None:
            self.incumbent = configuration
            return
        keys, incumbent_keys = set(self._costs[configuration]), set(self._costs[incumbent])
        if keys <= incumbent_keys and not self._mean(configuration, keys) < self._mean(incumbent, keys):
            self._rejected.add(configuration)  # dominated on the keys it has
        if not incumbent_keys <= keys:
            return  # not comparable yet: the configuration lacks some of the incumbent's keys
        if configuration == incumbent:
            self._rejected.discard(configuration)
        elif self._mean(configuration, keys) < self._mean(incumbent, incumbent_keys):
            self._rejected.add(incumbent)
            self._rejected.discard(configuration)
            self.incumbent = configuration
        else:
            self._rejected.add(configuration)
