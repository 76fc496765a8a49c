"""Optuna's multi-objective samplers as references: ``NSGAIISampler`` and multi-objective TPE.

As ``tpe-optuna`` is for ``tpe``, these run the library itself over the space's ConfigSpace
encoding (define-by-run, through :class:`~.config_bridge.OptunaBridge`), with Optuna's defaults:
``nsga2-optuna`` against nasarena's ``nsga2``, ``motpe-optuna`` (Optuna's ``TPESampler`` on a
multi-objective study: MOTPE, Ozaki et al. 2022) against the ParEGO and evolutionary ones. The
study minimises ``n_objectives`` objectives; Optuna fixes their number when the study is made,
before the first result, so it is a setting (2 by default: error and one cost), and a result
with another number of objectives is refused. An invalid architecture is told as a failed
trial (Optuna leaves failed trials out of its populations and densities); feasibility (the
run's constraint) reaches Optuna's own constraint handling (constrained domination in NSGA-II,
feasible-first ranking in TPE): ``Trial.set_constraint`` from Optuna 5, which deprecates the
samplers' ``constraints_func`` that Optuna 3 and 4 need. Optuna is imported only when one is built.
"""

from __future__ import annotations

from ..errors import InvalidSettingError, import_extra
from .base import Observation, Optimizer, Setting, Trial, objectives_of
from .config_bridge import OptunaBridge, experimental_features, quiet_optuna

#: The user attribute (Optuna 3, 4) or constraint name (Optuna 5) carrying the constraint (<= 0: feasible).
CONSTRAINT = "nasarena_constraint"


def _constraint(frozen_trial) -> tuple[float]:
    return (frozen_trial.user_attrs[CONSTRAINT],)


def _constraints_func(optuna):
    """The samplers' ``constraints_func`` where Optuna has no ``Trial.set_constraint`` (before 5)."""
    return None if hasattr(optuna.trial.Trial, "set_constraint") else _constraint


class _OptunaMultiObjective(Optimizer):
    multi_objective = True
    checkpointable = False  # the library's objects hold local functions: they do not pickle

    def _start(self, n_objectives: int, encoding: str, sampler) -> None:
        optuna = import_extra("optuna", f"the {self.name} optimizer")
        self.bridge = OptunaBridge(self.space.config_space(encoding))
        self.study = optuna.create_study(directions=["minimize"] * n_objectives, sampler=sampler)
        self._failed = optuna.trial.TrialState.FAIL
        self._pending: dict[int, object] = {}

    def _ask(self, number: int) -> Trial:
        study_trial = self.study.ask()
        self._pending[number] = study_trial
        return Trial(self.space.from_config(self.bridge.suggest(study_trial), self.encoding))

    def _tell(self, trial: Trial, observation: Observation) -> None:
        study_trial = self._pending.pop(trial.number)
        violation = 0.0 if observation.feasible else 1.0
        if hasattr(study_trial, "set_constraint"):
            study_trial.set_constraint(CONSTRAINT, violation)
        else:
            study_trial.set_user_attr(CONSTRAINT, violation)
        if not observation.valid:
            self.study.tell(study_trial, state=self._failed)
            return
        vector = objectives_of(observation)
        if len(vector) != self.n_objectives:
            raise InvalidSettingError(f"optimizer {self.name!r} was built for n_objectives={self.n_objectives} "
                                      f"but told {len(vector)} objective(s): set n_objectives={len(vector)}")
        self.study.tell(study_trial, list(vector))


_COMMON = {
    "n_objectives": Setting(int, "objectives the study minimises (Optuna fixes them before the first result)",
                            low=1),
    "encoding": Setting(str, "the space's ConfigSpace encoding Optuna searches"),
}


class NSGA2Optuna(_OptunaMultiObjective):
    name = "nsga2-optuna"
    summary = "NSGA-II by Optuna's NSGAIISampler itself, any ConfigSpace encoding (the reference of nsga2)"

    SETTINGS = {**_COMMON, "population_size": Setting(int, "Optuna's population_size", low=2)}

    def __init__(self, space, seed=0, *, n_objectives: int = 2, population_size: int = 50,
                 encoding: str = "categorical"):
        super().__init__(space, seed)
        optuna = quiet_optuna("the nsga2-optuna optimizer")
        self.n_objectives = n_objectives
        self.population_size = population_size
        self.encoding = encoding
        with experimental_features(optuna):  # constraints_func
            sampler = optuna.samplers.NSGAIISampler(population_size=population_size,
                                                    seed=int(self.rng.integers(2**31)),
                                                    constraints_func=_constraints_func(optuna))
        self._start(n_objectives, encoding, sampler)


class MOTPEOptuna(_OptunaMultiObjective):
    name = "motpe-optuna"
    summary = "multi-objective TPE (MOTPE) by Optuna's TPESampler itself on a multi-objective study"

    SETTINGS = {**_COMMON, "n_startup_trials": Setting(int, "random trials before TPE's densities are used",
                                                        low=0)}

    def __init__(self, space, seed=0, *, n_objectives: int = 2, n_startup_trials: int = 10,
                 encoding: str = "categorical"):
        super().__init__(space, seed)
        optuna = quiet_optuna("the motpe-optuna optimizer")
        self.n_objectives = n_objectives
        self.n_startup_trials = n_startup_trials
        self.encoding = encoding
        with experimental_features(optuna):  # constraints_func
            sampler = optuna.samplers.TPESampler(seed=int(self.rng.integers(2**31)), n_startup_trials=n_startup_trials,
                                                 constant_liar=True, constraints_func=_constraints_func(optuna))
        self._start(n_objectives, encoding, sampler)
