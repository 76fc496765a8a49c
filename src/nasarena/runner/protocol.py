"""The benchmarking protocol: a simulated clock, budgets, incumbents and regret.

One run drives an ask/tell optimizer against a benchmark. The clock advances by each
result's training cost (optionally plus the optimizer's own CPU time); with several workers
the evaluations run asynchronously in simulated time and the worker that finishes first gets
the next ``ask``. The incumbent after each evaluation is the best architecture so far by
validation accuracy; its test regret (optimum minus its mean test accuracy over trials at the
highest budget) is looked up afterwards and never shown to the optimizer.

Caching is the anytime paper's setup C (Sec. IV-C: "setting to one the maximum number of
evaluations per architecture", with caching "within the benchmark querying API"; Sec. II-B: the
saved TPU time goes to "more candidate architectures"): an architecture (at one fidelity) is
evaluated once. Proposed again, it is answered from the cache: the optimizer is told the first
result, the clock does not move, and it is no evaluation, so it writes no trajectory row and
does not count towards ``Budget.evaluations``. Only new architectures spend the budget, so a
cached run ends on its simulated time like any other, however often its search repeats itself.

A zero-cost proxy is fidelity 0 (``ZERO_COST`` of :mod:`nasarena.benchmarks.protocol`, answered by :mod:`nasarena.benchmarks.zero_cost`): an
optimizer asks for it like any fidelity, the worker is busy for the proxy's measured seconds,
and the optimizer is told the score (``Observation.proxy_score``, NaN accuracy). Like a cached
answer it is no evaluation: no trajectory row, never the incumbent, not counted by
``Budget.evaluations``; unlike one, its cost moves the clock.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from ..benchmarks.objectives import own_rows
from ..benchmarks.protocol import ZERO_COST, InvalidArchitectureError
from ..errors import InvalidSettingError
from ..io.fingerprint import settings_fingerprint
from ..optimizers.base import Observation, Optimizer
from .checkpoint import Checkpoint
from .clock import OptimizerClock
from .front import IncumbentFront
from .objectives import Constraint, RunObjectives, check_optimizer_objectives

MAX_CONSECUTIVE_INVALID = 100_000
#: With caching, the cached answers in a row after which a run is refused: an optimizer that only
#: re-proposes evaluated architectures never moves the clock, and the run would never end. The
#: longest streak measured in cached preset runs (RE, irace; nb101-noisy) was about 104,000.
MAX_CONSECUTIVE_CACHED = 10_000_000
#: Zero-cost answers in a row after which a run is refused: they cost little simulated time, and an
#: optimizer that asks for nothing else would run through an evaluations-only budget forever.
#: The zero-cost warm-up asks for a few thousand (Abdelfattah et al. score 3,000 architectures).
MAX_CONSECUTIVE_ZERO_COST = 1_000_000
#: What caching means, written into the settings hash of cached runs only (issue 29): runs made
#: when a cached answer still counted as an evaluation never share a results file with these.
CACHING_SEMANTICS = "each architecture and fidelity evaluated once; repeats answered from the cache, uncounted"


@dataclass(frozen=True)
class Budget:
    """Stop once simulated ``seconds`` have passed or ``evaluations`` were started (either or both)."""

    seconds: float | None = None
    evaluations: int | None = None

    def __post_init__(self) -> None:
        # A zero, negative or NaN budget would write empty runs that count as finished, and an
        # infinite one never stops: refuse them here, for the Python API as for `nasarena run`.
        if self.seconds is None and self.evaluations is None:
            raise InvalidSettingError("a budget needs seconds, evaluations, or both")
        if self.seconds is not None and not (isinstance(self.seconds, (int, float)) and math.isfinite(self.seconds)
                                             and self.seconds > 0):
            raise InvalidSettingError(f"budget seconds must be a finite number > 0, got {self.seconds!r}")
        if self.evaluations is not None and (isinstance(self.evaluations, bool) or
                                             not isinstance(self.evaluations, (int, np.integer)) or
                                             self.evaluations < 1):
            raise InvalidSettingError(f"budget evaluations must be a whole number >= 1, got {self.evaluations!r}")

    def spent(self, clock: float, started: int) -> float:
        """The share of the budget used (0 to 1): the larger of time and evaluations."""
        shares = ([clock / self.seconds] if self.seconds else []) + ([started / self.evaluations] if self.evaluations
                                                                       else [])
        return min(1.0, max(shares, default=0.0))

    def allows(self, clock: float, started: int) -> bool:
        if self.seconds is not None and clock >= self.seconds:
            return False
        return self.evaluations is None or started < self.evaluations


@dataclass(frozen=True)
class RunSettings:
    """How a run is driven (beyond the optimizer's own settings).

    ``objectives`` (labels such as ``("error", "latency:pixel3")``, two or more) make the run
    multi-objective and ``constraint`` (``"latency:pixel3<=5"``) bounds it; see
    :mod:`.objectives`. Both are in the settings hash only when set."""

    n_workers: int = 1
    caching: bool = False
    count_optimizer_time: bool = False
    objectives: tuple[str, ...] = ()
    constraint: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.n_workers, bool) or not isinstance(self.n_workers, (int, np.integer)) or self.n_workers < 1:
            raise InvalidSettingError(f"n_workers must be a whole number >= 1, got {self.n_workers!r}")
        if isinstance(self.objectives, str) or not all(isinstance(label, str) for label in self.objectives):
            raise InvalidSettingError(f"objectives must be a tuple of labels such as ('error', 'latency:pixel3'), "
                                      f"got {self.objectives!r}")
        object.__setattr__(self, "objectives", tuple(self.objectives))
        if self.constraint is not None:  # one canonical text per bound, so one settings hash
            object.__setattr__(self, "constraint", Constraint.parse(self.constraint).label)

    @property
    def protocol(self) -> dict:
        """The settings every run has (the hash's ``run`` entry, unchanged since before objectives)."""
        return {"n_workers": self.n_workers, "caching": self.caching, "count_optimizer_time": self.count_optimizer_time}

    @property
    def recorded(self) -> dict:
        """What ``settings.json`` records: the protocol, plus objectives and constraint when set."""
        return {**self.protocol, **({"objectives": list(self.objectives)} if self.objectives else {}),
                **({"constraint": self.constraint} if self.constraint is not None else {})}


def settings_hash(optimizer: str, optimizer_settings: dict, run_settings: RunSettings, budget: Budget,
                  benchmark_options: dict | None = None) -> str:
    """Short stable hash of everything that configures a run except the benchmark's name and the
    seed: with ``benchmark_options``, also the loader options that change what the benchmark
    answers (absent when there are none, so the hashes of runs without them stay as they were);
    with caching, what caching means (:data:`CACHING_SEMANTICS`; runs without it keep their hash);
    with objectives or a constraint, those (single-objective, unconstrained runs keep their hash)."""
    configured = {"optimizer": optimizer, "settings": optimizer_settings, "run": run_settings.protocol,
                  "budget": budget.__dict__}
    if run_settings.objectives:
        configured["objectives"] = list(run_settings.objectives)
    if run_settings.constraint is not None:
        configured["constraint"] = run_settings.constraint
    if benchmark_options:
        configured["benchmark_options"] = benchmark_options
    if run_settings.caching:
        configured["caching"] = CACHING_SEMANTICS
    return settings_fingerprint(configured, digest="sha1", length=10)  # stored in result names: never change


TRAJECTORY_COLUMNS = [
    "benchmark", "optimizer", "settings_hash", "seed", "evaluation", "sim_time", "optimizer_cpu_time",
    "arch_id", "fidelity", "valid_accuracy", "test_accuracy", "incumbent_id", "incumbent_valid_accuracy",
    "incumbent_test_regret",
]
#: Whether each evaluation's validation accuracy (what the optimizer was told) and test accuracy
#: were modelled rather than measured (``Result.modelled``; see :mod:`nasarena.analysis.modelled`).
#: Every run has them since issue 38; files written before lack them, and are still run files, so
#: they are not among ``TRAJECTORY_COLUMNS`` (the columns every run file holds).
MODELLED_COLUMNS = ("valid_modelled", "test_modelled")


def run(
    benchmark,
    optimizer: Optimizer,
    budget: Budget,
    seed: int,
    settings: RunSettings = RunSettings(),
    benchmark_name: str | None = None,
    on_progress: Callable[[float], None] | None = None,
    checkpoint: Checkpoint | None = None,
) -> pd.DataFrame:
    """Run ``optimizer`` on ``benchmark`` until ``budget`` is spent; one trajectory row per evaluation.

    Trials are drawn from a generator derived from ``seed``; the same seed gives the same
    trajectory, except with ``count_optimizer_time``, whose measured CPU time varies.
    ``on_progress``, if given, is called after each evaluation with the share of the budget
    spent so far (0 to 1), so that long runs can show progress before they end. The
    ``optimizer_cpu_time`` column is the optimizer's cumulative CPU time, measured as
    :mod:`.clock` says (estimated from cheap wall-clock reads unless it is charged). The
    ``valid_modelled`` and ``test_modelled`` columns say whether the evaluation's validation and
    test accuracy were modelled (in its ``Result.modelled``), so that a summary can say how much of
    a run was answered by a model rather than a measurement.

    With a constraint (``settings.constraint``) the incumbent is the most accurate *feasible*
    evaluation (None, with NaN values, until there is one), its regret is measured from the
    constrained optimum, and the rows add the bound (``constraint``, its text) and which
    evaluations met it (``feasible``). With
    objectives (``settings.objectives``) the optimizer is told each validation objective vector,
    and the run's incumbent is the non-dominated set of its feasible validation vectors
    (:class:`.front.IncumbentFront`); the rows add the objectives' labels, each evaluation's
    validation and test vectors and the size of the incumbent front after it. The incumbent
    columns keep their single-objective meaning there (the most accurate feasible evaluation).

    With a ``checkpoint`` (:mod:`.checkpoint`) the run's state is saved every few minutes, and a
    run started on a checkpoint of the same run continues from it (``optimizer`` is then the
    saved one); the rows are those of the run never stopped. An optimizer that is not
    ``checkpointable`` runs without.
    """
    query_rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[1])
    scoring = RunObjectives(benchmark, settings.objectives, settings.constraint) \
        if settings.objectives or settings.constraint is not None else None
    optimum = benchmark.optimum("test_accuracy") if scoring is None else scoring.optimum()
    check_optimizer_objectives(optimizer.name, getattr(optimizer, "multi_objective", False), settings.objectives)
    front = IncumbentFront()
    scored: list[tuple] = []  # with objectives or a constraint: (feasible, valid vector, test vector, front size)
    # Bound methods and limits held in locals: the loop below runs once per evaluation, and a
    # cheap optimizer with a table look-up costs only a few microseconds per evaluation in all.
    identity_of, query, final_test_accuracy = benchmark.space.identity, benchmark.query, benchmark.final_test_accuracy
    ask, tell, observe = optimizer.ask, optimizer.tell, Observation.from_fields
    seconds_limit = math.inf if budget.seconds is None else budget.seconds
    evaluation_limit = math.inf if budget.evaluations is None else budget.evaluations
    charge = settings.count_optimizer_time  # the optimizer's time advances the simulated clock
    caching = settings.caching
    clock = OptimizerClock(exact=charge)
    read = clock.read
    cache: dict = {}  # (identity, fidelity) -> (result, time the result is known)
    events: list = []  # (finish time, sequence, worker, trial, result, identity, answer kind: see below)
    sequence = 0
    started = 0
    optimizer_ns = 0  # the optimizer's time so far, on the clock's scale (see .clock)
    rows: list[tuple] = []
    modelled: list[frozenset] = []  # per row, its result's modelled fields
    incumbent: tuple[float, str, float] | None = None  # (validation accuracy, id, regret)

    cached_in_row = 0  # cached answers since the last evaluation
    proxies_in_row = 0  # zero-cost answers since the last evaluation

    def start_next(worker: int, now: float) -> None:
        """Ask until a proposal is evaluated (or answered from the cache) and queue its result."""
        nonlocal sequence, started, optimizer_ns, cached_in_row, proxies_in_row
        invalid = 0
        while now < seconds_limit and started < evaluation_limit:
            before = read()
            trial = ask()
            spent = read() - before
            optimizer_ns += spent
            if charge:
                now += spent * 1e-9
            try:
                identity = identity_of(trial.arch)
                known = cache.get((identity, trial.fidelity)) if caching else None
                if known is None:
                    result = query(trial.arch, trial.fidelity, rng=query_rng)
            except InvalidArchitectureError:
                invalid += 1
                if invalid > MAX_CONSECUTIVE_INVALID:
                    raise RuntimeError(f"{optimizer.name} proposed {invalid} invalid architectures in a row") from None
                before = read()
                tell(trial, Observation(0.0, 0.0, valid=False))
                optimizer_ns += read() - before
                continue
            sequence += 1
            if known is not None:  # answered when the first evaluation has finished, at no cost
                cached_in_row += 1
                if cached_in_row > MAX_CONSECUTIVE_CACHED:
                    raise InvalidSettingError(
                        f"caching: {optimizer.name} proposed only architectures it had evaluated, {cached_in_row:,} "
                        f"times in a row, so the simulated clock stood still at {now:.4g} s; run it without caching")
                kind = _PROXY if trial.fidelity == ZERO_COST else _CACHED
                heapq.heappush(events, (max(now, known[1]), sequence, worker, trial, known[0], identity, kind))
                return
            if caching:
                cache[identity, trial.fidelity] = (result, now + result.cost_seconds)
            cached_in_row = 0
            if trial.fidelity == ZERO_COST:
                proxies_in_row += 1
                if proxies_in_row > MAX_CONSECUTIVE_ZERO_COST:
                    raise InvalidSettingError(f"{optimizer.name} asked for {proxies_in_row:,} zero-cost proxies in a "
                                              "row without a training evaluation")
                heapq.heappush(events, (now + result.cost_seconds, sequence, worker, trial, result, identity, _PROXY))
                return
            proxies_in_row = 0
            started += 1
            heapq.heappush(events, (now + result.cost_seconds, sequence, worker, trial, result, identity, _EVALUATED))
            return

    if not optimizer.checkpointable:
        checkpoint = None  # its state does not pickle: killed, its run starts over
    shared = {"benchmark": benchmark, "space": benchmark.space}  # what a checkpoint names, not holds
    saved = None if checkpoint is None else checkpoint.load(shared)
    if saved is None:
        for worker in range(settings.n_workers):
            start_next(worker, 0.0)
    else:
        (optimizer, query_rng, cache, events, sequence, started, optimizer_ns, rows, modelled, scored, front,
         incumbent, cached_in_row, proxies_in_row, clock) = cast(tuple, saved)
        clock.resumed()
        ask, tell, read = optimizer.ask, optimizer.tell, clock.read
    while events:
        if checkpoint is not None and checkpoint.due():  # between two events: the state is whole
            checkpoint.save((optimizer, query_rng, cache, events, sequence, started, optimizer_ns, rows, modelled,
                             scored, front, incumbent, cached_in_row, proxies_in_row, clock), shared)
        finish, _, worker, trial, result, identity, kind = heapq.heappop(events)
        if kind == _PROXY:  # told the score; nothing to record
            before = read()
            tell(trial, Observation(math.nan, result.cost_seconds, True, proxy_score=result.proxy_score))
            optimizer_ns += read() - before
            start_next(worker, finish)
            continue
        if scoring is None:
            before = read()
            tell(trial, observe(result.valid_accuracy, result.cost_seconds, True))
        else:
            feasible = scoring.feasible(trial.arch)
            valid_vector, test_vector = scoring.vectors(trial.arch, result)
            before = read()
            tell(trial, observe(result.valid_accuracy, result.cost_seconds, True, valid_vector, feasible))
        after = read()
        optimizer_ns += after - before
        if charge:
            finish += (after - before) * 1e-9
        elif after >= clock.next_sync:
            clock.sync(optimizer_ns, after)
        if kind == _CACHED:  # no evaluation: nothing new to record
            start_next(worker, finish)
            continue
        if scoring is not None:
            if feasible and valid_vector:
                front.add(valid_vector, len(rows))
            scored.append((feasible, valid_vector, test_vector, len(front)))
        if (scoring is None or feasible) and (incumbent is None or result.valid_accuracy > incumbent[0]):
            incumbent = (result.valid_accuracy, identity, optimum - final_test_accuracy(trial.arch))
        best = incumbent or _NO_INCUMBENT
        rows.append((len(rows), finish, optimizer_ns, identity, result.fidelity, result.valid_accuracy,
                     result.test_accuracy, best[1], best[0], best[2]))
        modelled.append(result.modelled)
        start_next(worker, finish)
        if on_progress is not None:
            on_progress(budget.spent(finish, started))

    frame = _trajectory_frame(rows, (benchmark_name or benchmark.name, optimizer.name,
                                     settings_hash(optimizer.name, optimizer.settings(), settings, budget), seed))
    frame["optimizer_cpu_time"] = clock.seconds(frame["optimizer_cpu_time"].to_numpy())
    _add_modelled_columns(frame, modelled)
    if scoring is not None:
        _add_scored_columns(frame, scoring, scored)
    return frame


#: What an event answers: a new evaluation, a cached repeat of one, a zero-cost proxy.
_EVALUATED, _CACHED, _PROXY = 0, 1, 2

#: The incumbent columns of a constrained run before its first feasible evaluation.
_NO_INCUMBENT = (math.nan, None, math.nan)


def _add_modelled_columns(frame: pd.DataFrame, modelled: list[frozenset]) -> None:
    """``valid_modelled`` and ``test_modelled`` (:data:`MODELLED_COLUMNS`) from each row's
    ``Result.modelled``: a benchmark shares a few frozensets among all its results, so each
    distinct one is looked into once (not twice per evaluation in the loop), and the rows index
    those answers instead of building a tuple of flags each."""
    codes = {fields: code for code, fields in enumerate(set(modelled))}
    flags = np.array([("valid_accuracy" in fields, "test_accuracy" in fields) for fields in codes],
                     dtype=bool).reshape(len(codes), 2)
    pairs = flags[np.fromiter(map(codes.__getitem__, modelled), dtype=np.intp, count=len(modelled))]
    for position, name in enumerate(MODELLED_COLUMNS):
        frame[name] = pairs[:, position]


def _add_scored_columns(frame: pd.DataFrame, scoring: RunObjectives, scored: list[tuple]) -> None:
    """``feasible`` (and the bound, ``constraint``), and with objectives the vectors (list
    columns), front sizes and, for a benchmark loaded with ``unique=True``, ``unique_cells``
    (its fronts are those of the unique cells; other runs' files keep their columns)."""
    feasible, valid, test, sizes = zip(*scored) if scored else ((), (), (), ())
    if scoring.constraint is not None:
        frame["constraint"] = np.full(len(frame), scoring.constraint.label, dtype=object)
    frame["feasible"] = np.array(feasible, dtype=bool)
    if scoring.multi_objective:
        frame["objectives"] = np.full(len(frame), scoring.labels, dtype=object)
        if own_rows(scoring.benchmark) is not None:  # a unique=True run: scored on the unique front
            frame["unique_cells"] = np.ones(len(frame), dtype=bool)
        frame["valid_objectives"] = pd.Series([list(v) for v in valid], dtype=object)
        frame["test_objectives"] = pd.Series([list(v) for v in test], dtype=object)
        frame["front_size"] = np.array(sizes, dtype=np.int64)


#: The trajectory columns holding architecture identities (strings); every other is numeric.
_IDENTITY_COLUMNS = ("arch_id", "incumbent_id")


def _trajectory_frame(rows: list[tuple], run_columns: tuple) -> pd.DataFrame:
    """The trajectory: the values of the run's first four columns (benchmark, optimizer,
    settings hash, seed) on every row, then the loop's rows (one tuple per evaluation).

    Built column by column, it is the frame pandas builds from the rows with the four columns
    inserted in front, in about half the time (pandas took ~0.6 us per row, as much as a cheap
    optimizer's step, and ~0.8 ms per run for the inserts). A numeric column that numpy cannot
    type (a None among the values) is left to pandas' own inference."""
    columns = {name: np.full(len(rows), value, dtype=object if isinstance(value, str) else None)
               for name, value in zip(TRAJECTORY_COLUMNS[:4], run_columns)}
    for name, values in zip(TRAJECTORY_COLUMNS[4:], zip(*rows)):
        identities = name in _IDENTITY_COLUMNS
        column = np.array(values, dtype=object if identities else None)
        if column.dtype == object and not identities:
            return _frame_inferred_by_pandas(rows, run_columns)
        columns[name] = column
    return pd.DataFrame(columns) if rows else _frame_inferred_by_pandas(rows, run_columns)


def _frame_inferred_by_pandas(rows: list[tuple], run_columns: tuple) -> pd.DataFrame:
    """What :func:`_trajectory_frame` builds, with pandas typing every column from the rows."""
    frame = pd.DataFrame(rows, columns=TRAJECTORY_COLUMNS[4:])
    for position, (name, value) in enumerate(zip(TRAJECTORY_COLUMNS[:4], run_columns)):
        frame.insert(position, name, value)
    return frame
