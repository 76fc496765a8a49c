"""Configurations of a ConfigSpace encoding with finitely many values per parameter as rows of value indices.

The vectorised re-implementations (``tpe``, ``smac``) keep configurations as integer vectors,
one entry per parameter (``-1`` where a condition makes the parameter inactive, ConfigSpace's
NaN), and turn a vector into the ``{name: value}`` mapping ``space.from_config`` reads only when
an architecture is proposed. Conditions are compiled once into column tests, so the activity of
thousands of configurations is a few numpy operations (``settle``).

Categorical, ordinal and constant parameters are always held (an index into their choices).
An optimizer that models integers as SMAC3 does (``smac``) also passes ``max_integer_values``:
an unconditional, linearly scaled integer parameter with at most that many values is then held
as its values in order (index 0 its lower bound), and a greater-than or less-than condition on
it becomes a test of its column. Encodings an optimizer cannot hold this way (floats, other
integers, conditions other than these, forbidden clauses) are refused with the name of the
library-backed optimizer that runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidSettingError

Test = Callable[[np.ndarray], np.ndarray]  # rows of category indices -> bool per row


@dataclass(frozen=True, eq=False)
class _OneOf:
    """A condition's test: whether the parent's column holds one of the allowed value indices (an
    inactive parent, -1, never does). ``member[i + 1]`` says whether index ``i`` is allowed, so a
    test is one look-up per row: ``np.isin`` cost several times more on the few rows of SMAC's
    local-search neighbourhoods, called thousands of times a run. A class, not a closure, so that
    an optimizer holding it pickles into a run's checkpoint."""

    column: int
    member: np.ndarray

    @classmethod
    def of(cls, column: int, allowed: list[int], size: int) -> _OneOf:
        member = np.zeros(size + 1, dtype=bool)
        member[np.asarray(allowed, dtype=np.int64) + 1] = True
        return cls(column, member)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        return self.member[rows[:, self.column] + 1]


@dataclass(frozen=True, eq=False)
class _Combined:
    """A conjunction (``all_of``) or disjunction of tests."""

    parts: tuple[Test, ...]
    all_of: bool

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        combine = np.logical_and if self.all_of else np.logical_or
        return combine.reduce([part(rows) for part in self.parts])


class CategoricalConfigs:
    """The parameters' names and values of ``config_space``, their conditions, and vector <-> configuration.

    ``max_integer_values`` (0: integers refused) is the most values an integer parameter may
    have to be held as its ordered values (see the module).
    """

    def __init__(self, config_space, optimizer: str, reference: str, *, max_integer_values: int = 0):
        import ConfigSpace as cs

        models = ("categorical parameters with equality or membership conditions" if not max_integer_values else
                  f"categorical parameters and unconditional integers of at most {max_integer_values} values, with "
                  "equality or membership conditions, or greater- or less-than conditions on an integer")

        def refuse(why: str) -> InvalidSettingError:
            return InvalidSettingError(f"the {config_space.name!r} encoding {why}; the {optimizer} optimizer models "
                                       f"{models}: use {reference}")

        if config_space.forbidden_clauses:
            raise refuse("has forbidden clauses")
        self.names = list(config_space.keys())  # topological: parents before children
        self.choices: list[tuple] = []
        integers: set[int] = set()  # columns holding an integer's values in order
        for name, hyperparameter in config_space.items():
            if isinstance(hyperparameter, cs.CategoricalHyperparameter):
                self.choices.append(tuple(hyperparameter.choices))
            elif isinstance(hyperparameter, cs.OrdinalHyperparameter):  # unordered, as Optuna and SMAC3 treat it
                self.choices.append(tuple(hyperparameter.sequence))
            elif isinstance(hyperparameter, cs.Constant):
                self.choices.append((hyperparameter.value,))
            elif isinstance(hyperparameter, cs.UniformIntegerHyperparameter) and max_integer_values:
                conditional = bool(config_space.parent_conditions_of[name])
                if hyperparameter.log or hyperparameter.size > max_integer_values or conditional:
                    raise refuse(f"has the integer parameter {name!r} ({hyperparameter.size} values"
                                 f"{', log-scaled' if hyperparameter.log else ''}{', conditional' if conditional else ''})")
                integers.add(len(self.choices))
                self.choices.append(tuple(range(hyperparameter.lower, hyperparameter.upper + 1)))
            else:
                raise refuse(f"has the {type(hyperparameter).__name__} parameter {name!r}")
        #: Number of values of each parameter.
        self.sizes = np.array([len(c) for c in self.choices], dtype=np.int64)
        #: Each parameter's default value (its index), which a parameter takes when a change makes it active.
        self.defaults = np.array([c.index(config_space[name].default_value) for name, c in zip(self.names, self.choices)])
        column = {name: j for j, name in enumerate(self.names)}

        def compile_condition(condition) -> Test:
            if isinstance(condition, (cs.AndConjunction, cs.OrConjunction)):
                return _Combined(tuple(compile_condition(part) for part in condition.components),
                                 isinstance(condition, cs.AndConjunction))
            parent = condition.parent.name
            if parent not in column:
                raise refuse(f"has a condition on {parent!r}")
            p, values = column[parent], self.choices[column[parent]]
            if isinstance(condition, cs.EqualsCondition):
                allowed = [values.index(condition.value)]
            elif isinstance(condition, cs.NotEqualsCondition):
                allowed = [i for i, v in enumerate(values) if v != condition.value]
            elif isinstance(condition, cs.InCondition):
                allowed = [values.index(v) for v in condition.values if v in values]
            elif isinstance(condition, cs.GreaterThanCondition) and p in integers:
                allowed = [i for i, v in enumerate(values) if v > condition.value]
            elif isinstance(condition, cs.LessThanCondition) and p in integers:
                allowed = [i for i, v in enumerate(values) if v < condition.value]
            else:
                raise refuse(f"has a {type(condition).__name__}")
            return _OneOf.of(p, allowed, len(values))

        def all_of(conditions) -> Test:
            tests = tuple(compile_condition(c) for c in conditions)
            return tests[0] if len(tests) == 1 else _Combined(tests, all_of=True)

        #: (column, the test of its parent conditions) of every conditional parameter, parents first.
        self.conditions: list[tuple[int, Test]] = [
            (column[name], all_of(config_space.parent_conditions_of[name]))
            for name in self.names if config_space.parent_conditions_of[name]
        ]

    def settle(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` (changed in place) with every inactive parameter at -1 and every parameter that
        became active, and had no value, at its default: ConfigSpace's rule after a change."""
        for j, test in self.conditions:  # parents first: a parent made inactive deactivates its children
            active = test(rows)
            column = rows[:, j]
            rows[:, j] = np.where(active, np.where(column < 0, self.defaults[j], column), -1)
        return rows

    def config(self, vector: np.ndarray) -> dict[str, object]:
        """The ``{name: value}`` configuration of a vector (inactive parameters left out)."""
        return {name: choices[index] for name, choices, index in zip(self.names, self.choices, vector.tolist())
                if index >= 0}

    def random(self, rng: np.random.Generator, count: int | None = None) -> np.ndarray:
        """Uniformly random configurations (one vector, or ``count`` rows), as ConfigSpace samples:
        every parameter drawn, the inactive ones then dropped."""
        uniform = rng.random((1 if count is None else count, len(self.sizes)))
        rows = self.settle((uniform * self.sizes).astype(np.int64))  # floor(u * c): uniform over 0..c-1
        return rows[0] if count is None else rows


class Rows:
    """Configuration vectors appended one at a time into a matrix that doubles when full, so the
    history is one array at every step instead of a list converted again and again."""

    def __init__(self, width: int):
        self._data = np.empty((64, width), dtype=np.int64)
        self.count = 0

    def append(self, vector: np.ndarray) -> None:
        if self.count == len(self._data):
            self._data = np.concatenate([self._data, np.empty_like(self._data)])
        self._data[self.count] = vector
        self.count += 1

    @property
    def array(self) -> np.ndarray:
        """The rows so far (a view)."""
        return self._data[: self.count]
