"""TPE (Bergstra et al. 2011) through Optuna's ``TPESampler``, over the space's categorical encoding.

Each dimension of ``space.categorical_dims()`` is one categorical parameter (NB101: 21 edges
and 5 ops, the NB101 paper's encoding; NB201: 6 edges). Optuna's defaults are kept, as the
NB101 paper kept hyperopt's. Invalid architectures are told as accuracy 0, the convention of
the original benchmarking code; Optuna is imported only when a TPE optimizer is built.
"""

from __future__ import annotations

from .base import Observation, Optimizer, Trial, register


@register("tpe", "TPE via Optuna's TPESampler over the categorical encoding (Optuna defaults)")
class TPE(Optimizer):
    def __init__(self, space, seed=0, n_startup_trials: int = 10, multivariate: bool = False):
        super().__init__(space, seed)
        try:
            import optuna
        except ImportError:
            raise ImportError("the tpe optimizer needs optuna: pip install 'nasarena[optimizers]'") from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.n_startup_trials = n_startup_trials
        self.multivariate = multivariate
        sampler = optuna.samplers.TPESampler(seed=int(self.rng.integers(2**31)), n_startup_trials=n_startup_trials,
                                             multivariate=multivariate)
        self.study = optuna.create_study(direction="maximize", sampler=sampler)
        self.distributions = {f"x{i}": optuna.distributions.CategoricalDistribution(list(range(k)))
                              for i, k in enumerate(space.categorical_dims())}
        self._pending: dict[int, object] = {}

    def settings(self) -> dict:
        return {"n_startup_trials": self.n_startup_trials, "multivariate": self.multivariate}

    def ask(self) -> Trial:
        study_trial = self.study.ask(self.distributions)
        values = [study_trial.params[name] for name in self.distributions]
        trial = Trial(self.space.from_categorical(values))
        self._pending[id(trial)] = study_trial
        return trial

    def tell(self, trial: Trial, observation: Observation) -> None:
        study_trial = self._pending.pop(id(trial))
        self.study.tell(study_trial, observation.valid_accuracy if observation.valid else 0.0)
