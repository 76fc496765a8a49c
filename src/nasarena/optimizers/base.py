"""The ask/tell optimizer contract and the optimizer registry.

Optimizers know nothing about the loop that drives them (like Optuna's samplers). What they
are told is an :class:`Observation` (validation accuracy and cost only; test accuracy never
reaches them). The life of an optimizer, as the runner drives it:

1. **Construction** ``Cls(space, seed=..., **settings)``. Every setting is an explicit keyword
   parameter of ``__init__`` stored under the same attribute name (scikit-learn's ``get_params``
   convention), so :meth:`Optimizer.settings` is read off the constructor and never written by
   hand. Each setting's type, range and meaning are declared once, in the class's ``SETTINGS``
   (a name -> :class:`Setting` table); constructing an optimizer checks the given settings
   against it before ``__init__`` runs (the class's metaclass does it, so a directly built
   optimizer is checked as one built by :func:`make`). Settings are keyword-only. Rules that
   tie settings together (``tournament_size <= population_size``) stay in ``__init__``.
2. **ask** is called whenever a worker is free, possibly several times before any ``tell``
   (parallel workers). The base numbers the trial (0, 1, 2, ... in ask order), keeps it as
   pending and calls the subclass's :meth:`Optimizer._ask` with that number, under which the
   subclass keeps whatever per-trial state its ``_tell`` needs.
3. **tell** is called once for every asked trial, in completion order (not ask order). The base
   refuses a trial it did not hand out or that was already told (as Optuna's ``study.tell``
   does), then calls :meth:`Optimizer._tell`.

Capabilities are declared, not discovered: a multi-fidelity optimizer sets
``multi_fidelity = True`` and takes a ``fidelities`` setting, which the runner fills with the
benchmark's fidelities; a multi-objective optimizer sets ``multi_objective = True`` and learns
from :attr:`Observation.objectives` (all minimised) instead of ``valid_accuracy``.
"""

from __future__ import annotations

import inspect
import math
from abc import ABCMeta, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, cast

import numpy as np

from ..errors import InvalidSettingError, NasarenaError, unknown_name
from ..registry import Registry


@dataclass(frozen=True)
class Trial:
    """An architecture to evaluate at a fidelity (None: the benchmark's highest).

    ``number`` is given by :meth:`Optimizer.ask`; a subclass's ``_ask`` leaves it None or sets
    the number it was called with."""

    arch: object
    fidelity: int | None = None
    number: int | None = None

    @classmethod
    def from_fields(cls, arch: object, fidelity: int | None, number: int | None) -> Trial:
        """A Trial from all fields, for the hot paths of cheap optimizers: the same (equal,
        hashable, frozen) object as ``Trial(...)`` at half the cost, as ``Result.from_fields``."""
        trial = object.__new__(cls)
        trial.__dict__.update(arch=arch, fidelity=fidelity, number=number)
        return trial


#: ``proxy_score`` of every observation but a zero-cost one: one NaN object, so that observations
#: built by the constructor and by :meth:`Observation.from_fields` compare equal.
NO_PROXY_SCORE = float("nan")


@dataclass(frozen=True)
class Observation:
    """What an optimizer may learn from an evaluation.

    ``valid`` is False for an architecture outside the space; it then has accuracy 0 and
    cost 0 and does not count towards the budget, as in the original protocol.

    In a multi-objective run ``objectives`` is the validation objective vector, in the order of
    the run's objectives, every one minimised (error = 1 - validation accuracy, latency in ms,
    ...); it is empty in a single-objective run. ``feasible`` is False when the run's
    constraint (e.g. latency <= L ms on a device) is violated: a constrained optimizer never
    prefers such an architecture to a feasible one. The runner fills both; neither ever holds a
    test value.

    ``proxy_score`` answers a trial at fidelity 0 (``nasarena.benchmarks.protocol.ZERO_COST``):
    the zero-cost proxy's value of the untrained network, whose ``valid_accuracy`` is NaN. Only an
    optimizer that asks for fidelity 0 is told one; every other observation has NaN.
    """

    valid_accuracy: float
    cost_seconds: float
    valid: bool = True
    objectives: tuple[float, ...] = ()
    feasible: bool = True
    proxy_score: float = NO_PROXY_SCORE

    @classmethod
    def from_fields(cls, valid_accuracy: float, cost_seconds: float, valid: bool,
                    objectives: tuple[float, ...] = (), feasible: bool = True) -> Observation:
        """An Observation from all fields, for the runner's hot path (as ``Trial.from_fields``);
        the fields are set one by one in the instance's dictionary, which costs less than
        ``dict.update`` with keywords (five fields now cost what three did that way)."""
        observation = object.__new__(cls)
        fields = observation.__dict__
        fields["valid_accuracy"] = valid_accuracy
        fields["cost_seconds"] = cost_seconds
        fields["valid"] = valid
        fields["objectives"] = objectives
        fields["feasible"] = feasible
        fields["proxy_score"] = NO_PROXY_SCORE
        return observation


def objectives_of(observation: Observation) -> tuple[float, ...]:
    """The minimised objective vector a multi-objective optimizer learns from: the observation's
    ``objectives``, or, in a single-objective run (an empty vector), the validation error alone,
    so that a multi-objective optimizer also runs, and is checked, where only accuracy is known."""
    return observation.objectives or (1.0 - observation.valid_accuracy,)


class TrialError(NasarenaError, ValueError):
    """A ``tell`` of a trial the optimizer did not hand out, or one already told."""


@dataclass(frozen=True)
class Setting:
    """The contract of one constructor setting: its type, accepted range and meaning.

    ``kind`` is ``int``, ``float``, ``bool``, ``str`` or ``list`` (a list of whole numbers,
    e.g. fidelities); ``low``/``high`` bound numbers (each element of a list)
    (``low_open``/``high_open`` make a bound exclusive); ``choices`` lists accepted strings;
    ``optional`` accepts None (the default then decides)."""

    kind: type
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | None = None
    optional: bool = False

    def accepted(self) -> str:
        """The accepted values in words, for error messages and ``nasarena optimizers NAME``."""
        if self.choices is not None:
            text = "one of " + ", ".join(self.choices)
        elif self.kind is bool:
            text = "true or false"
        elif self.kind is str:
            text = "a name"
        elif self.kind is list:
            text = "a list of whole numbers" + (f" >= {_number(self.low)}" if self.low is not None else "")
        else:
            noun = "a whole number" if self.kind is int else "a number"
            if self.low is not None and self.high is not None:
                text = f"{noun} in {'(' if self.low_open else '['}{_number(self.low)}, " \
                       f"{_number(self.high)}{')' if self.high_open else ']'}"
            elif self.low is not None:
                text = f"{noun} {'>' if self.low_open else '>='} {_number(self.low)}"
            elif self.high is not None:
                text = f"{noun} {'<' if self.high_open else '<='} {_number(self.high)}"
            else:
                text = noun
        return text + (", or null for none" if self.optional else "")

    def problem(self, value: object) -> str | None:
        """Why ``value`` is not accepted, or None when it is."""
        if value is None:
            return None if self.optional else "a value is required"
        if self.kind is bool:
            return None if isinstance(value, (bool, np.bool_)) else "not true/false"
        if self.kind is list:
            if not isinstance(value, (list, tuple, np.ndarray)) or len(value) == 0:
                return "not a non-empty list"
            element = Setting(int, self.help, low=self.low)
            return next((f"holding {v!r}, {p}" for v in value if (p := element.problem(v)) is not None), None)
        if self.kind is str:
            if not isinstance(value, str):
                return "not a string"
            return None if self.choices is None or value in self.choices else "not a known choice"
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            return "not a number"
        if self.kind is int and not isinstance(value, (int, np.integer)):
            return "not a whole number"
        number = float(value)
        if not math.isfinite(number):
            return "not finite"
        if self.low is not None and (number < self.low or (self.low_open and number == self.low)):
            return "too small"
        if self.high is not None and (number > self.high or (self.high_open and number == self.high)):
            return "too large"
        return None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class _SettingsChecked(ABCMeta):
    """Checks an optimizer's keyword settings against its ``SETTINGS`` before ``__init__`` runs."""

    def __call__(cls, space, seed: int | np.random.Generator = 0, **settings):
        check_settings(cast("type[Optimizer]", cls), settings)
        return super().__call__(space, seed, **settings)


class Optimizer(metaclass=_SettingsChecked):
    """An ask/tell NAS optimizer over a search space, seeded explicitly (see the module docstring)."""

    #: The registry name (``re``) and the one-line description ``nasarena optimizers`` lists.
    name: ClassVar[str] = "optimizer"
    summary: ClassVar[str] = ""
    #: Each constructor setting's type, range and meaning (keys: the ``__init__`` keywords).
    SETTINGS: ClassVar[Mapping[str, Setting]] = {}
    #: True for optimizers that schedule fidelities themselves (they take ``fidelities``).
    multi_fidelity: ClassVar[bool] = False
    #: True for optimizers that minimise the vector ``Observation.objectives`` (a Pareto front);
    #: False for those that maximise ``valid_accuracy``.
    multi_objective: ClassVar[bool] = False
    #: For a re-implementation, the registry name of the library-backed optimizer it reproduces
    #: (``smac3`` for ``smac``): a setting only the reference has is refused with its name.
    reference: ClassVar[str | None] = None
    #: Settings whose default changed after results were written with the old one (RE's and
    #: NRE's ``mutation``, BANANAS' ``warm_steps``): an experiment records their defaults in its
    #: settings hash, so a results directory never resumes runs made under another default as
    #: runs of this one.
    recorded_defaults: ClassVar[tuple[str, ...]] = ()
    #: Whether the optimizer's state pickles, so that a run of it saves checkpoints and resumes
    #: midway (:mod:`nasarena.runner.checkpoint`; the conformance suite checks the resumed run is
    #: the same). False for wrappers of libraries whose objects hold local functions (Optuna's
    #: studies, SMAC3's facade): their runs restart from the beginning when killed.
    checkpointable: ClassVar[bool] = True

    def __init__(self, space, seed: int | np.random.Generator = 0):
        self.space = space
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._handed_out: dict[int, Trial] = {}
        self._next_number = 0

    # -- the public protocol (not overridden) ------------------------------------------------

    def ask(self) -> Trial:
        """The next trial to evaluate, numbered in ask order."""
        number = self._next_number
        trial = self._ask(number)
        if trial.number != number:
            trial = _numbered(trial, number)
        self._next_number += 1
        self._handed_out[number] = trial
        return trial

    def tell(self, trial: Trial, observation: Observation) -> None:
        """Report the outcome of an earlier ``ask``; each trial is told exactly once."""
        if trial.number not in self._handed_out:
            if isinstance(trial.number, int) and 0 <= trial.number < self._next_number:
                raise TrialError(f"{self.name}: trial {trial.number} was already told")
            raise TrialError(f"{self.name}: trial {trial.number} was not handed out by this optimizer's ask()")
        del self._handed_out[trial.number]
        self._tell(trial, observation)

    def settings(self) -> dict:
        """The constructor's settings as plain values (recorded with every trajectory)."""
        return {name: _plain(getattr(self, name)) for name in setting_names(type(self))}

    # -- what a subclass writes -------------------------------------------------------------

    @abstractmethod
    def _ask(self, number: int) -> Trial:
        """Propose the trial that will carry ``number``. Called by :meth:`ask`; keep any state
        ``_tell`` needs keyed by ``number``. The trial may carry ``number`` already (a cheap
        optimizer builds ``Trial.from_fields(arch, None, number)``, saving the numbered copy)."""

    @abstractmethod
    def _tell(self, trial: Trial, observation: Observation) -> None:
        """Learn from a finished trial (``trial.number`` is set). Called by :meth:`tell`, once per
        trial, in completion order."""


def _numbered(trial: Trial, number: int) -> Trial:
    """A copy of ``trial`` carrying ``number`` (``dataclasses.replace`` costs ~1.5 us, more than a
    cheap optimizer's whole ask; filling the frozen object's ``__dict__`` at once gives the same
    equal, hashable object, as ``Result.from_fields`` does)."""
    numbered = object.__new__(Trial)
    numbered.__dict__.update(trial.__dict__, number=number)
    return numbered


def setting_names(cls: type[Optimizer]) -> tuple[str, ...]:
    """The constructor's keyword settings of an optimizer class (all but ``space`` and ``seed``)."""
    parameters = inspect.signature(cls.__init__).parameters
    return tuple(name for name in parameters if name not in ("self", "space", "seed"))


def setting_defaults(cls: type[Optimizer]) -> dict[str, object]:
    parameters = inspect.signature(cls.__init__).parameters
    return {name: parameters[name].default for name in setting_names(cls)}


def check_settings(cls: type[Optimizer], settings: Mapping[str, object]) -> None:
    """Refuse an unknown setting or a value outside its declared range, naming the optimizer,
    the setting and what is accepted."""
    names = setting_names(cls)
    for key, value in settings.items():
        if key not in names:
            error = unknown_name("setting", key, names, owner=f"of optimizer {cls.name!r}")
            if cls.reference is not None and key in setting_names(optimizer_class(cls.reference)):
                error.args = (f"{error.args[0]}; {key} is a setting of {cls.reference!r}, the library-backed "
                              f"optimizer that {cls.name!r} re-implements",)
            raise error
        rule = cls.SETTINGS.get(key)
        problem = None if rule is None else rule.problem(value)
        if rule is not None and problem is not None:
            raise InvalidSettingError(f"optimizer {cls.name!r}: setting {key}={value!r} is {problem}; "
                                      f"{key} must be {rule.accepted()}")


def _plain(value: object) -> object:
    """A setting as a JSON-ready value (tuples and arrays as lists, numpy scalars as Python's)."""
    if isinstance(value, (tuple, list, np.ndarray)):
        return [_plain(v) for v in value]
    return value.item() if isinstance(value, np.generic) else value


#: Every built-in optimizer by name, imported on first use; a plug-in joins with
#: ``REGISTRY.add(name, cls)`` (and gets the conformance suite of :mod:`nasarena.testing`).
REGISTRY = Registry("optimizer", {
    "bananas": "nasarena.optimizers.bananas:Bananas",
    "bohb": "nasarena.optimizers.bohb:BOHB",
    "de": "nasarena.optimizers.differential_evolution:DifferentialEvolution",
    "ehvi-rf": "nasarena.optimizers.ehvi:EHVIForest",
    "hb": "nasarena.optimizers.hyperband:Hyperband",
    "irace": "nasarena.optimizers.racing:IteratedRacing",
    "ls": "nasarena.optimizers.local_search:LocalSearch",
    "mo-asha": "nasarena.optimizers.mo_asha:MOASHA",
    "mo-re": "nasarena.optimizers.multi_objective:MultiObjectiveRegularizedEvolution",
    "mo-rs": "nasarena.optimizers.multi_objective:MultiObjectiveRandomSearch",
    "motpe-optuna": "nasarena.optimizers.mo_optuna:MOTPEOptuna",
    "nre": "nasarena.optimizers.evolution:NonRegularizedEvolution",
    "nsga2": "nasarena.optimizers.nsga2:NSGA2",
    "nsga2-optuna": "nasarena.optimizers.mo_optuna:NSGA2Optuna",
    "parego-bananas": "nasarena.optimizers.parego:ParEGOBananas",
    "parego-smac": "nasarena.optimizers.parego:ParEGOSMAC",
    "parego-tpe": "nasarena.optimizers.parego:ParEGOTPE",
    "re": "nasarena.optimizers.evolution:RegularizedEvolution",
    "reinforce": "nasarena.optimizers.reinforce:Reinforce",
    "rs": "nasarena.optimizers.random_search:RandomSearch",
    "smac": "nasarena.optimizers.smac:SMAC",
    "smac3": "nasarena.optimizers.smac3:SMAC3",
    "tpe": "nasarena.optimizers.tpe:TPE",
    "tpe-optuna": "nasarena.optimizers.tpe_optuna:TPEOptuna",
})


def make(name: str, space, seed: int | np.random.Generator = 0, **settings) -> Optimizer:
    """An optimizer by registry name, with the papers' defaults unless ``settings`` override them."""
    cls = optimizer_class(name)
    try:
        return cls(space, seed=seed, **settings)
    except ValueError as error:  # a rule tying settings together
        if isinstance(error, NasarenaError):
            raise
        raise InvalidSettingError(f"optimizer {name!r}: {error}") from None


def optimizer_class(name: str) -> type[Optimizer]:
    """The registered class of an optimizer name (an unknown name is an error with suggestions)."""
    return cast("type[Optimizer]", REGISTRY[name])


def available() -> list[type[Optimizer]]:
    """Every registered optimizer class, by name (each has ``name`` and ``summary``)."""
    return [optimizer_class(name) for name in sorted(REGISTRY)]
