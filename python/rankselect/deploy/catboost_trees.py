"""CatBoost's JSON model (``save_model(path, format="json")``) as the canonical
:class:`~rankselect.deploy.forest.Forest`.

CatBoost reads every feature as a float32 and grows oblivious trees: every level of a tree
tests one ``(feature, border)`` and sets bit ``d`` of the leaf index when ``float32(x) >
border`` (``border`` a float32); a NaN sets it for ``nan_mode="Max"`` (``AsTrue``) and not
for ``"Min"`` (``AsFalse``). The prediction is ``scale * sum(leaves) + bias``. In the IR each
tree becomes the full binary tree of its levels, each test ``x <= t`` with ``t`` the largest
float64 whose float32 is ``<= border``; the scale is folded into the leaves, the bias is the
base score. Refused: categorical, text and embedding features, non-symmetric trees
(``grow_policy`` other than ``SymmetricTree``), several outputs per row and losses whose
prediction is not the raw sum (:data:`CATBOOST_RAW_LOSSES`).
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from .floats import le_float64_of_float32_lt, parse_float32
from .forest import Forest, ForestBuilder

__all__ = ["CATBOOST_RAW_LOSSES"]  # catboost_forest: through trees.forest_of

#: CatBoost losses whose ``predict`` is the raw sum of the trees (scaled, plus the bias)
CATBOOST_RAW_LOSSES = ("YetiRank", "YetiRankPairwise", "PairLogit", "PairLogitPairwise", "QueryRMSE", "QuerySoftMax",
                       "LambdaMart", "StochasticRank", "StochasticFilter", "RMSE", "MAE", "Quantile", "Expectile",
                       "Huber", "Lq")
_MAX_DEPTH = 16


def _loss(info: dict[str, Any]) -> str:
    params = info.get("params")
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except json.JSONDecodeError:
            params = {}
    loss = (params or {}).get("loss_function", {}) if isinstance(params, dict) else {}
    return str(loss.get("type", "")) if isinstance(loss, dict) else str(loss)


def catboost_forest(model: dict, names: list[str]) -> Forest:
    """Parse CatBoost's JSON model, its numbers kept as text (``parse_float=str``) so that
    each float32 border is read exactly; ``names``: the model's ``feature_names_``."""
    if not isinstance(model, dict) or "features_info" not in model:
        raise ValueError("not a CatBoost JSON model (no features_info)")
    if "oblivious_trees" not in model:
        raise ValueError("the CatBoost model has non-symmetric trees: the export reads oblivious trees; train with "
                         "grow_policy='SymmetricTree' (the default)")
    info = model["features_info"]
    for kind in ("categorical_features", "text_features", "embedding_features"):
        if info.get(kind):
            raise ValueError(f"the CatBoost model has {kind.replace('_', ' ')}: the engines test numbers only; "
                             "train on numeric features (a categorical feature's statistics are not a query)")
    loss = _loss(model.get("model_info", {}))
    if loss not in CATBOOST_RAW_LOSSES:
        raise ValueError(f"the CatBoost loss {loss or '(unknown)'!r} is not exported: the engines score the trees' "
                         f"raw sum; train with one of {', '.join(CATBOOST_RAW_LOSSES)}")
    floats = {int(f["feature_index"]): f for f in info.get("float_features", [])}
    scale, bias = model.get("scale_and_bias", [1, [0]])
    bias_list = bias if isinstance(bias, list) else [bias]
    if len(bias_list) > 1:
        raise ValueError("the CatBoost model has several outputs per row: no engine scores it")
    scale = float(scale)
    builder = ForestBuilder("catboost")
    for t, tree in enumerate(model["oblivious_trees"]):
        builder.add_tree(**_tree(t, tree, floats, scale))
    width = max([len(names)] + [k + 1 for k in floats])
    names = list(names) if len(names) == width else [str(j) for j in range(width)]
    return builder.build(names, float(bias_list[0]) if bias_list else 0.0, loss)


def _tree(t: int, tree: dict[str, Any], floats: dict[int, dict], scale: float) -> dict[str, Any]:
    splits = tree.get("splits", [])
    depth = len(splits)
    if depth > _MAX_DEPTH:
        raise ValueError(f"CatBoost tree {t} has depth {depth}: more than {_MAX_DEPTH} levels")
    leaves = np.array([float(v) for v in tree.get("leaf_values", [])], dtype=np.float64)
    if len(leaves) != 2 ** depth:
        raise ValueError(f"CatBoost tree {t} has {len(leaves)} leaf values for {depth} levels: several outputs per "
                         "row (multiclass), which no engine scores")
    feature, threshold, nan_left = [], [], []
    for d, s in enumerate(splits):
        if s.get("split_type") != "FloatFeature":
            raise ValueError(f"CatBoost tree {t} level {d} splits on a {s.get('split_type')}: the engines test "
                             "numbers only")
        j = int(s["float_feature_index"])
        border = parse_float32([s["border"]])
        feature.append(j)
        if border[0] >= np.finfo(np.float32).max:  # nan_mode Max: the border that separates NaN from every number
            threshold.append(np.inf)
        else:
            threshold.append(float(le_float64_of_float32_lt(np.nextafter(border, np.float32(np.inf)))[0]))
        nan_left.append(floats.get(j, {}).get("nan_value_treatment", "AsFalse") != "AsTrue")
    cols: dict[str, list[Any]] = {k: [] for k in ("feature", "threshold", "nan_left", "left", "right", "value")}

    def emit(level: int, index: int) -> int:
        n = len(cols["feature"])
        if level == depth:
            for key, v in (("feature", -1), ("threshold", 0.0), ("nan_left", False), ("left", -1), ("right", -1),
                           ("value", scale * leaves[index])):
                cols[key].append(v)
            return n
        for key, v in (("feature", feature[level]), ("threshold", threshold[level]), ("nan_left", nan_left[level]),
                       ("left", -1), ("right", -1), ("value", 0.0)):
            cols[key].append(v)
        cols["left"][n] = emit(level + 1, index)
        cols["right"][n] = emit(level + 1, index | (1 << level))
        return n

    emit(0, 0)
    return cols
