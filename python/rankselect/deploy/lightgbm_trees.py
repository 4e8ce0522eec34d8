"""LightGBM's model text (what ``save_model`` writes) as the canonical :class:`~rankselect.deploy.forest.Forest`.

LightGBM's ``Tree::NumericalDecision`` per split, ``decision_type`` bits: 1 categorical
(refused), 2 ``default_left``, bits 2-3 the missing type:

- NaN: a NaN goes the default way; a number left when ``x <= threshold`` (float64; the
  threshold may be ``inf``: every number left, the split separates the missing values);
- None: a NaN is read as 0.0, so it goes the way of 0;
- Zero (``zero_as_missing``): a NaN is read as 0.0, and every value with
  ``-1e-35f <= x <= 1e-35f`` goes the default way; where that differs from the test, the
  split becomes three tests (``x < -1e-35f``, ``x <= 1e-35f``, then the threshold), the
  subtrees copied where two paths reach them, so that every engine runs it exactly.

LightGBM's predictor reads every input with ``|x| <= 1e-35f`` as 0 (it keeps only the
values above ``kZeroThreshold``): a threshold in ``[-1e-35f, 1e-35f)`` is moved to the edge of
that interval on its side of 0, so that the IR's test on the raw value is LightGBM's on 0.
Leaves are float64, summed in float64.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .forest import Forest, ForestBuilder

__all__ = ["LIGHTGBM_TRANSFORMED"]  # lightgbm_forest: through trees.forest_of

#: LightGBM objectives whose prediction is a transform of the trees' sum (refused: the
#: engines score the sum)
LIGHTGBM_TRANSFORMED = ("binary", "multiclass", "multiclassova", "cross_entropy", "cross_entropy_lambda",
                        "poisson", "gamma", "tweedie")
_ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold (a float32 constant, compared in float64)
_BELOW_ZERO = float(np.nextafter(-_ZERO, -np.inf))  # x <= this: x < -kZeroThreshold
_MAX_NODES = 1_000_000  # per tree, after zero-as-missing splits are unfolded


def lightgbm_forest(text: str) -> Forest:
    """Parse LightGBM's model text format."""
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
    builder = ForestBuilder("lightgbm")
    for t, tree in enumerate(trees):
        if tree.get("is_linear", "0") != "0":
            raise ValueError(f"LightGBM tree {t} is a linear tree (linear_tree=True): no engine evaluates its leaf "
                             "models; train with linear_tree=False")
        if int(tree.get("num_cat", "0")) > 0:
            raise ValueError(f"LightGBM tree {t} has categorical splits: the engines test numbers only; "
                             "train with the feature as a number")
        builder.add_tree(**_tree(t, tree))
    return builder.build(names, 0.0, objective)


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split()] if text.strip() else []


def _tree(t: int, tree: dict[str, str]) -> dict[str, Any]:
    """One tree's nodes, root first (LightGBM's child ``~i`` is leaf ``i``): its arrays as they
    are, or, when a zero-as-missing split must be unfolded, built node by node."""
    leaves = _floats(tree.get("leaf_value", "")) or [0.0]
    cols: dict[str, list[Any]] = {k: [] for k in ("feature", "threshold", "nan_left", "left", "right", "value")}
    if int(tree.get("num_leaves", "1")) == 1:
        return {"feature": [-1], "threshold": [0.0], "nan_left": [False], "left": [-1], "right": [-1],
                "value": leaves[:1]}
    feat_a = np.array(tree["split_feature"].split(), dtype=np.int64)
    thr_a = np.array(_floats(tree["threshold"]), dtype=np.float64)
    thr_a = np.where((-_ZERO <= thr_a) & (thr_a < 0.0), _BELOW_ZERO, np.where((0.0 <= thr_a) & (thr_a < _ZERO), _ZERO,
                                                                           thr_a))
    dec_a = np.array(tree["decision_type"].split(), dtype=np.int64)
    lc_a = np.array(tree["left_child"].split(), dtype=np.int64)
    rc_a = np.array(tree["right_child"].split(), dtype=np.int64)
    if np.any(dec_a & 1):
        raise ValueError(f"LightGBM tree {t} has a categorical split: the engines test numbers only")
    default_left, missing_type = (dec_a & 2) > 0, (dec_a >> 2) & 3
    plain = (missing_type != 1) | (default_left & (thr_a >= _ZERO)) | (~default_left & (thr_a < -_ZERO))
    if np.all(plain):  # every split one test: the arrays as they are (splits, then leaves ~i)
        n_splits, n_leaves = len(feat_a), len(leaves)

        def index(child: np.ndarray) -> np.ndarray:
            return np.where(child >= 0, child, n_splits + ~child)

        return {"feature": np.r_[feat_a, np.full(n_leaves, -1)], "threshold": np.r_[thr_a, np.zeros(n_leaves)],
                "nan_left": np.r_[np.where(missing_type == 2, default_left, thr_a >= 0.0), np.zeros(n_leaves, bool)],
                "left": np.r_[index(lc_a), np.full(n_leaves, -1)], "right": np.r_[index(rc_a), np.full(n_leaves, -1)],
                "value": np.r_[np.zeros(n_splits), leaves]}
    feat, thr, dec = feat_a.tolist(), thr_a.tolist(), dec_a.tolist()
    lc, rc = lc_a.tolist(), rc_a.tolist()

    def new(feature: int, threshold: float, nan_left: bool, value: float = 0.0) -> int:
        if len(cols["feature"]) >= _MAX_NODES:
            raise ValueError(f"LightGBM tree {t}: more than {_MAX_NODES} nodes once its zero_as_missing splits are "
                             "unfolded; train with zero_as_missing=False")
        for key, v in (("feature", feature), ("threshold", threshold), ("nan_left", nan_left), ("left", -1),
                       ("right", -1), ("value", value)):
            cols[key].append(v)
        return len(cols["feature"]) - 1

    def test(f: int, threshold: float, nan_left: bool, lo: int, hi: int) -> int:
        n = new(f, threshold, nan_left)
        cols["left"][n], cols["right"][n] = emit(lo), emit(hi)
        return n

    def emit(child: int) -> int:
        if child < 0:
            return new(-1, 0.0, False, leaves[~child])
        f, th, d = feat[child], thr[child], (dec[child] & 2) > 0
        missing = (dec[child] >> 2) & 3
        if missing == 2:  # NaN: the default way
            return test(f, th, d, lc[child], rc[child])
        if missing == 0 or (d and th >= _ZERO) or (not d and th < -_ZERO):  # NaN is 0; zeros go the test's way
            return test(f, th, th >= 0.0, lc[child], rc[child])
        # Zero, where the zeros' default way differs from the test: x < -Z by the test, -Z <= x <= Z (and
        # NaN) the default way, x > Z by the test
        outer = new(f, _BELOW_ZERO, False)
        cols["left"][outer] = test(f, th, d, lc[child], rc[child]) if th < -_ZERO else emit(lc[child])
        inner = new(f, _ZERO, True)
        cols["right"][outer] = inner
        cols["left"][inner] = emit(lc[child] if d else rc[child])
        cols["right"][inner] = test(f, th, d, lc[child], rc[child]) if th > _ZERO else emit(rc[child])
        return outer

    emit(0)
    return cols
