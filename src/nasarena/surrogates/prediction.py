"""Fast prediction with a fitted ensemble: each member's booster called directly.

A benchmark query predicts one architecture with every ensemble member, so per-call overhead
dominates: the scikit-learn wrappers of XGBoost and LightGBM re-validate their input and, for
LightGBM, re-enter pandas checks on every call (~15x the cost of the booster call on one row).
:class:`FastEnsemble` calls the boosters with the same iteration range the wrappers use (the
early-stopping best iteration), on one thread, so its predictions are the wrappers' exactly.
Other models go through their own ``predict``. For one row, an all-XGBoost ensemble is walked
as flat arrays instead (:mod:`.forest`, bit-identical and ~5x faster than five XGBoost calls);
LightGBM members predict float32 batches through :class:`~.forest.LightGBMForest` (bit-identical,
~1.8x LightGBM's own single-thread throughput on nb101-lgb; all members of an ensemble in one call).
"""

from __future__ import annotations

import numpy as np

from .forest import LightGBMForest, tree_arrays
from .models import LightGBMModel, XGBoostModel

#: Fewer rows than this go to LightGBM itself: one call of the converted forest has a fixed cost
#: (~0.1 ms per member: a multi-output XGBoost call and the leaf gathering) that pays off on batches.
FOREST_MIN_ROWS = 64


def _xgboost_booster(model):
    """The booster with the trees the wrapper predicts with (up to the early-stopping best iteration)."""
    booster = model.model.get_booster()
    best = getattr(model.model, "best_iteration", None)
    booster = booster[: best + 1] if best is not None else booster
    booster.set_param({"nthread": 1})
    return booster


def lightgbm_forest(models) -> LightGBMForest | None:
    """LightGBM models' boosters (to their early-stopping best iteration) as one :class:`LightGBMForest`;
    None when XGBoost, which walks it, is not installed (LightGBM then predicts by itself)."""
    try:
        import xgboost  # noqa: F401
    except ImportError:
        return None
    return LightGBMForest([m.model.booster_ for m in models], [m.model.best_iteration_ or None for m in models])


def member_predictor(model):
    """A function rows -> float64 predictions equal to ``model.predict``."""
    if isinstance(model, XGBoostModel):
        booster = _xgboost_booster(model)
        return lambda x: booster.inplace_predict(x).astype(np.float64)
    if isinstance(model, LightGBMModel):
        booster = model.model.booster_
        best = model.model.best_iteration_ or None
        forest = lightgbm_forest([model])

        def predict(x):
            if forest is not None and _forest_applies(x):
                return forest.predict(x)[0]
            return booster.predict(x, num_iteration=best, num_threads=1).astype(np.float64)
        return predict
    return model.predict


def _forest_applies(x: np.ndarray) -> bool:
    """Whether a :class:`LightGBMForest` predicts ``x`` exactly (float32 rows) and faster (a batch)."""
    return x.dtype == np.float32 and x.ndim == 2 and len(x) >= FOREST_MIN_ROWS


class FastEnsemble:
    """Mean and standard deviation over an :class:`~.models.Ensemble`'s members, as ``Ensemble.predict``."""

    def __init__(self, ensemble):
        self.members = [member_predictor(model) for model in ensemble.models]
        self.trees = (tree_arrays([_xgboost_booster(m) for m in ensemble.models])
                      if all(isinstance(m, XGBoostModel) for m in ensemble.models) else None)
        self.forest = (lightgbm_forest(ensemble.models)
                       if all(isinstance(m, LightGBMModel) for m in ensemble.models) else None)

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.trees is not None and len(x) == 1 and x.dtype == np.float32 and np.isfinite(x).all():
            predictions = self.trees.predict_row(x[0]).astype(np.float64)[:, None]
        elif self.forest is not None and _forest_applies(x):
            predictions = self.forest.predict(x)
        else:
            predictions = np.stack([predict(x) for predict in self.members])
        return predictions.mean(axis=0), predictions.std(axis=0)
