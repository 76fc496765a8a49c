"""The runtime model of a surrogate benchmark: training seconds of an architecture (NB301 Sec. 3.1.4).

A LightGBM regressor, as in the paper, fitted on ``log(seconds / epochs)`` of the runs whose
training time the data holds. Training time is taken as proportional to the number of
epochs, so one model serves every fidelity, also fidelities whose runs have no recorded time
(a data set with times at 108 epochs only still gives costs at 4, 12 and 36 epochs); working
on the log keeps the fit relative, as runtimes span orders of magnitude.
"""

from __future__ import annotations

import numpy as np

from .models import make_model
from .prediction import member_predictor

#: Small and fast to evaluate: runtime is far easier to predict than accuracy (the paper's
#: runtime model reaches R^2 0.987), and every benchmark query evaluates it. 60 trees of 31
#: leaves fit NB101 and NB201 times with held-out R^2 0.993 and 0.9998 (300 trees: 0.996 and
#: 0.9999) at 4x the batch speed.
DEFAULTS = dict(n_estimators=60, num_leaves=31, max_depth=-1, learning_rate=0.3, colsample_bytree=0.8,
                min_child_weight=1e-3, reg_lambda=1.0, reg_alpha=0.0, max_bin=255, early_stopping_rounds=10)


class RuntimeModel:
    """Predicts training seconds from an architecture's encoding and the epochs trained."""

    def __init__(self, seed: int = 0, **settings):
        self.settings = {**DEFAULTS, **settings}
        self.model = make_model("lgb", seed=seed, **self.settings)
        self._predict = None  # the booster called directly, built on first use (not pickled)

    def fit(self, x: np.ndarray, epochs: np.ndarray, seconds: np.ndarray, x_val=None, epochs_val=None,
            seconds_val=None) -> RuntimeModel:
        y = self._target(seconds, epochs, "seconds")
        if x_val is not None and len(x_val):
            self.model.fit(x, y, x_val, self._target(seconds_val, epochs_val, "validation seconds"))
        else:
            self.model.fit(x, y)
        return self

    def predict(self, x: np.ndarray, epochs) -> np.ndarray:
        """Training seconds for ``epochs`` (a number, or one per row)."""
        if self._predict is None:
            self._predict = member_predictor(self.model)
        return np.asarray(epochs, dtype=np.float64) * np.exp(self._predict(x))

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_predict": None}

    @staticmethod
    def _target(seconds, epochs, what: str) -> np.ndarray:
        seconds, epochs = np.asarray(seconds, dtype=np.float64), np.asarray(epochs, dtype=np.float64)
        if np.any(~(seconds > 0)):
            raise ValueError(f"runtime model: {what} must be positive (missing times are left out before fitting)")
        return np.log(seconds / epochs)
