"""A tree ensemble read from LightGBM or XGBoost, with each library's own split semantics.

:class:`Forest` holds every node of every tree in flat arrays (a split: its feature, its
value, where a missing value goes, its two children; a leaf: its value) and the library's
test, which the engine writers translate:

- ``"lightgbm"``: left when ``x <= threshold`` (float64), leaves summed in float64;
- ``"xgboost"``: left when ``float32(x) < threshold`` (a float32), leaves (float32) summed in
  float32 after the base score.

Missing values (NaN) go where the library sends them: XGBoost's ``default_left``; LightGBM's
``default_left`` when the node's missing type is NaN, the way of ``0.0`` when it is None
(LightGBM reads NaN as 0 there). What no engine can express is refused with a ValueError:
categorical splits, linear trees, multi-output models, objectives whose prediction is not
the sum of the trees, and LightGBM ``zero_as_missing`` splits that send zeros elsewhere
than a plain test would.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from .floats import parse_float32

__all__ = ["LIGHTGBM_TRANSFORMED", "XGBOOST_RAW_OBJECTIVES"]  # Forest, forest_of: inside rankselect.deploy

#: LightGBM objectives whose prediction is a transform of the trees' sum (refused: the
#: engines score the sum)
LIGHTGBM_TRANSFORMED = ("binary", "multiclass", "multiclassova", "cross_entropy", "cross_entropy_lambda",
                        "poisson", "gamma", "tweedie")
#: XGBoost objectives whose prediction is the base score plus the trees' sum
XGBOOST_RAW_OBJECTIVES = ("rank:ndcg", "rank:map", "rank:pairwise", "reg:squarederror", "reg:absoluteerror",
                          "reg:pseudohubererror", "reg:quantileerror", "binary:logitraw", "reg:linear")
_ZERO = 1e-35  # LightGBM's kZeroThreshold (a float32 constant, compared in float64)


@dataclass
class Forest:
    """Every node of an ensemble, in flat arrays (``tree_start[i]`` is tree i's root).

    ``feature[n] < 0`` marks a leaf (value ``value[n]``); a split sends ``x`` to ``left[n]``
    when the library's test holds (:attr:`library`), a NaN to ``left[n]`` when
    ``nan_left[n]``. ``names`` are the model's feature names (``feature`` indexes them),
    ``base_score`` the constant the library adds (float32 for XGBoost, 0 for LightGBM).
    """

    library: str
    names: list[str]
    feature: np.ndarray
    threshold: np.ndarray
    nan_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    tree_start: np.ndarray
    base_score: float
    objective: str

    @property
    def n_trees(self) -> int:
        return len(self.tree_start)

    def splits(self) -> np.ndarray:
        """Indices of the split nodes."""
        return np.flatnonzero(self.feature >= 0)


def _is_lightgbm(model) -> bool:
    mod = type(model).__module__
    return mod.startswith("lightgbm")


def _is_xgboost(model) -> bool:
    return type(model).__module__.startswith("xgboost")


def forest_of(model) -> Forest:
    """The :class:`Forest` of a fitted LightGBM ``LGBMModel`` / ``Booster`` or XGBoost
    ``XGBModel`` / ``Booster`` (the trees its ``predict`` uses)."""
    if _is_lightgbm(model):
        booster = getattr(model, "booster_", model)
        if not hasattr(booster, "model_to_string"):
            raise TypeError(f"unsupported LightGBM model type {type(model).__name__}: pass a fitted LGBMModel or "
                            "Booster")
        return _lightgbm(booster.model_to_string())
    if _is_xgboost(model):
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
        return _xgboost(json.loads(booster.save_raw("json"), parse_float=str), n_trees)
    raise TypeError(f"unsupported model type {type(model).__name__}: pass a LightGBM or XGBoost model, a rankselect "
                    "linear model, or a coefficient vector")


# ------------------------------------------------------------------------------- LightGBM


def _lightgbm(text: str) -> Forest:
    """Parse LightGBM's model text format (what ``save_model`` writes)."""
    header: dict[str, str] = {}
    trees: list[dict[str, str]] = []
    current = header
    for line in text.splitlines():
        if line.startswith("Tree="):
            current = {}
            trees.append(current)
        elif line.startswith("end of trees"):
            break
        elif "=" in line:
            key, _, val = line.partition("=")
            current[key] = val
        elif line.strip() and current is header:
            header[line.strip()] = ""
    if "version" not in header or "feature_names" not in header:
        raise ValueError("not a LightGBM model (no version= / feature_names= header)")
    objective = header.get("objective", "").split(" ")[0]
    if objective in LIGHTGBM_TRANSFORMED:
        raise ValueError(f"the LightGBM objective {objective!r} transforms the trees' sum in predict: the engines "
                         "score the sum; export a ranking or regression objective (lambdarank, rank_xendcg, ...)")
    if int(header.get("num_tree_per_iteration", "1")) != 1 or int(header.get("num_class", "1")) != 1:
        raise ValueError("the LightGBM model has several outputs per row (multiclass): no engine scores it")
    if "average_output" in header:
        raise ValueError("the LightGBM model averages its trees (boosting='rf'): the engines sum them")
    names = header["feature_names"].split(" ")
    cols: dict[str, list[Any]] = {k: [] for k in ("feature", "threshold", "nan_left", "left", "right", "value")}
    starts = []
    for t, tree in enumerate(trees):
        if tree.get("is_linear", "0") != "0":
            raise ValueError(f"LightGBM tree {t} is a linear tree (linear_tree=True): no engine evaluates its leaf "
                             "models; train with linear_tree=False")
        if int(tree.get("num_cat", "0")) > 0:
            raise ValueError(f"LightGBM tree {t} has categorical splits: the engines test numbers only; "
                             "train with the feature as a number")
        starts.append(_count(cols))
        _lightgbm_tree(t, tree, cols)
    return _forest("lightgbm", names, cols, starts, 0.0, objective)


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split()] if text.strip() else []


def _lightgbm_tree(t: int, tree: dict[str, str], cols: dict[str, list[Any]]) -> None:
    """Append one tree: its splits, then its leaves (LightGBM's child ``~i`` is leaf ``i``)."""
    leaves = np.array(_floats(tree.get("leaf_value", "")) or [0.0])
    base = _count(cols)
    if int(tree.get("num_leaves", "1")) == 1:
        _append(cols, np.array([-1]), np.zeros(1), np.zeros(1, bool), np.array([-1]), np.array([-1]), leaves[:1])
        return
    feat = np.array(tree["split_feature"].split(), dtype=np.int64)
    thr = np.array(_floats(tree["threshold"]))
    dec = np.array(tree["decision_type"].split(), dtype=np.int64)
    n_splits = len(feat)

    def index(child: np.ndarray) -> np.ndarray:
        return base + np.where(child >= 0, child, n_splits + ~child)

    if np.any(dec & 1):
        raise ValueError(f"LightGBM tree {t} has a categorical split: the engines test numbers only")
    default_left, missing = (dec & 2) > 0, (dec >> 2) & 3
    zero = missing == 1  # zero_as_missing: NaN and |x| <= 1e-35 go the default way
    bad = zero & (((-_ZERO <= thr) & (thr < _ZERO)) | (default_left != (thr >= 0.0)))
    if np.any(bad):
        raise ValueError(f"LightGBM tree {t} split {int(np.flatnonzero(bad)[0])} sends zeros the default way "
                         "(zero_as_missing) where a test of the value would not: no engine expresses it; train "
                         "with zero_as_missing=False")
    # NaN type: the default way; None: NaN is read as 0.0, so the way of 0
    nan_left = np.where(missing == 0, thr >= 0.0, default_left)
    lc = index(np.array(tree["left_child"].split(), dtype=np.int64))
    rc = index(np.array(tree["right_child"].split(), dtype=np.int64))
    n_leaves = len(leaves)
    _append(cols, np.r_[feat, np.full(n_leaves, -1)], np.r_[thr, np.zeros(n_leaves)],
            np.r_[nan_left, np.zeros(n_leaves, bool)], np.r_[lc, np.full(n_leaves, -1)],
            np.r_[rc, np.full(n_leaves, -1)], np.r_[np.zeros(n_splits), leaves])


def _count(cols) -> int:
    """Nodes appended so far."""
    return int(cols.get("n", [0])[0])


def _append(cols, feature, threshold, nan_left, left, right, value) -> None:
    cols["n"] = [_count(cols) + len(feature)]
    for key, arr in (("feature", feature), ("threshold", threshold), ("nan_left", nan_left), ("left", left),
                     ("right", right), ("value", value)):
        cols[key].append(np.asarray(arr))


def _forest(library, names, cols, starts, base, objective) -> Forest:
    def cat(key, dtype):
        return np.concatenate(cols[key]).astype(dtype) if cols[key] else np.zeros(0, dtype)

    return Forest(library, names, cat("feature", np.int64), cat("threshold", np.float64), cat("nan_left", bool),
                  cat("left", np.int64), cat("right", np.int64), cat("value", np.float64),
                  np.asarray(starts, dtype=np.int64), float(base), objective)


# -------------------------------------------------------------------------------- XGBoost


def _xgboost(raw: dict, n_trees) -> Forest:
    """Parse XGBoost's JSON model (``save_raw("json")`` / ``save_model("x.json")``), its numbers
    kept as text (``parse_float=str``) so that each float32 is read exactly."""
    learner = raw.get("learner") if isinstance(raw, dict) else None
    if not isinstance(learner, dict) or "gradient_booster" not in learner:
        raise ValueError("not an XGBoost JSON model (no learner.gradient_booster)")
    booster = learner["gradient_booster"]
    if booster.get("name") != "gbtree":
        raise ValueError(f"the XGBoost booster is {booster.get('name')!r}: only gbtree is exported (dart weighs its "
                         "trees, gblinear has none)")
    objective = learner.get("objective", {}).get("name", "")
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
    model = booster["model"]
    trees = model["trees"][: None if n_trees is None else n_trees * max(1, _parallel(booster))]
    n_features = int(param.get("num_feature", "0"))
    names = list(learner.get("feature_names") or []) or [f"f{j}" for j in range(n_features)]
    cols: dict[str, list[Any]] = {k: [] for k in ("feature", "threshold", "nan_left", "left", "right", "value")}
    starts = []
    for t, tree in enumerate(trees):
        if any(int(s) != 0 for s in tree.get("split_type", [])):
            raise ValueError(f"XGBoost tree {t} has a categorical split: the engines test numbers only")
        base_index = _count(cols)
        starts.append(base_index)
        lc = np.array(tree["left_children"], dtype=np.int64)
        rc = np.array(tree["right_children"], dtype=np.int64)
        cond = parse_float32(tree["split_conditions"]).astype(np.float64)
        leaf = lc == -1
        _append(cols, np.where(leaf, -1, np.array(tree["split_indices"], dtype=np.int64)), np.where(leaf, 0.0, cond),
                ~leaf & (np.array(tree["default_left"], dtype=np.int64) != 0),
                np.where(leaf, -1, base_index + lc), np.where(leaf, -1, base_index + rc), np.where(leaf, cond, 0.0))
    return _forest("xgboost", names, cols, starts, base, objective)


def _parallel(booster: dict) -> int:
    param = booster.get("model", {}).get("gbtree_model_param", {})
    return int(param.get("num_parallel_tree", "1") or 1)
