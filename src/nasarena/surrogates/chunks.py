"""Model-path batches of a surrogate, chunk by chunk on a thread pool.

A batch the prediction table cannot answer (the DARTS and FBNet spaces have none) is encoded
and walked through every tree of the ensemble and the runtime model: ~10 us of CPU per
architecture with five XGBoost members, most of it in XGBoost's own predictor, which is already
near a compiled walk per tree (measured in ``bench/bench_surrogate.py --large-spaces``). So the
remaining lever is the machine's other cores: the batch is cut into chunks predicted on a thread
pool. XGBoost's and LightGBM's predictors release the GIL (XGBoost documents prediction as
thread-safe), so one chunk's forest walk overlaps another's encoding, and every row's prediction
depends on that row alone, so the answer is the same, bit for bit, whatever the chunking.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

#: Architectures per chunk: large enough that the per-call costs of the predictors vanish,
#: small enough that a 100,000-architecture batch keeps several threads busy.
CHUNK_ROWS = 8_192
#: More threads than this gain little (the encoding holds the GIL) and crowd a shared machine.
MAX_THREADS = 8

T = TypeVar("T")


def available_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else the CPU count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def map_chunks(function: Callable[[Sequence], T], items: Sequence, threads: int | None = None,
               chunk_rows: int | None = None) -> list[T]:
    """``function`` of consecutive chunks of ``items`` (a list or an array; ``CHUNK_ROWS`` each by
    default), in order, on up to ``threads`` threads (default: the available cores, at most
    ``MAX_THREADS``); a batch of one chunk, or one thread, runs in the calling thread."""
    chunk_rows = chunk_rows or CHUNK_ROWS
    chunks = [items[start:start + chunk_rows] for start in range(0, len(items), chunk_rows)]
    threads = min(len(chunks), threads or min(available_cores(), MAX_THREADS))
    if threads <= 1:
        return [function(chunk) for chunk in chunks]
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="nasarena-surrogate") as pool:
        return list(pool.map(function, chunks))
