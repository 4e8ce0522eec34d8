"""Scoring of the LETOR protocol: the report metrics of one ranking, the selection metric,
the degenerate-model test, and single-feature scores."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import metrics
from ..data.uninformative import constant_within_queries
from ..selection.importance import feature_importance

#: the metric keys reported for every test set (P@k and NDCG@k for k = 1..10)
CUTOFFS = tuple(range(1, 11))
TEST_KEYS = ("MAP",) + tuple(f"P@{k}" for k in CUTOFFS) + tuple(f"NDCG@{k}" for k in CUTOFFS) + ("MeanNDCG",)
#: selection metric names accepted by ``run(metric=...)`` (case-insensitive) -> report key
SELECTION_METRICS = {"map": "MAP", "meanndcg": "MeanNDCG", **{f"ndcg@{k}": f"NDCG@{k}" for k in CUTOFFS},
                     **{f"p@{k}": f"P@{k}" for k in CUTOFFS}}
#: scores within this fraction of max(1, max|score|) count as tied (round-off)
TIE_TOL = 1e-12


def evaluate(y, scores, qid, convention: str, per_query: bool = False) -> dict[str, Any]:
    """All report metrics for one ranking (one pass of :func:`rankselect.metrics.evaluate`);
    with ``per_query`` also ``"per_query": {"AP": (q,), "NDCG@10": (q,)}`` in order of first
    appearance of the qids."""
    pq = metrics.evaluate(y, scores, qid, convention=convention, ks=CUTOFFS, per_query=True)
    out: dict[str, Any] = {k: float(np.mean(pq[k])) for k in TEST_KEYS}
    if per_query:
        out["per_query"] = {"AP": np.asarray(pq["MAP"], dtype=float), "NDCG@10": np.asarray(pq["NDCG@10"], dtype=float)}
    return out


def scores(keys, y, s, qid, convention: str) -> dict[str, float]:
    """The report metrics ``keys`` ("MAP", "P@k", "NDCG@k", "MeanNDCG"), one pass."""
    ks = sorted({int(k.partition("@")[2]) for k in keys if "@" in k}) or [10]
    res = metrics.evaluate(y, s, qid, convention=convention, ks=ks)
    return {k: float(res[k]) for k in keys}


def ties_within_every_query(s: np.ndarray, qid: np.ndarray) -> bool:
    """True when the scores are constant inside every query (up to rounding): the model
    would rank by file order (:func:`rankselect.data.constant_within_queries`)."""
    return bool(constant_within_queries(np.asarray(s, dtype=float), qid, tol=TIE_TOL))


def single_feature_scores(X, y, qid, *, k: int = 10, convention: str = "letor") -> np.ndarray:
    """NDCG@k of every feature used alone as the ranking score, shape (n_features,).

    As in FSMRank's Fig. 4 (and GAS's importance), a feature may rank in either direction;
    the better of the two orders is reported. Computed once, in the core, by
    :func:`rankselect.feature_importance` (pessimistic ties: a tie in a feature carries no
    order, so file order never helps a feature).

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> scores = rs.protocol.single_feature_scores(X, y, qid, k=10)
    >>> scores.shape, int(scores.argmax())
    ((22,), 7)
    """
    return np.asarray(feature_importance(X, y, qid, measure=f"ndcg@{k}", convention=convention).importance)
