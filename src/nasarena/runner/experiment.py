"""Experiments: grids of (benchmark, optimizer, settings, seed) runs, executed in parallel.

Every finished run is written at once as its own Parquet file under ``OUT/runs/`` (written to
a temporary name and renamed, so a killed experiment never leaves a corrupt file); together
they form one Parquet dataset. Rerunning the same experiment skips the runs whose file exists,
so an interrupted experiment resumes where it stopped. A run depends only on its spec, so the
results are the same whatever the backend and the number of processes.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue as queues
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import pandas as pd

from ..io.files import atomic_write_bytes
from .protocol import Budget, RunSettings, run, settings_hash

RUNS_DIR = "runs"


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines one run."""

    benchmark: str
    optimizer: str
    seed: int
    budget: Budget
    optimizer_settings: tuple[tuple[str, object], ...] = ()
    run_settings: RunSettings = field(default_factory=RunSettings)
    #: The benchmark loader's options (e.g. ``path`` of an imported store): where the data is,
    #: not what is run, so they are in neither the settings hash nor the file name.
    benchmark_options: tuple[tuple[str, object], ...] = ()

    @property
    def settings_hash(self) -> str:
        return settings_hash(self.optimizer, dict(self.optimizer_settings), self.run_settings, self.budget)

    @property
    def setup(self) -> str:
        """The anytime paper's setup label: O (original), C (caching), VS (variable-size encoding),
        CVS (both); W<n> for n asynchronous workers and T when optimizer time is counted."""
        encoding = dict(self.optimizer_settings).get("encoding")
        label = ("C" if self.run_settings.caching else "") + {"variable": "VS", "continuous": "S3"}.get(encoding, "")
        if self.run_settings.n_workers > 1:
            label += f"W{self.run_settings.n_workers}"
        if self.run_settings.count_optimizer_time:
            label += "T"
        return label or "O"

    @property
    def file_name(self) -> str:
        return f"{self.benchmark}__{self.optimizer}__{self.settings_hash}__seed{self.seed:06d}.parquet"


def grid(
    benchmarks: Sequence[str],
    optimizers: Sequence[str],
    seeds: Iterable[int],
    budget: Budget,
    optimizer_settings: dict[str, dict] | None = None,
    run_settings: RunSettings = RunSettings(),
    benchmark_options: dict[str, object] | None = None,
) -> list[RunSpec]:
    """The full grid; ``optimizer_settings`` maps an optimizer name to its overrides."""
    overrides = optimizer_settings or {}
    options = tuple(sorted((benchmark_options or {}).items()))
    seeds = list(seeds)
    return [
        RunSpec(b, o, s, budget, tuple(sorted(overrides.get(o, {}).items())), run_settings, options)
        for b in benchmarks
        for o in optimizers
        for s in seeds
    ]


@lru_cache(maxsize=8)
def _benchmark(name: str, options: tuple[tuple[str, object], ...] = ()):
    from ..benchmarks import benchmark

    return benchmark(name, **dict(options))


def execute(spec: RunSpec, on_progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Run one spec (benchmarks are loaded once per process); ``on_progress`` as in ``run``."""
    from ..optimizers.base import REGISTRY, available, make

    available()  # registers the built-in optimizers
    bench = _benchmark(spec.benchmark, spec.benchmark_options)
    settings = dict(spec.optimizer_settings)
    entry = REGISTRY.get(spec.optimizer)
    if entry is not None and entry.factory.multi_fidelity:
        settings.setdefault("fidelities", bench.fidelities)  # multi-fidelity optimizers use the benchmark's budgets
    optimizer = make(spec.optimizer, bench.space, seed=spec.seed, **settings)
    frame = run(bench, optimizer, spec.budget, spec.seed, spec.run_settings, benchmark_name=spec.benchmark,
                on_progress=on_progress or _queued_progress(spec))
    frame["settings_hash"] = spec.settings_hash
    frame["setup"] = spec.setup
    return frame


#: In a worker process of a run with progress: where ``execute`` sends (file name, share of budget).
_progress_queue = None
PROGRESS_INTERVAL = 0.5  # seconds between two progress messages of one run


def _listen_for_progress(queue) -> None:
    """Worker initializer: report progress of the runs this process executes on ``queue``."""
    global _progress_queue
    _progress_queue = queue


def _queued_progress(spec: RunSpec) -> Callable[[float], None] | None:
    """In a worker with a progress queue: a callback sending the run's progress at most every
    ``PROGRESS_INTERVAL`` seconds (the queue stays small whatever the evaluation rate)."""
    queue = _progress_queue
    if queue is None:
        return None
    last = [0.0]

    def send(share: float) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_INTERVAL:
            last[0] = now
            queue.put((spec.file_name, share))

    return send


def _write_run(out: Path, spec: RunSpec, frame: pd.DataFrame) -> None:
    directory = out / RUNS_DIR
    # not "*.parquet": pathlib's glob matches hidden files, and readers must never see a partial file
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".partial-", suffix=".tmp")
    os.close(handle)
    try:
        frame.to_parquet(temporary, index=False)
        os.replace(temporary, directory / spec.file_name)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _record_settings(out: Path, specs: Sequence[RunSpec]) -> None:
    """Keep the exact settings of every configuration next to the results (for reports)."""
    path = out / "settings.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    for spec in specs:
        known[spec.settings_hash] = {
            "optimizer": spec.optimizer,
            "optimizer_settings": dict(spec.optimizer_settings),
            "run_settings": asdict(spec.run_settings),
            "budget": asdict(spec.budget),
        }
    atomic_write_bytes(path, (json.dumps(known, indent=2, sort_keys=True, default=str) + "\n").encode())


def _run_files(out: Path) -> list[Path]:
    """The finished runs' files, sorted (a run's file appears only once it is complete)."""
    return sorted((Path(out) / RUNS_DIR).glob("[!.]*.parquet"))


def pending(specs: Sequence[RunSpec], out: Path) -> list[RunSpec]:
    """The specs whose results are not yet in ``out``."""
    done = {p.name for p in _run_files(out)}
    return [spec for spec in specs if spec.file_name not in done]


def run_experiment(
    specs: Sequence[RunSpec],
    out: Path,
    jobs: int | None = None,
    backend: str = "process",
    on_finished: Callable[[RunSpec], None] | None = None,
    on_progress: Callable[[RunSpec, float], None] | None = None,
) -> list[RunSpec]:
    """Run the specs not yet done, in parallel, writing each run's Parquet file as it finishes.

    ``backend`` is ``"process"`` (a local process pool; ``jobs=1`` runs in this process) or
    ``"ray"`` (a Ray cluster, or a local Ray instance when none is running). Returns the
    specs that were run now. ``on_progress(spec, share)`` is told the share of its budget a
    running run has spent, from time to time (process backend only; Ray reports finished runs).
    """
    out = Path(out)
    (out / RUNS_DIR).mkdir(parents=True, exist_ok=True)
    for stale in (out / RUNS_DIR).glob(".partial-*"):
        stale.unlink()
    todo = pending(specs, out)
    _record_settings(out, specs)
    jobs = jobs or os.cpu_count() or 1
    finish = on_finished or (lambda spec: None)
    if backend == "ray":
        _run_on_ray(todo, out, jobs, finish)
    elif backend == "process":
        _run_on_processes(todo, out, jobs, finish, on_progress)
    else:
        raise ValueError(f"unknown backend {backend!r}; use 'process' or 'ray'")
    return todo


def _run_on_processes(todo: list[RunSpec], out: Path, jobs: int, finish, on_progress=None) -> None:
    if jobs == 1 or len(todo) <= 1:
        for spec in todo:
            report = (lambda share, spec=spec: on_progress(spec, share)) if on_progress else None
            _write_run(out, spec, execute(spec, report))
            finish(spec)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    for name, options in {(spec.benchmark, spec.benchmark_options) for spec in todo}:
        _benchmark(name, options)  # load before forking, so workers share the arrays
    progress = context.Queue() if on_progress else None
    by_file = {spec.file_name: spec for spec in todo} if on_progress else {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_listen_for_progress,
                             initargs=(progress,)) as pool:
        remaining = iter(todo)
        running = {}
        for spec in remaining:
            running[pool.submit(execute, spec)] = spec
            if len(running) >= 2 * jobs:
                break
        while running:
            done, _ = wait(running, timeout=PROGRESS_INTERVAL if progress else None, return_when=FIRST_COMPLETED)
            _drain_progress(progress, by_file, on_progress)
            for future in done:
                spec = running.pop(future)
                _write_run(out, spec, future.result())
                finish(spec)
                following = next(remaining, None)
                if following is not None:
                    running[pool.submit(execute, following)] = following


def _drain_progress(progress, by_file: dict[str, RunSpec], on_progress) -> None:
    """Pass every progress message waiting in the queue on to ``on_progress``."""
    while progress is not None:
        try:
            name, share = progress.get_nowait()
        except queues.Empty:
            return
        on_progress(by_file[name], share)


def _run_on_ray(todo: list[RunSpec], out: Path, jobs: int, finish) -> None:
    try:
        import ray
    except ImportError:
        raise ImportError("the ray backend needs the [distributed] extra: pip install 'nasarena[distributed]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(execute)
        running = {remote.remote(spec): spec for spec in todo}
        while running:
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                spec = running.pop(ref)
                _write_run(out, spec, ray.get(ref))
                finish(spec)
    finally:
        if started_here:
            ray.shutdown()


def load_results(out: Path) -> pd.DataFrame:
    """All trajectory rows of an experiment directory (an empty frame if none)."""
    files = _run_files(out)
    if not files:
        return pd.DataFrame()
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


@dataclass(frozen=True)
class OptimizerSummary:
    benchmark: str
    optimizer: str
    settings_hash: str
    runs: int
    mean_final_regret: float
    median_final_regret: float
    mean_evaluations: float


def summarize(results: pd.DataFrame) -> list[OptimizerSummary]:
    """Per (benchmark, optimizer, settings): final test regret over seeds."""
    if results.empty:
        return []
    final = results.sort_values("evaluation").groupby(["benchmark", "optimizer", "settings_hash", "seed"]).tail(1)
    summaries = []
    for (bench, optimizer, settings), group in final.groupby(["benchmark", "optimizer", "settings_hash"]):
        summaries.append(
            OptimizerSummary(bench, optimizer, settings, len(group), float(group.incumbent_test_regret.mean()),
                             float(group.incumbent_test_regret.median()), float(group.evaluation.mean() + 1))
        )
    return sorted(summaries, key=lambda s: (s.benchmark, s.mean_final_regret))
