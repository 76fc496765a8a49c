"""Conformance checks shipped with nasarena: what every space, benchmark and optimizer promises.

The test suite runs them over every registered name (``tests/test_conformance.py``), so a new
space, benchmark or optimizer gets the whole suite by being registered; a plug-in outside
nasarena calls them from its own tests::

    from nasarena.testing import check_optimizer
    check_optimizer("my-optimizer", nasarena.benchmark("nb201-cifar10"))

Each check raises :class:`ConformanceError` naming the broken promise (and returns nothing when
everything holds). The checks are small (tens of samples, a few dozen evaluations) so that a
whole registry is checked in seconds.
"""

from __future__ import annotations

import json

import numpy as np

from ..errors import NasarenaError

#: The objectives a multi-objective optimizer's conformance run minimises.
MULTI_OBJECTIVES = ("error", "params")


class ConformanceError(AssertionError):
    """A space, benchmark or optimizer breaks a promise of its contract."""


def _require(condition: bool, subject: str, promise: str) -> None:
    if not condition:
        raise ConformanceError(f"{subject}: {promise}")


def _same_result(first, second) -> bool:
    """Field-by-field equality of two results, NaN equal to NaN (a metric the data lacks)."""
    from dataclasses import fields

    def same(a, b) -> bool:
        if isinstance(a, float) and isinstance(b, float):
            return a == b or (np.isnan(a) and np.isnan(b))
        return a == b

    return all(same(getattr(first, f.name), getattr(second, f.name)) for f in fields(first))


def _samples(space, seed: int, count: int) -> list:
    rng = np.random.default_rng(seed)
    return [space.sample(rng) for _ in range(count)]


def check_space(space, seed: int = 0, samples: int = 12) -> None:
    """The :class:`~nasarena.spaces.protocol.SearchSpace` promises: the whole protocol is there,
    sampling and mutation are determined by the generator, the text form and the configuration
    round-trip to the same identity, encodings have a fixed shape, membership answers with a
    reason (never an exception), and a finite space's rows match its enumeration."""
    from ..spaces.protocol import FiniteSpace, SearchSpace

    subject = f"space {getattr(space, 'name', type(space).__name__)!r}"
    _require(isinstance(space, SearchSpace), subject, "implements every method of the SearchSpace protocol")
    _require(isinstance(space.name, str) and space.name != "", subject, "has a name")
    _require(len(space.encodings) > 0 and "categorical" in space.config_encodings, subject,
             "lists its encodings and has the 'categorical' configuration encoding")
    first, second = _samples(space, seed, samples), _samples(space, seed, samples)
    identities = [space.identity(a) if space.contains(a) else None for a in first]
    _require(identities == [space.identity(a) if space.contains(a) else None for a in second], subject,
             "samples the same architectures for the same seed")
    members = [a for a in first if space.contains(a)]
    _require(len(members) > 0, subject, f"samples at least one architecture of the space in {samples} draws")
    if hasattr(space, "sample_many"):
        batched, one_by_one = np.random.default_rng(seed), np.random.default_rng(seed)
        many = space.sample_many(batched, samples)
        singles = [space.sample(one_by_one) for _ in range(samples)]
        _require([space.identity(a) for a in many] == [space.identity(a) for a in singles] and
                 batched.bit_generator.state == one_by_one.bit_generator.state, subject,
                 "sample_many(rng, n) gives the architectures of n sample(rng) calls and leaves the same generator state")
    for arch in first:
        reason = space.violation(arch)
        _require(reason is None or (isinstance(reason, str) and reason != ""), subject,
                 "says why an architecture is outside it (violation returns None or a reason)")
        _require(space.contains(arch) == (reason is None), subject, "contains(a) == (violation(a) is None)")
    try:
        reason = space.violation(object())
    except Exception as error:  # noqa: BLE001  (the promise is that nothing is raised)
        raise ConformanceError(f"{subject}: violation() of a foreign object raised {type(error).__name__} "
                               "instead of giving a reason") from None
    _require(isinstance(reason, str) and reason != "", subject, "gives a reason for a foreign object")
    shapes = {kind: np.shape(space.encode(members[0], kind)) for kind in space.encodings}
    for arch in members:
        identity = space.identity(arch)
        _require(isinstance(identity, str) and identity == space.identity(arch), subject, "has a stable string identity")
        text = space.to_text(arch)
        _require(space.identity(space.from_text(text)) == identity, subject, "round-trips the text form")
        config = space.to_config(arch)
        _require(space.identity(space.from_config(config)) == identity, subject, "round-trips the configuration")
        for kind, shape in shapes.items():
            _require(np.shape(space.encode(arch, kind)) == shape, subject, f"encodes {kind!r} with a fixed shape")
    children = [[space.identity(c) if space.contains(c) else None
                 for c in (space.mutate(a, np.random.default_rng(seed)) for a in members)] for _ in range(2)]
    _require(children[0] == children[1], subject, "mutates the same way for the same seed")
    neighbours = [space.identity(n) for n in space.neighbours(members[0])]
    _require(neighbours == [space.identity(n) for n in space.neighbours(members[0])], subject,
             "lists neighbours in a fixed order")
    _require(space.identity(members[0]) not in neighbours, subject, "does not list an architecture as its own neighbour")
    dims = space.categorical_dims()
    _require(len(dims) > 0 and all(d >= 1 for d in dims), subject, "has categorical dimensions")
    space.from_categorical([0] * len(dims))
    if isinstance(space, FiniteSpace):
        everything = space.enumerate()
        _require(len(everything) == space.size, subject, "enumerates exactly size architectures")
        for row in np.random.default_rng(seed).integers(space.size, size=5).tolist():
            _require(space.row(everything[row]) == row, subject, "numbers every architecture by its enumeration row")


def check_benchmark(benchmark, seed: int = 0, samples: int = 5) -> None:
    """The Benchmark promises: a conforming space, results in range and determined by the
    generator at every fidelity, a batch that agrees with single queries in shape, an optimum no
    architecture beats, a description, and a clear error (a nasarena error, or a ``TypeError``
    naming the accepted types) for something that is no architecture."""
    from ..benchmarks.result import Result

    subject = f"benchmark {benchmark.name!r}"
    check_space(benchmark.space, seed)
    fidelities = tuple(benchmark.fidelities)
    _require(len(fidelities) > 0 and list(fidelities) == sorted(fidelities), subject, "has sorted fidelities")
    archs = [a for a in _samples(benchmark.space, seed, 4 * samples) if benchmark.space.contains(a)][:samples]
    optimum = benchmark.optimum()
    for arch in archs:
        for fidelity in fidelities:
            result = benchmark.query(arch, fidelity, np.random.default_rng(seed))
            _require(isinstance(result, Result), subject, "answers a query with a Result")
            _require(_same_result(result, benchmark.query(arch, fidelity, np.random.default_rng(seed))), subject,
                     "answers the same query the same way for the same generator")
            _require(0.0 <= result.valid_accuracy <= 1.0 and result.cost_seconds >= 0.0, subject,
                     "gives accuracies in [0, 1] and non-negative costs")
        _require(benchmark.final_test_accuracy(arch) <= optimum + 1e-9, subject,
                 "has an optimum that no architecture exceeds")
    batch = benchmark.query_batch(archs, None, np.random.default_rng(seed))
    _require(len(batch.valid_accuracy) == len(archs), subject, "answers a batch with one result per architecture")
    _require(benchmark.describe().name == benchmark.name, subject, "describes itself under its name")
    try:
        benchmark.query(object())
    except (NasarenaError, TypeError):  # "expected an NB101 Cell, ...": the caller passed the wrong type
        pass
    except Exception as error:  # noqa: BLE001  (the promise is precisely the kind of error)
        raise ConformanceError(f"{subject}: a query of something that is no architecture raised "
                               f"{type(error).__name__} ({error}) instead of a nasarena error") from None
    else:
        raise ConformanceError(f"{subject}: a query of something that is no architecture did not fail")


def check_optimizer(name: str, benchmark, seed: int = 0, evaluations: int = 25) -> None:
    """The Optimizer promises: settings read off the constructor (JSON-ready, and rebuilding from
    them gives the same settings), every setting declared with its range, the same trajectory for
    the same seed, the same trajectory again when the run is stopped right after a checkpoint
    and resumed from it (unless the class says it is not ``checkpointable``), an invalid
    architecture told without harm, and ``tell`` refusing a trial it did not hand out or was
    told already. A multi-objective optimizer runs with the objectives
    ``error`` and ``params`` (every benchmark answers both) and is told two-objective vectors."""
    from ..optimizers.base import Observation, Trial, TrialError, make, optimizer_class, setting_names
    from ..runner import Budget, RunSettings, run

    subject = f"optimizer {name!r}"
    cls = optimizer_class(name)
    run_settings = RunSettings(objectives=MULTI_OBJECTIVES if cls.multi_objective else ())
    told = (0.5, 1.0, True, (0.5, 2.0)) if cls.multi_objective else (0.5, 1.0, True)
    options = {"fidelities": benchmark.fidelities} if cls.multi_fidelity else {}
    optimizer = make(name, benchmark.space, seed=seed, **options)
    settings = optimizer.settings()
    _require(list(settings) == list(setting_names(cls)), subject, "records every constructor setting")
    _require(set(cls.SETTINGS) == set(settings), subject, "declares the type, range and meaning of every setting")
    json.dumps(settings)
    _require(make(name, benchmark.space, seed=seed, **settings).settings() == settings, subject,
             "is rebuilt with the same settings from its recorded settings")

    def trajectory():
        frame = run(benchmark, make(name, benchmark.space, seed=seed, **options), Budget(evaluations=evaluations),
                    seed=seed, settings=run_settings)
        return frame[["arch_id", "fidelity", "valid_accuracy"]].to_numpy().tolist()

    whole = trajectory()
    _require(trajectory() == whole, subject, "proposes the same trajectory for the same seed")
    if cls.checkpointable:
        # a state that does not pickle only costs the checkpoints (the run warns and starts over
        # when killed); a state that pickles must resume to the very same run
        _require(_resumed_trajectory(benchmark, lambda: make(name, benchmark.space, seed=seed, **options),
                                     Budget(evaluations=evaluations), seed, run_settings) == whole, subject,
                 "continues a run resumed from its checkpoint as if it had not stopped")
    optimizer = make(name, benchmark.space, seed=seed, **options)
    first = optimizer.ask()
    optimizer.tell(first, Observation(0.0, 0.0, valid=False))
    optimizer.tell(optimizer.ask(), Observation(*told))
    for again in (first, Trial(first.arch, first.fidelity, number=10_000)):
        try:
            optimizer.tell(again, Observation(*told))
        except TrialError:
            continue
        raise ConformanceError(f"{subject}: tell accepted a trial that was told already or never handed out")



class StoppedAfterSave(Exception):
    """Raised by :class:`StopAfterSave` right after its checkpoint is written: a kill, in a test."""


def stop_after_save(path, key: str, at: int):
    """A :class:`~nasarena.runner.checkpoint.Checkpoint` that saves at the ``at``-th event of a
    run and then stops it (:class:`StoppedAfterSave`), as a kill right after a save would."""
    import math

    from ..runner.checkpoint import Checkpoint

    class StopAfterSave(Checkpoint):
        def __init__(self) -> None:
            super().__init__(path, key, interval=math.inf)
            self.calls = 0

        def due(self) -> bool:
            self.calls += 1
            return self.calls == at

        def save(self, state, shared) -> None:
            super().save(state, shared)
            raise StoppedAfterSave

    return StopAfterSave()


def _resumed_trajectory(benchmark, new_optimizer, budget, seed: int, run_settings) -> list:
    """The trajectory of a run stopped right after a checkpoint halfway and resumed from it."""
    import math
    import tempfile
    from pathlib import Path

    from ..runner import run
    from ..runner.checkpoint import Checkpoint

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.pickle"
        try:
            frame = run(benchmark, new_optimizer(), budget, seed=seed, settings=run_settings,
                        checkpoint=stop_after_save(path, "conformance", max(1, (budget.evaluations or 2) // 2)))
        except StoppedAfterSave:
            frame = run(benchmark, new_optimizer(), budget, seed=seed, settings=run_settings,
                        checkpoint=Checkpoint(path, "conformance", interval=math.inf))
    return frame[["arch_id", "fidelity", "valid_accuracy"]].to_numpy().tolist()
