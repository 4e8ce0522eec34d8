"""A fitted tree ensemble as the canonical :class:`~rankselect.deploy.forest.Forest`: the
reader of its library (LightGBM, XGBoost, CatBoost) converts the library's own split test
into the IR's ``x <= threshold``; a model of any other library is refused (TypeError).

What no engine can express is refused with a ValueError: categorical splits, linear trees,
multi-output models, objectives whose prediction is not the sum of the trees.
"""
from __future__ import annotations

import json
import os
import tempfile

import numpy as np

from .catboost_trees import CATBOOST_RAW_LOSSES, catboost_forest
from .forest import Forest
from .lightgbm_trees import LIGHTGBM_TRANSFORMED, lightgbm_forest
from .xgboost_trees import XGBOOST_RAW_OBJECTIVES, xgboost_forest

__all__ = ["CATBOOST_RAW_LOSSES", "LIGHTGBM_TRANSFORMED", "XGBOOST_RAW_OBJECTIVES", "forest_of"]


def _library(model) -> str:
    return type(model).__module__.partition(".")[0]


def forest_of(model) -> Forest:
    """The :class:`Forest` of a fitted LightGBM ``LGBMModel`` / ``Booster``, XGBoost
    ``XGBModel`` / ``Booster`` or CatBoost ``CatBoost`` model (the trees its ``predict`` uses).

    Examples
    --------
    >>> import lightgbm as lgb
    >>> import numpy as np
    >>> from rankselect.deploy.trees import forest_of
    >>> X, y = np.random.default_rng(0).random((200, 2)), np.arange(200) % 3
    >>> ranker = lgb.LGBMRanker(n_estimators=3, min_child_samples=5, verbose=-1).fit(X, y, group=[100, 100])
    >>> forest = forest_of(ranker)
    >>> forest.source, forest.n_trees, bool(np.allclose(forest.predict(X), ranker.predict(X)))
    ('lightgbm', 3, True)
    """
    library = _library(model)
    if library == "lightgbm":
        booster = getattr(model, "booster_", model)
        if not hasattr(booster, "model_to_string"):
            raise TypeError(f"unsupported LightGBM model type {type(model).__name__}: pass a fitted LGBMModel or "
                            "Booster")
        return lightgbm_forest(booster.model_to_string())
    if library == "xgboost":
        booster = model.get_booster() if hasattr(model, "get_booster") else model
        if not hasattr(booster, "save_raw"):
            raise TypeError(f"unsupported XGBoost model type {type(model).__name__}: pass a fitted XGBModel or Booster")
        n_trees = None
        try:  # the scikit-learn wrapper predicts with the best iteration after early stopping
            best = model.best_iteration if hasattr(model, "get_booster") else None
        except AttributeError:
            best = None
        if best is not None:
            n_trees = int(best) + 1
        missing = model.get_params().get("missing", np.nan) if hasattr(model, "get_params") else np.nan
        if missing is not None and not np.isnan(missing):
            raise ValueError(f"the XGBoost model treats {missing!r} as missing (missing={missing!r}): the engines "
                             "take only NaN as missing; train with the default missing=nan")
        return xgboost_forest(json.loads(booster.save_raw("json"), parse_float=str), n_trees)
    if library == "catboost":
        if not hasattr(model, "save_model") or not hasattr(model, "feature_names_"):
            raise TypeError(f"unsupported CatBoost model type {type(model).__name__}: pass a fitted CatBoost, "
                            "CatBoostRanker or CatBoostRegressor")
        if not model.is_fitted():
            raise ValueError("the CatBoost model is not fitted")
        with tempfile.TemporaryDirectory() as tmp:  # CatBoost writes its JSON to a file only
            path = os.path.join(tmp, "model.json")
            model.save_model(path, format="json")
            with open(path, encoding="utf-8") as f:
                raw = json.load(f, parse_float=str)
        return catboost_forest(raw, [str(s) for s in model.feature_names_ or []])
    raise TypeError(f"unsupported model type {type(model).__name__}: pass a LightGBM, XGBoost or CatBoost model, a "
                    "rankselect linear model, or a coefficient vector")
