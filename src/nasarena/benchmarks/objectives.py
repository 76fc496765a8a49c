"""The objectives of multi-objective NAS: error, latency on a device, parameters, FLOPs.

Every objective is *minimised*: error is 1 - accuracy, latency is in milliseconds, parameters
and FLOPs are counts. A run names its objectives in text (``"error,latency:pixel3"``); the
runner turns an evaluated architecture into a vector with :func:`objective_vector` (validation
error: what an optimizer may see), and the analysis turns a whole finite benchmark into a matrix
with :func:`objective_matrix` (test error: the input of the exact true Pareto front).

What a benchmark can give is read from the benchmark itself, so this module holds no list of
benchmarks:

- ``error`` needs a :class:`~nasarena.benchmarks.protocol.Benchmark` (one with accuracies);
- ``latency`` needs ``benchmark.devices`` (the device settings it holds latencies for),
  ``benchmark.latency(arch, device)`` and, for the matrix, ``benchmark.latency_column(device)``;
- ``flops`` needs ``benchmark.flops(arch)`` and ``benchmark.flops_column()``;
- ``params`` needs a Benchmark (its results carry ``trainable_parameters``);
- the whole-table answers leave out the rows a benchmark marks as no architecture of their own
  (``benchmark.unique_rows``, where it has one: :func:`own_rows`).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidSettingError
from .protocol import Benchmark
from .result import Result

#: The kinds of objective, each minimised.
KINDS = ("error", "latency", "params", "flops")
#: The splits an error objective is read on: validation (what optimizers see), test (offline).
SPLITS = ("valid", "test")


@dataclass(frozen=True)
class Objective:
    """One minimised objective: ``kind`` in :data:`KINDS`; ``device`` for latency only."""

    kind: str
    device: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            close = difflib.get_close_matches(str(self.kind), KINDS, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise InvalidSettingError(f"unknown objective {self.kind!r}{hint} (available: error, latency:DEVICE, "
                                      "params, flops)")
        if self.kind == "latency" and not self.device:
            raise InvalidSettingError("the latency objective needs a device: latency:DEVICE (e.g. latency:pixel3)")
        if self.kind != "latency" and self.device is not None:
            raise InvalidSettingError(f"only latency takes a device; {self.kind} got {self.device!r}")

    @property
    def label(self) -> str:
        """``"error"``, ``"latency:pixel3"``, ``"params"``, ``"flops"``: the text form."""
        return f"latency:{self.device}" if self.kind == "latency" else self.kind


def parse_objectives(text: str | Sequence[str]) -> tuple[Objective, ...]:
    """Objectives from ``"error,latency:pixel3"`` (or a sequence of such labels); repeated or
    empty entries are an error, since a repeated objective would weigh twice on the front."""
    if isinstance(text, str):
        labels = text.split(",")
    elif isinstance(text, Sequence) and all(isinstance(label, str) for label in text):
        labels = list(text)
    else:
        raise InvalidSettingError(f"objectives must be text like 'error,latency:pixel3', got {text!r}")
    objectives = []
    for label in (label.strip() for label in labels):
        if not label:
            raise InvalidSettingError(f"empty objective in {text!r}: write e.g. 'error,latency:pixel3'")
        kind, _, device = label.partition(":")
        objectives.append(Objective(kind.strip(), (device.strip() or None) if ":" in label else None))
    labels_seen = [objective.label for objective in objectives]
    repeated = sorted({label for label in labels_seen if labels_seen.count(label) > 1})
    if repeated:
        raise InvalidSettingError(f"objective {', '.join(repeated)} is named twice in {text!r}")
    return tuple(objectives)


def devices_of(benchmark) -> tuple[str, ...]:
    """The device settings ``benchmark`` holds latencies for (none for most benchmarks)."""
    return tuple(getattr(benchmark, "devices", ()))


def unknown_device(benchmark_name: str, device: object, devices: Sequence[str]) -> InvalidSettingError:
    """The error for a device setting a benchmark does not hold: close matches and every choice."""
    close = difflib.get_close_matches(str(device), devices, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return InvalidSettingError(f"unknown device {device!r} of benchmark {benchmark_name}{hint} "
                               f"(available: {', '.join(sorted(devices))})")


def check_objectives(benchmark, objectives: Sequence[Objective]) -> None:
    """Raise :class:`InvalidSettingError` for an objective ``benchmark`` cannot give: a device it
    has no latency for (listing those it has), latency or FLOPs on a benchmark without them,
    error or parameters on a latency-only benchmark."""
    name = getattr(benchmark, "name", type(benchmark).__name__)
    if not objectives:
        raise InvalidSettingError("no objectives given: name at least one, e.g. 'error,latency:pixel3'")
    for objective in objectives:
        if not isinstance(objective, Objective):
            raise InvalidSettingError(f"expected Objective values (see parse_objectives), got {objective!r}")
        if objective.kind in ("error", "params") and not isinstance(benchmark, Benchmark):
            raise InvalidSettingError(f"{name} has no accuracies or parameter counts (a latency-only benchmark): "
                                      f"objective {objective.label} is not available; use latency:DEVICE")
        if objective.kind == "latency":
            devices = devices_of(benchmark)
            if not devices:
                raise InvalidSettingError(f"{name} has no latency data: objective {objective.label} is not "
                                          "available (latencies exist for nb201-cifar10, nb201-cifar100, "
                                          "nb201-imagenet16-120, the nbgraph-<dataset> benchmarks (device "
                                          "nbgraph), and for FBNet in nasarena.benchmarks.fbnet.load())")
            if objective.device not in devices:
                raise unknown_device(name, objective.device, devices)
        if objective.kind == "flops" and not callable(getattr(benchmark, "flops", None)):
            raise InvalidSettingError(f"{name} has no FLOPs: objective flops is not available (NB201 has them)")


def modelled_labels(benchmark, objectives: Sequence[Objective]) -> tuple[str, ...]:
    """Labels of the objectives ``benchmark`` serves from a model rather than its own measurement
    (its ``modelled_objectives`` kinds: latency on nb201-cifar100/-imagenet16-120 and FBNet), so
    a report can flag them as ``Result.modelled`` flags fields."""
    kinds = getattr(benchmark, "modelled_objectives", frozenset())
    return tuple(objective.label for objective in objectives if objective.kind in kinds)


def objective_vector(benchmark, arch, result: Result | None, objectives: Sequence[Objective],
                     split: str = "valid") -> tuple[float, ...]:
    """The objective values of one evaluated architecture, in the order of ``objectives``.

    ``split="valid"`` reads the error from ``result``'s validation accuracy (what an optimizer
    may see); ``split="test"`` from the benchmark's final test accuracy (offline analysis only).
    Latency, parameters and FLOPs do not depend on the split. ``result`` may be None when no
    objective reads it (latency and FLOPs only). Call :func:`check_objectives` once beforehand:
    this runs once per evaluation and checks nothing twice.
    """
    if split not in SPLITS:
        raise InvalidSettingError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    values = []
    for objective in objectives:
        kind = objective.kind
        if kind == "error":
            accuracy = result.valid_accuracy if split == "valid" else benchmark.final_test_accuracy(arch)
            values.append(1.0 - accuracy)
        elif kind == "latency":
            values.append(float(benchmark.latency(arch, objective.device)))
        elif kind == "params":
            values.append(float(result.trainable_parameters))
        else:
            values.append(float(benchmark.flops(arch)))
    return tuple(values)


def objective_matrix(benchmark, objectives: Sequence[Objective], split: str = "test") -> np.ndarray:
    """(architectures, objectives) float64 matrix over a whole finite benchmark, rows in the
    benchmark's row order: error as 1 - the mean accuracy over trials at the highest fidelity
    (``split="test"``: the regret metric, which is validation accuracy where the data has no
    final test accuracy, as ``describe()`` says; ``"valid"``: validation accuracy). NaN where
    the data holds no accuracy, and in every column of a row that is no architecture of its own
    (an NB201 benchmark loaded with ``unique=True`` repeats its class representative's records
    there: :func:`own_rows`), so that no class enters a front twice. The input of the exact true
    Pareto front."""
    check_objectives(benchmark, objectives)
    if split not in SPLITS:
        raise InvalidSettingError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    columns = []
    for objective in objectives:
        if objective.kind in ("latency", "flops") and not callable(getattr(benchmark, f"{objective.kind}_column", None)):
            raise InvalidSettingError(f"{benchmark.name} is not a finite table: objective_matrix needs a tabular "
                                      "benchmark (nb201-*)")
        if objective.kind == "latency":
            columns.append(np.asarray(benchmark.latency_column(objective.device), dtype=np.float64))
        elif objective.kind == "flops":
            columns.append(np.asarray(benchmark.flops_column(), dtype=np.float64))
        else:
            data = getattr(benchmark, "data", None)
            if data is None or not hasattr(benchmark, "mean_over_trials"):
                raise InvalidSettingError(f"{benchmark.name} is not a finite table: objective_matrix needs a "
                                          "tabular benchmark (nb101-*, nb201-*)")
            if objective.kind == "params":
                columns.append(np.asarray(data.trainable_parameters, dtype=np.float64))
            else:
                metric = benchmark.regret_metric if split == "test" else "valid_accuracy"
                columns.append(1.0 - benchmark.mean_over_trials(metric))
    if not columns:
        return np.empty((0, 0))
    matrix = np.column_stack(columns)
    own = own_rows(benchmark)
    if own is not None:
        matrix[~own] = np.nan
    return matrix


def own_rows(benchmark) -> np.ndarray | None:
    """Mask of the rows of a finite benchmark that are architectures of their own (its
    ``unique_rows``: with ``unique=True`` the NB201 class representatives), or None where every
    row is one. Whole-table answers leave the others out: they repeat another row's records."""
    return getattr(benchmark, "unique_rows", None)


@dataclass(frozen=True)
class ConstrainedBest:
    """The answer of :func:`best_under`: the most accurate architecture within a latency bound."""

    arch: object
    row: int
    accuracy: float
    latency_ms: float
    device: str
    max_latency_ms: float
    metric: str
    #: architectures of the table that meet the bound
    feasible: int


def best_under(benchmark, device: str, max_latency_ms: float, metric: str = "test_accuracy") -> ConstrainedBest:
    """The most accurate architecture of a finite benchmark whose latency on ``device`` is at
    most ``max_latency_ms``, exactly from the table. ``metric`` is ``test_accuracy`` (the
    regret metric: validation accuracy where the data has no final test accuracy) or
    ``valid_accuracy``, mean over trials at the highest fidelity; ties go to the lowest row.
    The bound is inclusive at the stored latency, which for the NB201 tables is the source's
    value as published (float64), so a bound equal to a cell's published latency admits it.
    Only rows that are architectures of their own (:func:`own_rows`) are candidates and counted.
    The benchmark gives the architecture of a row with ``arch_at(row)``.
    A bound no architecture meets is an :class:`InvalidSettingError` naming the fastest one."""
    if metric not in ("test_accuracy", "valid_accuracy"):
        raise InvalidSettingError(f"metric must be test_accuracy or valid_accuracy, got {metric!r}")
    if isinstance(max_latency_ms, bool) or not isinstance(max_latency_ms, (int, float, np.floating, np.integer)) \
            or not math.isfinite(max_latency_ms) or max_latency_ms <= 0:
        raise InvalidSettingError(f"the latency bound must be a positive number of milliseconds, got "
                                  f"{max_latency_ms!r}")
    check_objectives(benchmark, (Objective("error"), Objective("latency", device)))
    latency = np.asarray(benchmark.latency_column(device), dtype=np.float64)
    column = benchmark.regret_metric if metric == "test_accuracy" else metric
    accuracy = benchmark.mean_over_trials(column)
    feasible = (latency <= max_latency_ms) & ~np.isnan(accuracy)
    own = own_rows(benchmark)
    if own is not None:
        feasible &= own
    if not feasible.any():
        raise InvalidSettingError(f"no architecture of {benchmark.name} runs within {max_latency_ms:g} ms on {device}: "
                                  f"the fastest takes {np.nanmin(latency):.4g} ms")
    row = int(np.argmax(np.where(feasible, accuracy, -np.inf)))
    return ConstrainedBest(arch=benchmark.arch_at(row), row=row,
                           accuracy=float(accuracy[row]), latency_ms=float(latency[row]), device=device,
                           max_latency_ms=float(max_latency_ms), metric=column, feasible=int(feasible.sum()))
