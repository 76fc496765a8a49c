"""TPE (Bergstra et al. 2011) through Optuna's ``TPESampler`` itself, over a ConfigSpace encoding of the space.

This is the library-backed reference (``tpe-optuna``) of nasarena's vectorised ``tpe``
(:mod:`.tpe`), which reproduces its univariate estimator on categorical encodings, conditional ones
too, at a fraction of the cost; this one also runs numeric encodings and multivariate TPE.

The parameters are those of ``space.config_space(encoding)``, suggested define-by-run through
:class:`~.config_bridge.OptunaBridge`, so TPE runs on every encoding: the default
``categorical`` is the NB101 paper's (21 edges and 5 ops; NB201: 6 edges), and the NB101
paper's Supplement S3 found TPE much stronger on the ``continuous`` one. Optuna's defaults are
kept, as the NB101 paper kept hyperopt's, except that TPE stays univariate as hyperopt's was.
Invalid architectures are told as accuracy 0, the convention of the original benchmarking
code; Optuna is imported only when a TPE optimizer is built.
"""

from __future__ import annotations

from .base import Observation, Optimizer, Setting, Trial
from .config_bridge import OptunaBridge, experimental_features, quiet_optuna
from .tpe import TPE


class TPEOptuna(Optimizer):
    name = "tpe-optuna"
    summary = "TPE by Optuna's TPESampler itself, any ConfigSpace encoding (the reference of tpe)"
    checkpointable = False  # the library's objects hold local functions: they do not pickle

    #: ``tpe``'s settings, on any encoding, and multivariate TPE.
    SETTINGS = {**TPE.SETTINGS,
                "multivariate": Setting(bool, "one joint density over all parameters instead of one per parameter"),
                "encoding": Setting(str, "the space's ConfigSpace encoding TPE searches (numeric ones included)")}

    def __init__(self, space, seed=0, *, n_startup_trials: int = 10, multivariate: bool = False,
                 encoding: str = "categorical"):
        super().__init__(space, seed)
        optuna = quiet_optuna("the tpe-optuna optimizer")
        self.n_startup_trials = n_startup_trials
        self.multivariate = multivariate
        self.encoding = encoding
        self.bridge = OptunaBridge(space.config_space(encoding))
        with experimental_features(optuna):  # group=True: what makes multivariate TPE handle conditions
            sampler = optuna.samplers.TPESampler(seed=int(self.rng.integers(2**31)), n_startup_trials=n_startup_trials,
                                                 multivariate=multivariate,
                                                 group=multivariate and self.bridge.conditional,
                                                 constant_liar=True)  # Optuna 5's default, fixed for 3.x and 4.x
        self.study = optuna.create_study(direction="maximize", sampler=sampler)
        self._pending: dict[int, object] = {}

    def _ask(self, number: int) -> Trial:
        study_trial = self.study.ask()
        trial = Trial(self.space.from_config(self.bridge.suggest(study_trial), self.encoding))
        self._pending[number] = study_trial
        return trial

    def _tell(self, trial: Trial, observation: Observation) -> None:
        study_trial = self._pending.pop(trial.number)
        self.study.tell(study_trial, observation.valid_accuracy if observation.valid else 0.0)
