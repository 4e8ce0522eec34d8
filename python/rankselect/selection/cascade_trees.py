"""The LightGBM phase 2 of :class:`~rankselect.CascadeSelection` (``phase2_ranker="lightgbm"``).

The search runs with linear phases; the best affordable cascade's phase 2 is then refit as a
LightGBM ``lambdarank`` model on the same features, trained on the training documents that
phase 1 keeps (each query's top ``N`` by phase 1, ties in row order), built by
:func:`~rankselect.selection.importance.lambdarank_ranker` (one thread, ``deterministic=True``,
seed 0: the same data gives the same trees). The estimator keeps it only where its validation
value is at least the linear phase 2's; the cost per query is unchanged (the same features).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .cascade_search import _kept_rows, compose
from .importance import lambdarank_ranker

__all__ = ["PHASE2_RANKERS", "PHASE2_PARAMS", "fit_phase2_trees"]

#: the values of ``phase2_ranker``
PHASE2_RANKERS = ("linear", "lightgbm")
#: a LightGBM phase 2's parameters unless ``phase2_params`` says otherwise (LightGBM's own
#: defaults, written out so that a new LightGBM release does not move them)
PHASE2_PARAMS: dict[str, Any] = {"n_estimators": 100, "learning_rate": 0.1, "num_leaves": 31,
                                 "min_child_samples": 20}


def fit_phase2_trees(X2: np.ndarray, y: np.ndarray, offsets: np.ndarray, s1: np.ndarray, window: int,
                     params: Optional[dict] = None) -> Any:
    """The LightGBM ``Booster`` of a phase 2 on the grouped training rows ``X2`` (the phase's
    columns, in its order) of the documents that phase 1's scores ``s1`` keep (each query's top
    ``window``); ``params`` over :data:`PHASE2_PARAMS`.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.cascade_trees import fit_phase2_trees
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 1] > 0.5).astype(float) + (X[:, 2] > 1.0)
    >>> offsets = np.arange(0, 201, 20)
    >>> booster = fit_phase2_trees(X, y, offsets, X[:, 0], 10, {"n_estimators": 5, "min_child_samples": 5})
    >>> booster.num_trees(), booster.predict(X[:2]).shape
    (5, (2,))
    """
    labels = np.asarray(y, dtype=np.float64)
    if labels.size and (np.any(labels < 0) or np.any(labels != np.rint(labels)) or labels.max() > 2**31 - 2):
        bad = labels[(labels < 0) | (labels != np.rint(labels))]
        raise ValueError(f"phase2_ranker='lightgbm' needs integer relevance labels >= 0 (LightGBM's lambdarank), "
                         f"got {float(bad[0]) if bad.size else float(labels.max())!r}")
    rows, off = _kept_rows(np.asarray(s1, dtype=np.float64), np.asarray(offsets), int(window))
    kept = np.rint(labels[rows]).astype(np.int64)
    model = lambdarank_ranker(kept, "phase2_ranker='lightgbm'", **{**PHASE2_PARAMS, **(params or {})})
    model.fit(np.ascontiguousarray(X2[rows], dtype=np.float64), kept, group=np.diff(off).astype(np.int64))
    return model.booster_


def phase2_trees(s1: np.ndarray, X2: np.ndarray, train, s1_val: np.ndarray, X2_val: np.ndarray, val, window: int,
                 params: Optional[dict], measure: tuple[str, str]) -> tuple[Any, np.ndarray]:
    """A LightGBM phase 2 (:func:`fit_phase2_trees` on the grouped training rows ``train``, phase
    1's scores ``s1``, phase 2's columns ``X2``) and its per-query validation values, ``measure``
    (name, convention) of the composed ranking on the grouped validation rows ``val``."""
    from ..metrics.measures import compute

    booster = fit_phase2_trees(X2, train.y, train.offsets, s1, window, params)
    s2 = np.asarray(booster.predict(np.ascontiguousarray(X2_val), num_threads=1), dtype=float)
    sizes = np.diff(np.asarray(val.offsets, dtype=np.int64)).astype(np.int64)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    values = compute(measure[0], val.y, compose(s1_val, s2, window, val.offsets), qid, convention=measure[1],
                     per_query=True)
    return booster, np.asarray(values, dtype=float)
