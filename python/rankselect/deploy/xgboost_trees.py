"""XGBoost's JSON model as the canonical :class:`~rankselect.deploy.forest.Forest`.

XGBoost rounds every input to float32 and goes left when ``float32(x) < s`` (``s`` a
float32), a NaN the ``default_left`` way; leaves are float32, summed in float32 after the
base score. In the IR the test becomes ``x <= t`` with ``t`` the largest float64 that rounds
below ``s`` (:func:`~rankselect.deploy.floats.le_float64_of_float32_lt`), exact for every
float64 ``x``.
"""
from __future__ import annotations

import numpy as np

from .floats import le_float64_of_float32_lt, parse_float32
from .forest import Forest, ForestBuilder

__all__ = ["XGBOOST_RAW_OBJECTIVES"]  # xgboost_forest: through trees.forest_of

#: XGBoost objectives whose prediction is the base score plus the trees' sum
XGBOOST_RAW_OBJECTIVES = ("rank:ndcg", "rank:map", "rank:pairwise", "reg:squarederror", "reg:absoluteerror",
                          "reg:pseudohubererror", "reg:quantileerror", "binary:logitraw", "reg:linear")


def xgboost_forest(raw: dict, n_trees) -> Forest:
    """Parse XGBoost's JSON model (``save_raw("json")`` / ``save_model("x.json")``), its numbers
    kept as text (``parse_float=str``) so that each float32 is read exactly; ``n_trees``: the
    first rounds that ``predict`` uses (None: all)."""
    learner = raw.get("learner") if isinstance(raw, dict) else None
    if not isinstance(learner, dict) or not isinstance(learner.get("gradient_booster"), dict):
        raise ValueError("not an XGBoost JSON model (no learner.gradient_booster)")
    booster = learner["gradient_booster"]
    if booster.get("name") != "gbtree":
        raise ValueError(f"the XGBoost booster is {booster.get('name')!r}: only gbtree is exported (dart weighs its "
                         "trees, gblinear has none)")
    objective = (learner.get("objective") or {}).get("name", "")
    if objective not in XGBOOST_RAW_OBJECTIVES:
        raise ValueError(f"the XGBoost objective {objective!r} transforms the margin in predict: the engines score "
                         f"the margin; export one of {', '.join(XGBOOST_RAW_OBJECTIVES)}")
    param = learner.get("learner_model_param", {})
    if int(param.get("num_target", "1") or 1) > 1 or int(param.get("num_class", "0") or 0) > 1:
        raise ValueError("the XGBoost model has several outputs per row: no engine scores it")
    types = learner.get("feature_types") or []
    if any(t == "c" for t in types):
        raise ValueError("the XGBoost model has categorical features: the engines test numbers only")
    base_text = str(param.get("base_score", "0")).strip("[]").split(",")[0]
    base = float(parse_float32([base_text])[0])
    model = booster.get("model", {})
    parallel = int(model.get("gbtree_model_param", {}).get("num_parallel_tree", "1") or 1)
    trees = model.get("trees", [])[: None if n_trees is None else n_trees * max(1, parallel)]
    n_features = int(param.get("num_feature", "0"))
    names = list(learner.get("feature_names") or []) or [f"f{j}" for j in range(n_features)]
    builder = ForestBuilder("xgboost")
    for t, tree in enumerate(trees):
        if any(int(s) != 0 for s in tree.get("split_type", [])):
            raise ValueError(f"XGBoost tree {t} has a categorical split: the engines test numbers only")
        lc = np.array(tree["left_children"], dtype=np.int64)
        rc = np.array(tree["right_children"], dtype=np.int64)
        cond = parse_float32(tree["split_conditions"])
        leaf = lc == -1
        thr = np.zeros(len(lc))
        if np.any(~leaf):
            thr[~leaf] = le_float64_of_float32_lt(cond[~leaf])
        builder.add_tree(np.where(leaf, -1, np.array(tree["split_indices"], dtype=np.int64)), thr,
                         ~leaf & (np.array(tree["default_left"], dtype=np.int64) != 0), lc, rc,
                         np.where(leaf, cond.astype(np.float64), 0.0))
    return builder.build(names, base, objective)
