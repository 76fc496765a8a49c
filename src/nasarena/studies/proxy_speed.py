"""What each zero-cost proxy costs per architecture on this machine's CPU, one torch thread.

Each proxy is timed alone, as a table computes it (:func:`nasarena.estimators.compute_proxies`:
its network built at the paper's full size and scored), on a seeded sample of unique NB201 cells
(:func:`nasarena.studies.estimator_table.plan`, seed 0) and one seeded CIFAR-10 minibatch read
once beforehand (not charged, as a table does not charge it). One unmeasured pass over the first
cell comes first, so the process's one-time costs (torch's first calls, lazy imports) are not
charged to the first proxy timed.

Two times per proxy and cell: the CPU seconds of this process (``time.process_time``, which
other jobs sharing the machine move far less than wall time) and the wall seconds a table
records as ``<proxy>_seconds``. Both depend on the machine and its load, so they are timings
(recorded, never compared); what does not is which cells were timed and their parameter and
FLOP counts, the values.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ..training.threads import one_thread

SPACE = "nb201"
SEED = 0
#: Proxies whose values are counts, the same on every CPU: recorded per timed cell.
COUNTS = ("params", "flops")


def cells(count: int, seed: int = SEED) -> list[tuple[str, int]]:
    """``(text, row)`` of ``count`` seeded unique NB201 cells (a table's sample of that size)."""
    from .estimator_table import plan

    return [(text, int(row)) for text, row in plan(SPACE, count, seed, unique=True)]


def measure(proxies: Sequence[str], count: int, seed: int = SEED) -> tuple[dict[str, float], dict[str, float]]:
    """(values, timings) of timing ``proxies`` on ``count`` cells: per proxy the mean CPU and wall
    seconds per architecture (``PROXY/cpu_seconds``, ``PROXY/wall_seconds``), their sums over
    the proxies (``all/...``) and the mean of one call scoring them all (``together/...``: what
    a table pays, passes that proxies share computed once); the values are the number of cells and the counts of each cell
    (``ROW/params``, ``ROW/flops``) for the proxies among :data:`COUNTS`.

    On one torch thread (the caller's thread count restored afterwards): a table computes on one."""
    from ..estimators.compute import batch_size, compute_proxies, minibatch, proxies_named

    chosen = cells(count, seed)
    needed = batch_size(proxies_named(list(proxies)))
    images = labels = None
    if needed:
        from ..training import load_cifar10

        images, labels = minibatch(load_cifar10(), needed, seed)
    with one_thread():
        compute_proxies(SPACE, chosen[0][0], list(proxies), images=images, labels=labels, seed=seed)  # warms up
        cpu = {name: [] for name in proxies}
        wall = {name: [] for name in proxies}
        values: dict[str, float] = {"cells": float(len(chosen)), "proxies": float(len(proxies))}
        together_cpu, together_wall = [], []
        for text, row in chosen:
            for name in proxies:
                start = time.process_time()
                result = compute_proxies(SPACE, text, [name], images=images, labels=labels, seed=seed)
                cpu[name].append(time.process_time() - start)
                wall[name].append(result.seconds[name])
                if name in COUNTS:
                    values[f"{row}/{name}"] = result.values[name]
            start = time.process_time()
            result = compute_proxies(SPACE, text, list(proxies), images=images, labels=labels, seed=seed)
            together_cpu.append(time.process_time() - start)
            together_wall.append(sum(result.seconds.values()))
    timings = {}
    for name in proxies:
        timings[f"{name}/cpu_seconds"] = float(np.mean(cpu[name]))
        timings[f"{name}/wall_seconds"] = float(np.mean(wall[name]))
    timings["all/cpu_seconds"] = sum(timings[f"{name}/cpu_seconds"] for name in proxies)
    timings["all/wall_seconds"] = sum(timings[f"{name}/wall_seconds"] for name in proxies)
    timings["together/cpu_seconds"] = float(np.mean(together_cpu))
    timings["together/wall_seconds"] = float(np.mean(together_wall))
    return values, timings


#: The cheap proxies a long table is usually limited to, totalled apart under the table.
CHEAP_SET = ("params", "flops", "synflow", "naswot")


def space_counts() -> dict[str, float]:
    """NB201's cells and unique cells: what the totals under the table multiply by."""
    from ..spaces.nb201.space import NB201Space

    representatives = NB201Space().representatives()
    unique = int(np.sum(representatives == np.arange(len(representatives))))
    return {"space/cells": float(len(representatives)), "space/unique_cells": float(unique)}


def _seconds(value: float) -> str:
    return f"{value:.2f}" if value < 1 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _hours(value: float) -> str:
    return f"{value:.1f}" if value < 10 else f"{value:,.0f}"


def markdown(values: dict[str, float], timings: dict[str, float], proxies: Sequence[str]) -> str:
    """The caption, the table (CPU and wall seconds per architecture of each proxy alone and their
    sum) and the CPU hours of the whole space that one call scoring them all implies."""
    lines = [f"NB201 at full size (CIFAR-10, 32 x 32), one torch thread, seconds per architecture of each proxy "
             f"alone (its network built and scored), the mean over {values['cells']:.0f} seeded unique "
             f"cell{'s' if values['cells'] != 1 else ''} (seed {SEED}) after one unmeasured pass over the first: the CPU seconds of the process and the wall seconds a "
             "table records (inflated by other jobs sharing the machine). Load average "
             f"{timings['load_average/start']:.1f} at the start and {timings['load_average/end']:.1f} at the end, on "
             f"{timings['cores']:.0f} cores (the machine is named below):", "",
             "| | " + " | ".join(proxies) + " | sum |", "|---|" + "---:|" * (len(proxies) + 1)]
    for label, kind in (("CPU s", "cpu"), ("wall s", "wall")):
        lines.append(f"| {label} | " + " | ".join(_seconds(timings[f"{name}/{kind}_seconds"])
                                                   for name in [*proxies, "all"]) + " |")
    every = timings["together/cpu_seconds"]
    sharing = _sharing(proxies)
    sentence = ("Scored together in one call, as a table computes them"
                + (f" ({sharing} read one pass, computed once)" if sharing else "")
                + f", they take {_seconds(every)} CPU s per architecture: all "
                f"{len(proxies)} proxies of the {values['space/cells']:,.0f} NB201 cells about "
                f"{_hours(every * values['space/cells'] / 3600)} CPU-hours on one thread "
                f"({_hours(every * values['space/unique_cells'] / 3600)} for the "
                f"{values['space/unique_cells']:,.0f} unique ones)")
    cheap = [name for name in CHEAP_SET if name in proxies]
    if 2 <= len(cheap) < len(proxies):
        subset = sum(timings[f"{name}/cpu_seconds"] for name in cheap)
        sentence += (f"; {', '.join(cheap[:-1])} and {cheap[-1]} alone about "
                     f"{_hours(subset * values['space/cells'] / 3600)}")
    return "\n".join(lines + ["", sentence + "."])


def _sharing(proxies: Sequence[str]) -> str:
    """The proxies among ``proxies`` that share a pass, in words (``grad_norm, snip and fisher``)."""
    from ..estimators import PROXIES

    groups: dict[str, list[str]] = {}
    for name in proxies:
        shared = getattr(PROXIES[name], "shared_pass", "")
        if shared:
            groups.setdefault(shared, []).append(name)
    named = [", ".join(members[:-1]) + " and " + members[-1] for members in groups.values() if len(members) > 1]
    return "; ".join(named)
