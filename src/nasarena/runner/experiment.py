"""Experiments: grids of (benchmark, optimizer, settings, seed) runs, executed in parallel.

Every finished run is written at once as its own Parquet file under ``OUT/runs/`` (written to
a temporary name and renamed, so a killed experiment never leaves a corrupt file); together
they form one Parquet dataset. Rerunning the same experiment skips the runs whose file exists
and reads back, so an interrupted experiment resumes where it stopped (a damaged file is moved
aside as ``*.corrupt`` and its run computed again). A run depends only on its spec, so the
results are the same whatever the backend and the number of processes: run files hold only
deterministic columns, and the measured optimizer CPU time goes to ``OUT/timings/``. A run
also saves its state every few minutes under ``OUT/checkpoints/``
(:mod:`.checkpoint`), so a run killed midway resumes where it was, not from its start (Ray's
workers, which may not share the folder, start their runs over).
Several experiments may write into one folder at once: each run is claimed first
(:mod:`nasarena.io.claims`), so it is computed and written exactly once. The runs are
tasks of :func:`nasarena.execution.run_tasks`: Ctrl-C (``KeyboardInterrupt`` in the main
process) ends a process-pool experiment at once: the workers stop in the middle of their runs,
queued runs never start, the claims are released and the interrupt is raised again.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow
import pyarrow.parquet

from ..errors import DataFileError, InvalidSettingError, OutputError
from ..execution import BACKENDS, reporter, run_tasks, runs_here
from ..execution.pool import PROGRESS_INTERVAL
from ..io.claims import claim, held, partial_prefix, release, remove_stale_claims, remove_stale_partials
from ..io.files import atomic_write_bytes
from ..io.outputs import own_folder
from .checkpoint import Checkpoint
from .protocol import TRAJECTORY_COLUMNS, Budget, RunSettings, run, settings_hash

RUNS_DIR = "runs"
TIMINGS_DIR = "timings"
#: Unfinished runs' saved states (:mod:`.checkpoint`), each deleted when its run's file is written.
CHECKPOINTS_DIR = "checkpoints"
#: Measured, so different between two runs of one spec: kept out of the run files.
MEASURED_COLUMNS = ("optimizer_cpu_time",)
#: Every run file holds these; a file without them is not a run file of nasarena.
REQUIRED_COLUMNS = frozenset(TRAJECTORY_COLUMNS) - set(MEASURED_COLUMNS)
CLAIM_POLL_INTERVAL = 0.5  # seconds between two looks at runs another experiment computes


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines one run."""

    benchmark: str
    optimizer: str
    seed: int
    budget: Budget
    optimizer_settings: tuple[tuple[str, object], ...] = ()
    run_settings: RunSettings = field(default_factory=RunSettings)
    #: The benchmark loader's options: those saying where the data is (``path`` of an imported
    #: store, the live benchmark's ``store``) are in neither the settings hash nor the file name;
    #: the others change what the benchmark answers (the live benchmark's space, protocol and
    #: scale) and are in both, through the hash (:func:`~nasarena.benchmarks.registry.result_options`).
    benchmark_options: tuple[tuple[str, object], ...] = ()

    @property
    def settings_hash(self) -> str:
        return settings_hash(self.optimizer, self.recorded_settings, self.run_settings, self.budget,
                             self.result_options)

    @property
    def benchmark_spec(self):
        """The benchmark as data (:class:`~nasarena.benchmarks.registry.BenchmarkSpec`): what a
        worker process loads, and whose result options are hashed."""
        from ..benchmarks.registry import BenchmarkSpec

        return BenchmarkSpec(self.benchmark, self.benchmark_options)

    @property
    def result_options(self) -> dict:
        """The benchmark options that change its answers (see ``benchmark_options``)."""
        return self.benchmark_spec.result_options

    @property
    def recorded_settings(self) -> dict:
        """The overrides, plus the defaults of the optimizer's ``recorded_defaults`` (RE's mutation
        rule, BANANAS' warm retraining): runs made under another default must not share a hash
        with these."""
        return {**_recorded_defaults(self.optimizer), **dict(self.optimizer_settings)}

    @property
    def setup(self) -> str:
        """The anytime paper's setup label: O (original), C (caching), VS (variable-size encoding),
        CVS (both); W<n> for n asynchronous workers and T when optimizer time is counted."""
        encoding = dict(self.optimizer_settings).get("encoding")
        codes = {"variable": "VS", "variable_size": "VS", "continuous": "S3"}
        label = ("C" if self.run_settings.caching else "") + codes.get(encoding, "")
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
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
            raise InvalidSettingError(f"seeds must be whole numbers from 0 to 2^63-1, got {seed!r}")
    if len(set(seeds)) != len(seeds):
        repeated = sorted(int(seed) for seed, count in Counter(seeds).items() if count > 1)[:5]
        raise InvalidSettingError(f"seeds must be distinct (a repeated seed repeats a run); repeated: {repeated}")
    return [
        RunSpec(b, o, s, budget, tuple(sorted(overrides.get(o, {}).items())), run_settings, options)
        for b in benchmarks
        for o in optimizers
        for s in seeds
    ]


@lru_cache(maxsize=None)
def _recorded_defaults(optimizer: str) -> dict:
    from ..optimizers.base import REGISTRY, setting_defaults

    cls = REGISTRY.get(optimizer)
    if cls is None:
        return {}
    defaults = setting_defaults(cls)
    return {name: defaults[name] for name in cls.recorded_defaults}


@lru_cache(maxsize=8)
def _benchmark(name: str, options: tuple[tuple[str, object], ...] = ()):
    from ..benchmarks.registry import BenchmarkSpec

    return BenchmarkSpec(name, options).load()


def execute(spec: RunSpec, on_progress: Callable[[float], None] | None = None,
            checkpoint: Checkpoint | None = None) -> pd.DataFrame:
    """Run one spec (benchmarks are loaded once per process); ``on_progress`` and ``checkpoint``
    as in ``run``."""
    from ..optimizers.base import REGISTRY, make

    bench = _benchmark(spec.benchmark, spec.benchmark_options)
    settings = dict(spec.optimizer_settings)
    cls = REGISTRY.get(spec.optimizer)
    if cls is not None and cls.multi_fidelity:
        settings.setdefault("fidelities", bench.fidelities)  # multi-fidelity optimizers use the benchmark's budgets
    optimizer = make(spec.optimizer, bench.space, seed=spec.seed, **settings)
    frame = run(bench, optimizer, spec.budget, spec.seed, spec.run_settings, benchmark_name=spec.benchmark,
                on_progress=on_progress or _reported_progress(spec), checkpoint=checkpoint)
    frame["settings_hash"] = spec.settings_hash
    frame["setup"] = spec.setup
    return frame


def _reported_progress(spec: RunSpec) -> Callable[[float], None] | None:
    """While the experiment asks for progress: a callback sending (file name, share of budget)
    to it (:func:`nasarena.execution.reporter`) at most every ``PROGRESS_INTERVAL`` seconds, so
    that the messages stay few whatever the evaluation rate."""
    send = reporter()
    if send is None:
        return None
    last = [0.0]

    def throttled(share: float) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_INTERVAL:
            last[0] = now
            send((spec.file_name, share))

    return throttled


def _write_run(out: Path, spec: RunSpec, frame: pd.DataFrame) -> None:
    """The run's deterministic columns to ``runs/``, its measured ones to ``timings/``."""
    measured = [c for c in MEASURED_COLUMNS if c in frame.columns]
    if measured:
        _write_parquet(out / TIMINGS_DIR, spec.file_name, frame[["evaluation", *measured]])
    _write_parquet(out / RUNS_DIR, spec.file_name, frame.drop(columns=measured))


def _write_parquet(directory: Path, name: str, frame: pd.DataFrame) -> None:
    # not "*.parquet": pathlib's glob matches hidden files, and readers must never see a partial file
    temporary = None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=partial_prefix(), suffix=".tmp")
        os.close(handle)
        # pandas' to_parquet converts the columns on a thread pool, whose hand-offs cost more than
        # a run's few thousand rows (8.8 ms against 3.0 ms for a 3,300-row run): one thread,
        # the same file. With page checksums, a flipped byte is detected on reading.
        table = pyarrow.Table.from_pandas(frame, preserve_index=False, nthreads=1)
        pyarrow.parquet.write_table(table, temporary, write_page_checksum=True)
        os.replace(temporary, directory / name)
    except OSError as error:
        raise OutputError(f"cannot write {directory / name}: {error.strerror or error}") from None
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


def _record_settings(out: Path, specs: Sequence[RunSpec]) -> None:
    """Keep the exact settings of every configuration next to the results (for reports)."""
    with held(out, "settings.json"):  # another experiment may be merging its own settings in
        _merge_settings(out, specs)


def _merge_settings(out: Path, specs: Sequence[RunSpec]) -> None:
    path = out / "settings.json"
    known = read_settings(out)
    before = dict(known)
    for spec in specs:
        known[spec.settings_hash] = {
            "optimizer": spec.optimizer,
            "optimizer_settings": spec.recorded_settings,
            "run_settings": spec.run_settings.recorded,
            "budget": asdict(spec.budget),
            **({"benchmark_options": spec.result_options} if spec.result_options else {}),
        }
    if json.dumps(known, sort_keys=True, default=str) == json.dumps(before, sort_keys=True, default=str):
        return  # nothing new: a finished (possibly read-only) folder is left as it is
    try:
        atomic_write_bytes(path, (json.dumps(known, indent=2, sort_keys=True, default=str) + "\n").encode())
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None


def read_settings(out: Path) -> dict:
    """``settings.json`` of an experiment folder: settings hash -> settings ({} when absent)."""
    path = Path(out) / "settings.json"
    try:
        known = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataFileError(f"{path} cannot be read ({error}); restore it or delete it to record the settings "
                            "anew") from None
    if not isinstance(known, dict):
        raise DataFileError(f"{path} holds no mapping of settings hashes to settings")
    return known


def _run_files(out: Path) -> list[Path]:
    """The finished runs' files, sorted (a run's file appears only once it is complete)."""
    return sorted((Path(out) / RUNS_DIR).glob("[!.]*.parquet"))


def read_run_file(path: Path) -> pd.DataFrame:
    """One run file; a damaged or foreign file is a :class:`DataFileError` naming it."""
    try:
        frame = pd.read_parquet(path, page_checksum_verification=True)
    except (OSError, ValueError, TypeError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise DataFileError(f"{path} is not a readable run file ({error}); rerun `nasarena run` on this folder "
                            "to recompute it") from None
    missing = REQUIRED_COLUMNS - set(frame.columns)
    if missing:
        raise DataFileError(f"{path} is not a run file of nasarena: it lacks the columns {', '.join(sorted(missing))}")
    return frame


#: Run files already read back by this process: (name, size, mtime) -> True.
_verified: dict[tuple[str, int, int], bool] = {}


def _finished(path: Path) -> bool:
    """Whether ``path`` is a complete run file; a damaged one is moved aside as ``*.corrupt``."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return False
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key in _verified:
        return True
    try:
        read_run_file(path)
    except DataFileError:
        try:
            os.replace(path, path.with_name(path.name + ".corrupt"))
        except OSError:
            pass  # a read-only folder: the run is not done, and writing it will say why
        return False
    _verified[key] = True
    return True


def pending(specs: Sequence[RunSpec], out: Path) -> list[RunSpec]:
    """The specs whose results are not yet in ``out`` (or only in a damaged file)."""
    runs = Path(out) / RUNS_DIR
    done = {p.name for p in _run_files(out)}
    return [spec for spec in specs if spec.file_name not in done or not _finished(runs / spec.file_name)]


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
    runs = out / RUNS_DIR
    if backend not in BACKENDS:
        raise InvalidSettingError(f"unknown backend {backend!r}; use 'process' or 'ray'")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0):
        raise InvalidSettingError(f"jobs must be a whole number >= 0 (0: all cores), got {jobs!r}")
    todo = pending(specs, out)
    if not todo:
        return []
    jobs = jobs or os.cpu_count() or 1
    _check_portable(todo, jobs, backend)
    # one folder holds runs of many settings (each run its own file), so no settings are compared
    own_folder(out, "run", recognised=(RUNS_DIR, "settings.json"))
    try:
        runs.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot create {runs}: {error.strerror or error}") from None
    remove_stale_partials(runs)
    remove_stale_partials(out / TIMINGS_DIR)
    remove_stale_claims(runs)
    _record_settings(out, specs)
    finish = on_finished or (lambda spec: None)
    computed: list[RunSpec] = []
    waiting = todo
    while waiting:
        claimed = [spec for spec in waiting if claim(runs, spec.file_name)]
        try:
            mine = pending(claimed, out)  # another experiment may have written some meanwhile
            _run_specs(mine, out, jobs, backend, finish, on_progress)
        finally:
            for spec in claimed:
                release(runs, spec.file_name)
        computed += mine
        taken = {spec.file_name for spec in mine}
        others = [spec for spec in waiting if spec.file_name not in taken]
        still = pending(others, out)
        left = {spec.file_name for spec in still}
        for spec in others:
            if spec.file_name not in left:
                finish(spec)  # written by another experiment into the same folder
        if still and not mine:
            time.sleep(CLAIM_POLL_INTERVAL)
        waiting = still
    return computed


def _execute_and_write(spec: RunSpec, out: Path) -> None:
    """Run one spec and write its files (in the worker process, so that the frame is not
    pickled back and the main process does not write every run in turn), saving its state in
    ``CHECKPOINTS_DIR`` meanwhile so that a run killed midway resumes there."""
    checkpoint = Checkpoint(Path(out) / CHECKPOINTS_DIR / f"{spec.file_name}.pickle", spec.file_name)
    _write_run(out, spec, execute(spec, checkpoint=checkpoint))
    checkpoint.discard()


def _run_specs(todo: list[RunSpec], out: Path, jobs: int, backend: str, finish, on_progress=None) -> None:
    """The specs as tasks of :func:`~nasarena.execution.run_tasks`: on processes each worker
    writes its runs (the fork server preloads this module); on Ray the driver writes them."""
    if backend == "ray":
        def written(task: tuple, frame: pd.DataFrame) -> None:
            _write_run(out, task[0], frame)
            finish(task[0])

        trains = any(spec.benchmark == "live" for spec in todo)  # runs that train networks get a GPU each
        run_tasks(execute, [(spec,) for spec in todo], jobs, written, backend="ray", gpu_per_task=trains)
        return
    by_file = {spec.file_name: spec for spec in todo}
    progress = (lambda message: on_progress(by_file[message[0]], message[1])) if on_progress else None
    run_tasks(_execute_and_write, [(spec, out) for spec in todo], jobs, lambda task, _: finish(task[0]),
              progress=progress, preload=(__name__,))


def _check_portable(todo: list[RunSpec], jobs: int, backend: str) -> None:
    """Refuse, before anything is written, runs whose benchmark other processes cannot load (a
    name registered in this process only) when they would run on workers."""
    if runs_here(len(todo), jobs, backend):
        return
    local = sorted({spec.benchmark for spec in todo if not spec.benchmark_spec.portable})
    if local:
        raise InvalidSettingError(f"benchmark {', '.join(local)} is registered in this process only, so worker "
                                  "processes cannot load it: run with jobs=1, or name a built-in loader and its "
                                  "options (e.g. benchmark 'surrogate' with path=FILE for a fitted surrogate)")


def load_results(out: Path, specs: Sequence[RunSpec] | None = None) -> pd.DataFrame:
    """All trajectory rows of an experiment directory (an empty frame if none), or with ``specs``
    only those runs' rows (what one command ran, not what another one writes into the folder at
    the same time); a damaged or foreign run file is a :class:`DataFileError` naming it."""
    files = _run_files(out)
    if specs is not None:
        wanted = {spec.file_name for spec in specs}
        files = [f for f in files if f.name in wanted]
    if not files:
        return pd.DataFrame()
    return pd.concat([read_run_file(f) for f in files], ignore_index=True)


def load_timings(out: Path) -> pd.DataFrame:
    """The measured optimizer CPU time of every run (run file name, evaluation, seconds)."""
    files = sorted((Path(out) / TIMINGS_DIR).glob("[!.]*.parquet"))
    if not files:
        return pd.DataFrame(columns=["run", "evaluation", *MEASURED_COLUMNS])
    return pd.concat([pd.read_parquet(f).assign(run=f.name) for f in files], ignore_index=True)


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
