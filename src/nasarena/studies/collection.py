"""Collecting surrogate training data as NAS-Bench-301 did: random samples plus optimizer trajectories.

NB301 (Sec. 3, Appendix C) trained architectures that random search and several NAS optimizers
proposed, so that the data covers both the whole space and its good regions. :func:`collect`
does the same with the live benchmark (:mod:`nasarena.benchmarks.live`): ``n`` architectures are
shared out evenly over the strategies (``rs`` for random samples, any registered optimizer such
as ``re`` or ``bananas`` for trajectories); each strategy's share is split into streams of at
most ``trajectory`` evaluations (one optimizer run, or one batch of random samples, seeded by
the collection seed, the strategy and the stream number), and the streams are tasks of
:func:`nasarena.execution.run_tasks`, on processes or as Ray tasks (a GPU each where the cluster
has GPUs). An evaluation counts when its architecture is new to the stream; an optimizer
that proposes one it has seen is told the stored result again.

Output: one row per trained architecture, in exactly the columns ``nasarena surrogate fit``
reads (:mod:`nasarena.surrogates.data`): ``arch`` (the space's text form), ``valid_accuracy``,
``test_accuracy``, ``cost_seconds``, ``source`` (the strategy), ``fidelity``; plus
``train_accuracy``, ``parameters``, ``seed``, ``stream`` and ``evaluation`` (its place in the
stream). An architecture that two streams both trained is kept once (the first stream's row).

Resumable: every trained architecture is in the live benchmark's store, so running the same
collection again replays the streams (deterministically) at no training cost and goes on
where it stopped; a larger ``n`` extends it. The Parquet file is rewritten atomically after
every finished stream, and carries its settings and ``n``: a file made with other settings (or
not by ``collect``) is refused, never overwritten. A smaller ``n`` than the file's is refused
too and the file kept: rows already collected (maybe days of training) are never dropped, and
a clear refusal serves better than quietly keeping more rows than were asked for; a smaller
collection goes to another output.

One writer per settings: a collection holds the output's writer lock
(:func:`nasarena.io.outputs.writer_lock`, carrying its settings and ``n``) from before the
existing file is checked until it is written for the last time, so a second collection into
the same file with other settings, started while the first runs, is refused as it would be
after. Two with equal settings may run at once (they write the same rows). ``out`` must be a
file in a writable folder; both are checked before anything trains.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InvalidArchitectureError, InvalidSettingError, OutputError, unknown_name
from ..execution import BACKENDS, run_tasks
from ..io.outputs import writer_lock
from ..io.settings_parquet import read_settings as read_parquet_settings
from ..io.settings_parquet import write_with_settings
from ..training.threads import TORCH_MODULES

METADATA_KEY = b"nasarena-collect"
COLUMNS = ("arch", "valid_accuracy", "test_accuracy", "cost_seconds", "source", "fidelity", "train_accuracy",
           "parameters", "seed", "stream", "evaluation")
#: An optimizer that keeps proposing architectures its stream has seen stops after this many
#: proposals per evaluation asked for.
MAX_PROPOSALS_PER_EVALUATION = 50
#: What a worker needs to train: imported once by the fork server (torch alone takes seconds).
TRAINING_MODULES = (__name__, "nasarena.benchmarks.live", "nasarena.training.networks", "nasarena.training.loop",
                    "nasarena.training.data", *TORCH_MODULES)


@dataclass(frozen=True)
class Stream:
    """One seeded optimizer run (or batch of random samples) of ``count`` evaluations."""

    strategy: str
    index: int
    count: int

    @property
    def name(self) -> str:
        return f"{self.strategy}-{self.index}"


def plan(strategies: Sequence[str], n: int, trajectory: int) -> list[Stream]:
    """``n`` evaluations shared evenly over ``strategies`` (the first ones take the remainder),
    each share cut into streams of ``trajectory`` evaluations (the last one shorter)."""
    streams = []
    for position, strategy in enumerate(strategies):
        share = n // len(strategies) + (1 if position < n % len(strategies) else 0)
        for index, start in enumerate(range(0, share, trajectory)):
            streams.append(Stream(strategy, index, min(trajectory, share - start)))
    return streams


def check_strategies(strategies: Sequence[str]) -> None:
    from ..optimizers.base import REGISTRY

    if not strategies:
        raise InvalidSettingError("collect needs at least one strategy, e.g. rs,re,bananas")
    for strategy in strategies:
        if strategy not in REGISTRY:
            raise unknown_name("collection strategy (optimizer)", strategy, REGISTRY)
        if REGISTRY[strategy].multi_fidelity:
            raise InvalidSettingError(f"strategy {strategy!r} is multi-fidelity; collection trains every "
                                      "architecture at the highest fidelity, so use single-fidelity optimizers")
    if len(set(strategies)) != len(strategies):
        raise InvalidSettingError(f"strategies {', '.join(strategies)}: each may be named once")


def collect(live_options: dict, strategies: Sequence[str], n: int, out: Path, *, seed: int = 0,
            trajectory: int = 100, jobs: int = 1, backend: str = "process",
            on_stream: Callable[[Stream, int], None] | None = None) -> pd.DataFrame:
    """Collect ``n`` architectures into the Parquet file ``out`` (see the module docstring).

    ``live_options`` are the live benchmark's options (space, data, protocol, scale knobs,
    store...); ``on_stream(stream, rows so far)`` is called after every finished stream.
    """
    strategies = list(strategies)
    check_strategies(strategies)
    for name, value, low in (("n", n, 1), ("trajectory", trajectory, 1), ("jobs", jobs, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidSettingError(f"collect {name}={value!r} must be a whole number >= {low}")
    if backend not in BACKENDS:
        raise unknown_name("collection backend", backend, BACKENDS)
    out = Path(out)
    if out.is_dir():
        raise OutputError(f"--out {out} is a folder; collect writes one Parquet file: name a file, e.g. "
                          f"{out / 'collection.parquet'}")
    bench = _benchmark(_frozen(live_options))  # checks every option before anything is trained
    settings = {"live_settings_hash": bench.settings_hash, "live_settings": bench.settings,
                "training_seed": bench.seed, "strategies": strategies, "seed": seed, "trajectory": trajectory}
    recorded = {**settings, "n": n}  # what the file records, and the writer lock carries
    with writer_lock(out, recorded):  # placing the lock proves the folder writable, too
        _check_existing(out, settings, n)
        return _run(live_options, plan(strategies, n, trajectory), out, seed, recorded, jobs=jobs, backend=backend,
                    on_stream=on_stream)


def _run(live_options: dict, streams: list[Stream], out: Path, seed: int, settings: dict, *, jobs: int,
         backend: str, on_stream) -> pd.DataFrame:
    """Evaluate ``streams``, rewriting ``out`` (recording ``settings``) after each finished one;
    all their rows."""
    finished: dict[Stream, list[dict]] = {}

    def done(stream: Stream, rows: list[dict]) -> None:
        finished[stream] = rows
        frame = _frame([finished[s] for s in streams if s in finished])
        _write(out, frame, {**settings, "complete": len(finished) == len(streams)})
        if on_stream is not None:
            on_stream(stream, len(frame))

    arguments = [(_frozen(live_options), stream, seed) for stream in streams]
    run_tasks(run_stream, arguments, jobs, lambda argument, rows: done(argument[1], rows), backend=backend,
              gpu_per_task=True, preload=TRAINING_MODULES)
    return _frame([finished[s] for s in streams])


def run_stream(live_options: tuple, stream: Stream, seed: int) -> list[dict]:
    """Evaluate one stream with the live benchmark (in this process); its rows in order."""
    from ..optimizers.base import Observation, make

    bench = _benchmark(live_options)
    space = bench.space
    generator = np.random.default_rng([seed, zlib.crc32(stream.strategy.encode()), stream.index])
    optimizer = make(stream.strategy, space, seed=generator)
    fidelity = bench.fidelities[-1]
    rows: list[dict] = []
    seen: set[str] = set()
    for _ in range(stream.count * MAX_PROPOSALS_PER_EVALUATION):
        if len(rows) == stream.count:
            break
        trial = optimizer.ask()
        try:
            result = bench.query(trial.arch, fidelity)
        except InvalidArchitectureError:
            optimizer.tell(trial, Observation(0.0, 0.0, valid=False))
            continue
        optimizer.tell(trial, Observation(result.valid_accuracy, result.cost_seconds))
        identity = space.identity(trial.arch)
        if identity in seen:
            continue
        seen.add(identity)
        rows.append({"arch": space.to_text(trial.arch), "valid_accuracy": result.valid_accuracy,
                     "test_accuracy": result.test_accuracy, "cost_seconds": result.cost_seconds,
                     "source": stream.strategy, "fidelity": result.fidelity, "train_accuracy": result.train_accuracy,
                     "parameters": result.trainable_parameters, "seed": bench.seed, "stream": stream.name,
                     "evaluation": len(rows), "_identity": identity})
    return rows


def read_settings(out: Path) -> dict | None:
    """The settings a collection file was written with; None if it has none (not ours)."""
    return read_parquet_settings(out, METADATA_KEY)


def _check_existing(out: Path, settings: dict, n: int) -> None:
    """Refuse an existing ``out`` that this collection must not rewrite: not ours, other
    settings, or a larger ``n`` (see the module docstring)."""
    if not out.exists():
        return
    stored = read_settings(out)
    if stored is None:
        raise OutputError(f"{out} exists and was not written by `nasarena collect`; it is kept: choose another --out")
    differing = sorted(key for key in settings if stored.get(key) != settings[key])
    if differing:
        raise OutputError(f"{out} was collected with other settings ({', '.join(differing)} differ); it is kept: "
                          "use the same settings to resume or extend it (n may grow), or another --out")
    if n < stored.get("n", 0):
        import pyarrow.parquet as pq

        state = "" if stored.get("complete") else ", not yet complete"
        raise OutputError(f"{out} holds a collection of n={stored['n']} ({pq.read_metadata(out).num_rows:,} "
                          f"architectures{state}); n={n} is smaller and would drop rows already collected, so it "
                          f"is kept: use n={stored['n']} or more to resume or extend it, or another --out for a "
                          "smaller collection")


def _frame(parts: list[list[dict]]) -> pd.DataFrame:
    rows = [row for part in parts for row in part]
    frame = pd.DataFrame(rows, columns=list(COLUMNS) + ["_identity"])
    frame = frame.drop_duplicates(subset=["_identity", "fidelity"], keep="first")
    return frame.drop(columns="_identity").reset_index(drop=True)


def _write(out: Path, frame: pd.DataFrame, settings: dict) -> None:
    write_with_settings(out, frame, settings, METADATA_KEY)


def _frozen(options: dict) -> tuple:
    """Options as a hashable, picklable value (lists become tuples, paths text)."""
    def plain(value):
        if isinstance(value, (list, tuple)):
            return tuple(plain(v) for v in value)
        return str(value) if isinstance(value, Path) else value

    return tuple(sorted((key, plain(value)) for key, value in options.items()))


@lru_cache(maxsize=4)
def _benchmark(options: tuple):
    """The live benchmark of ``options``, once per process (its data is read once)."""
    from ..benchmarks.live import LiveBenchmark

    return LiveBenchmark(**dict(options))
