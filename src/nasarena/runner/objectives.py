"""A run's objectives and constraint, as the protocol applies them to one benchmark.

A run has either no objectives (single-objective: the optimizer maximises validation accuracy,
as always), or two or more (multi-objective: the optimizer minimises the vector, see
:mod:`nasarena.benchmarks.objectives`). Either kind may carry a latency constraint
``latency:DEVICE<=MS``: an evaluation over the bound is *infeasible*; the optimizer is told so
(``Observation.feasible``), the incumbent is chosen among feasible evaluations only, and the
single-objective regret is measured against the exact constrained optimum of the table
(:func:`~nasarena.benchmarks.objectives.best_under`) instead of the unconstrained one.

Only latency is a constraint: it does not depend on the split, so what the optimizer sees as
feasible is what the offline analysis counts as feasible (a bound on validation error would be
judged on test error afterwards).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InvalidSettingError

#: The grammar of a constraint, for messages and help texts.
CONSTRAINT_FORM = "latency:DEVICE<=MS"


@dataclass(frozen=True)
class Constraint:
    """Latency on ``device`` at most ``limit_ms`` milliseconds."""

    device: str
    limit_ms: float

    @classmethod
    def parse(cls, text: str) -> Constraint:
        """``"latency:pixel3<=5"`` -> Constraint("pixel3", 5.0); anything else is refused."""
        left, operator, right = str(text).partition("<=")
        kind, colon, device = left.strip().partition(":")
        if not operator or kind.strip() != "latency" or not colon or not device.strip():
            raise InvalidSettingError(f"bad constraint {text!r}: write {CONSTRAINT_FORM}, e.g. latency:pixel3<=5 "
                                      "(only latency can be bounded)")
        try:
            limit = float(right)
        except ValueError:
            raise InvalidSettingError(f"bad constraint {text!r}: {right.strip()!r} is not a number of "
                                      "milliseconds") from None
        if not math.isfinite(limit) or limit <= 0:
            raise InvalidSettingError(f"bad constraint {text!r}: the bound must be a finite number of "
                                      f"milliseconds > 0, got {limit}")
        return cls(device.strip(), limit)

    @property
    def label(self) -> str:
        """The canonical text: ``latency:pixel3<=5`` (shortest exact form of the bound)."""
        return f"latency:{self.device}<={self.limit_ms!r}".removesuffix(".0")


class RunObjectives:
    """The objectives and constraint of a run on one benchmark: checked once when made (an
    objective the benchmark cannot give, an unknown device, a bound no architecture meets are
    :class:`InvalidSettingError`), then applied to each evaluation."""

    def __init__(self, benchmark, labels: tuple[str, ...] = (), constraint: str | None = None):
        from ..benchmarks.objectives import Objective, best_under, check_objectives, parse_objectives

        self.benchmark = benchmark
        self.objectives = parse_objectives(labels) if labels else ()
        if len(self.objectives) == 1:
            raise InvalidSettingError(f"--objectives {labels[0]} names one objective: a multi-objective run needs "
                                      "two or more (e.g. error,latency:pixel3); a single-objective run needs none")
        if self.objectives:
            check_objectives(benchmark, self.objectives)
        self.constraint = Constraint.parse(constraint) if constraint is not None else None
        self.constrained_best = None
        if self.constraint is not None:  # a device the benchmark lacks, or a bound nobody meets, is refused here
            check_objectives(benchmark, (Objective("latency", self.constraint.device),))
            self.constrained_best = best_under(benchmark, self.constraint.device, self.constraint.limit_ms)

    @property
    def multi_objective(self) -> bool:
        return bool(self.objectives)

    @property
    def labels(self) -> str:
        """The objectives as text, ``"error,latency:pixel3"`` (stored in every row of a run file)."""
        return ",".join(objective.label for objective in self.objectives)

    def optimum(self) -> float:
        """What single-objective regret is measured from: the best test accuracy of the table,
        among the architectures within the bound when there is one."""
        if self.constrained_best is not None:
            return self.constrained_best.accuracy
        return self.benchmark.optimum("test_accuracy")

    def vectors(self, arch, result) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The validation vector (for the optimizer) and the test vector (for the analysis only)."""
        from ..benchmarks.objectives import objective_vector

        return (objective_vector(self.benchmark, arch, result, self.objectives, "valid"),
                objective_vector(self.benchmark, arch, result, self.objectives, "test"))

    def feasible(self, arch) -> bool:
        if self.constraint is None:
            return True
        return float(self.benchmark.latency(arch, self.constraint.device)) <= self.constraint.limit_ms


def check_optimizer_objectives(optimizer: str, multi_objective: bool, objectives: tuple[str, ...]) -> None:
    """A multi-objective optimizer needs two or more objectives, a single-objective one none."""
    if multi_objective and not objectives:
        raise InvalidSettingError(f"optimizer {optimizer!r} is multi-objective: give it two or more objectives "
                                  "with --objectives, e.g. error,latency:pixel3")
    if not multi_objective and objectives:
        raise InvalidSettingError(f"optimizer {optimizer!r} is single-objective (it maximises validation accuracy) "
                                  f"and cannot take --objectives {','.join(objectives)}; use a multi-objective one "
                                  "(see `nasarena optimizers`) or --constraint for accuracy under a latency bound")
