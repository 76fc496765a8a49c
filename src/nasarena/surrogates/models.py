"""Surrogate regressors with a common fit/predict interface and the NAS-Bench-301 defaults.

Defaults are the values the NAS-Bench-301 paper found by HPO (its Table 6) where they apply;
the number of boosting rounds is not in that table, so boosted trees train up to
``n_estimators`` rounds and stop early on the validation set when one is given. Every model
takes an explicit seed. The heavy libraries (xgboost, lightgbm, ngboost, scikit-learn) are
imported only when a model is built (the ``[surrogates]`` extra).
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod

import numpy as np

from ..errors import import_extra
from ..registry import Registry


class SurrogateModel(ABC):
    """fit(X, y[, X_val, y_val]) then predict(X); y is validation accuracy in [0, 1]."""

    name: str

    def __init__(self, seed: int = 0, **settings):
        self.seed = seed
        self.settings = {**self.defaults(), **settings}

    @classmethod
    def defaults(cls) -> dict:
        return {}

    @classmethod
    def settings_for_space(cls, space) -> dict:
        """Settings the model takes from the space it is fitted on (none for models of plain vectors)."""
        return {}

    @abstractmethod
    def fit(self, x: np.ndarray, y: np.ndarray, x_val: np.ndarray | None = None, y_val: np.ndarray | None = None):
        """Train on (x, y); optional validation data for early stopping."""

    @abstractmethod
    def predict(self, x: np.ndarray) -> np.ndarray:
        """Predicted accuracies."""


def _require(module: str):
    return import_extra(module, "this surrogate")


class XGBoostModel(SurrogateModel):
    name = "xgb"

    @classmethod
    def defaults(cls) -> dict:
        return dict(max_depth=13, min_child_weight=39, colsample_bylevel=0.6909, colsample_bytree=0.2545,
                    reg_lambda=31.3933, reg_alpha=0.2417, learning_rate=0.00824, n_estimators=4000,
                    early_stopping_rounds=100)

    def fit(self, x, y, x_val=None, y_val=None):
        xgboost = _require("xgboost")
        settings = dict(self.settings)
        stopping = settings.pop("early_stopping_rounds")
        self.model = xgboost.XGBRegressor(**settings, early_stopping_rounds=stopping if x_val is not None else None, random_state=self.seed,
                                          tree_method="hist", n_jobs=1)
        evaluation = [(x_val, y_val)] if x_val is not None else None
        self.model.fit(x, y, eval_set=evaluation, verbose=False)
        return self

    def predict(self, x):
        return self.model.predict(x).astype(np.float64)


class LightGBMModel(SurrogateModel):
    name = "lgb"

    @classmethod
    def defaults(cls) -> dict:
        return dict(max_depth=18, num_leaves=40, max_bin=336, colsample_bytree=0.1532, min_child_weight=0.5822,
                    reg_alpha=0.0115, reg_lambda=134.507, learning_rate=0.0218, n_estimators=4000,
                    early_stopping_rounds=100)

    def fit(self, x, y, x_val=None, y_val=None):
        lightgbm = _require("lightgbm")
        settings = dict(self.settings)
        stopping = settings.pop("early_stopping_rounds")
        self.model = lightgbm.LGBMRegressor(**settings, random_state=self.seed, n_jobs=1, verbose=-1)
        callbacks = [lightgbm.early_stopping(stopping, verbose=False)] if x_val is not None else None
        with warnings.catch_warnings():  # eval_set works on every lightgbm 4.x; 4.7 prefers eval_X/eval_y
            warnings.simplefilter("ignore", category=FutureWarning)
            warnings.simplefilter("ignore", category=DeprecationWarning)
            self.model.fit(x, y, eval_set=[(x_val, y_val)] if x_val is not None else None, callbacks=callbacks)
        return self

    def predict(self, x):
        return self.model.predict(x).astype(np.float64)


class RandomForestModel(SurrogateModel):
    name = "rf"

    @classmethod
    def defaults(cls) -> dict:
        return dict(n_estimators=116, min_samples_split=2, min_samples_leaf=2, max_features=0.1706, bootstrap=False)

    def fit(self, x, y, x_val=None, y_val=None):
        ensemble = _require("sklearn.ensemble")
        self.model = ensemble.RandomForestRegressor(**self.settings, random_state=self.seed, n_jobs=1).fit(x, y)
        return self

    def predict(self, x):
        return self.model.predict(x)


class EpsilonSVRModel(SurrogateModel):
    """epsilon-SVR (scikit-learn; training is quadratic in the number of architectures)."""

    name = "svr"

    @classmethod
    def defaults(cls) -> dict:
        return dict(C=3.066, coef0=0.1627, degree=1, epsilon=0.0251, gamma="auto", kernel="sigmoid",
                    shrinking=False, tol=0.0021)

    def fit(self, x, y, x_val=None, y_val=None):
        self.model = _require("sklearn.svm").SVR(**self.settings).fit(x, y)
        return self

    def predict(self, x):
        return self.model.predict(x)


class NuSVRModel(EpsilonSVRModel):
    name = "nu-svr"

    @classmethod
    def defaults(cls) -> dict:
        return dict(C=5.3131, coef0=-0.3316, degree=128, gamma="scale", kernel="rbf", nu=0.1839, shrinking=True,
                    tol=0.003)

    def fit(self, x, y, x_val=None, y_val=None):
        self.model = _require("sklearn.svm").NuSVR(**self.settings).fit(x, y)
        return self


class NGBoostModel(SurrogateModel):
    """NGBoost with a normal output distribution (its own predictive uncertainty)."""

    name = "ngb"

    @classmethod
    def defaults(cls) -> dict:
        return dict(n_estimators=500, learning_rate=0.01)

    def fit(self, x, y, x_val=None, y_val=None):
        ngboost = _require("ngboost")
        self.model = ngboost.NGBRegressor(**self.settings, random_state=self.seed, verbose=False)
        self.model.fit(x, y, X_val=x_val, Y_val=y_val, early_stopping_rounds=50 if x_val is not None else None)
        return self

    def predict(self, x):
        return np.asarray(self.model.predict(x), dtype=np.float64)


class PathMLPModel(SurrogateModel):
    """The BANANAS-style MLP on path encodings (scikit-learn's MLPRegressor, Table 6 widths)."""

    name = "mlp"

    @classmethod
    def defaults(cls) -> dict:
        return dict(hidden_layer_sizes=(31,) * 4, learning_rate_init=0.0021, batch_size=122, max_iter=200,
                    early_stopping=True)

    def fit(self, x, y, x_val=None, y_val=None):
        network = _require("sklearn.neural_network")
        self.model = network.MLPRegressor(**self.settings, random_state=self.seed).fit(x, y)
        return self

    def predict(self, x):
        return self.model.predict(x)


#: Every surrogate model by name (one registry for the name, its class and the unknown-name error);
#: the GIN's module is imported only when the GIN is asked for.
MODELS = Registry("surrogate model", {
    "xgb": "nasarena.surrogates.models:XGBoostModel",
    "lgb": "nasarena.surrogates.models:LightGBMModel",
    "rf": "nasarena.surrogates.models:RandomForestModel",
    "svr": "nasarena.surrogates.models:EpsilonSVRModel",
    "nu-svr": "nasarena.surrogates.models:NuSVRModel",
    "ngb": "nasarena.surrogates.models:NGBoostModel",
    "mlp": "nasarena.surrogates.models:PathMLPModel",
    "gin": "nasarena.surrogates.gin:GINModel",
})


def model_class(name: str) -> type[SurrogateModel]:
    return MODELS[name]


def make_model(name: str, seed: int = 0, **settings) -> SurrogateModel:
    return model_class(name)(seed=seed, **settings)


class Ensemble:
    """k base learners with different seeds: predictive mean and standard deviation."""

    def __init__(self, name: str, members: int = 5, seed: int = 0, **settings):
        seeds = np.random.SeedSequence(seed).generate_state(members)
        self.models = [make_model(name, seed=int(s), **settings) for s in seeds]

    def fit(self, x, y, x_val=None, y_val=None) -> Ensemble:
        for model in self.models:
            model.fit(x, y, x_val, y_val)
        return self

    def predict(self, x) -> tuple[np.ndarray, np.ndarray]:
        predictions = np.stack([model.predict(x) for model in self.models])
        return predictions.mean(axis=0), predictions.std(axis=0)

