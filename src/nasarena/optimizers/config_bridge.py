"""A ``ConfigSpace.ConfigurationSpace`` as Optuna parameters, suggested define-by-run.

Optimizers get a space's parameters from ``space.config_space(encoding)``, so one bridge
makes Optuna's samplers work on every encoding of every space. Conditional parameters (the
NB101 variable-size encoding) cannot be one fixed Optuna search space: each parameter is
suggested in ConfigSpace's topological order, and only if its conditions hold for the values
suggested before it — exactly ConfigSpace's own activity rule, evaluated on the partial vector.

Supported: categorical, ordinal (as an unordered categorical, TPE's treatment), uniform
integer and float (log scale kept), constants. Priors (normal, beta) and forbidden clauses
have no Optuna counterpart and are rejected when the bridge is built.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..errors import import_extra


def quiet_optuna(purpose: str):
    """Optuna, imported for ``purpose`` (without the ``[optimizers]`` extra: a clear error naming
    it), its per-trial INFO logging silenced: an experiment runs thousands of trials."""
    optuna = import_extra("optuna", purpose)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


@contextlib.contextmanager
def experimental_features(optuna) -> Iterator[None]:
    """Optuna's ExperimentalWarning silenced: the samplers' options nasarena relies on (constraints,
    grouped multivariate TPE) are marked experimental in Optuna."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        yield


@dataclass(frozen=True)
class BridgedParameter:
    """One ConfigSpace hyperparameter: how to suggest it, and when it is active."""

    name: str
    index: int  # position in the ConfigSpace vector, where the activity conditions look
    suggest: Callable  # (optuna trial) -> value
    to_vector: Callable  # value -> ConfigSpace vector entry
    conditions: tuple  # parent conditions, all of which must hold


def _plain(value):
    """Python scalars for Optuna, whose categorical choices must be None/bool/int/float/str."""
    return value.item() if isinstance(value, np.generic) else value


def _suggester(hyperparameter) -> Callable:
    import ConfigSpace as cs

    name = hyperparameter.name
    if isinstance(hyperparameter, cs.Constant):
        value = _plain(hyperparameter.value)
        return lambda trial: value
    if isinstance(hyperparameter, cs.CategoricalHyperparameter):
        choices = tuple(_plain(choice) for choice in hyperparameter.choices)
        return lambda trial: trial.suggest_categorical(name, choices)
    if isinstance(hyperparameter, cs.OrdinalHyperparameter):
        sequence = tuple(_plain(item) for item in hyperparameter.sequence)
        return lambda trial: trial.suggest_categorical(name, sequence)
    if isinstance(hyperparameter, cs.UniformIntegerHyperparameter):
        low, high, log = int(hyperparameter.lower), int(hyperparameter.upper), bool(hyperparameter.log)
        return lambda trial: trial.suggest_int(name, low, high, log=log)
    if isinstance(hyperparameter, cs.UniformFloatHyperparameter):
        low, high, log = float(hyperparameter.lower), float(hyperparameter.upper), bool(hyperparameter.log)
        return lambda trial: trial.suggest_float(name, low, high, log=log)
    raise ValueError(f"hyperparameter {name!r}: {type(hyperparameter).__name__} has no Optuna counterpart "
                     "(supported: categorical, ordinal, uniform integer/float, constant)")


class OptunaBridge:
    """Suggests a configuration of ``config_space`` through an Optuna trial (``study.ask()``)."""

    def __init__(self, config_space):
        if config_space.forbidden_clauses:
            raise ValueError(f"configuration space {config_space.name!r} has forbidden clauses, "
                             "which Optuna cannot respect")
        self.size = len(config_space)
        self.parameters = tuple(
            BridgedParameter(name, config_space.index_of[name], _suggester(hyperparameter), hyperparameter.to_vector,
                             tuple(config_space.parent_conditions_of[name]))
            for name, hyperparameter in config_space.items()  # topological: parents first
        )
        self.conditional = any(parameter.conditions for parameter in self.parameters)

    def suggest(self, trial) -> dict[str, object]:
        """The active parameters' values, suggested in order (inactive ones are never suggested)."""
        values: dict[str, object] = {}
        vector = np.full(self.size, np.nan)
        for parameter in self.parameters:
            if all(condition.satisfied_by_vector(vector) for condition in parameter.conditions):
                value = parameter.suggest(trial)
                values[parameter.name] = value
                vector[parameter.index] = parameter.to_vector(value)
        return values
