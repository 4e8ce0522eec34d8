"""Inspection of any fitted ranker: query-wise permutation importance and the validation
curve of a selection order for the ranker a user deploys (LightGBM, XGBoost, rankselect).

- :func:`permutation_importance`: the drop in a ranking measure when one feature's values
  are shuffled **within each query** (shuffling across queries would also break the
  per-query offsets, which no ranking measure sees), per query, with a confidence interval
  over queries.
- :func:`evaluate_path`: fit a scikit-learn-compatible ranker on every prefix of a
  selection order (e.g. greedy RankRLS's ``selected_features_``) and score it on validation
  data, so "select with rankselect, train LightGBM on k features" is one call.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from sklearn.base import clone

from .. import metrics
from .._validation import check_fit_result, check_predictions, check_qid, check_vector
from ..data.grouping import QueryGroups
from .permutation import PermutationImportance, _check_count, _columns, _n_rows_cols, permutation_importance
from .permutation import _within_query_shuffle as _within_query_shuffle  # noqa: F401 (tests import it here)

__all__ = ["PermutationImportance", "permutation_importance", "PathCurve", "evaluate_path", "fit_ranker"]

# --------------------------------------------------------------------------- fitting any ranker


def _fit_params_of(estimator) -> set:
    try:
        return set(inspect.signature(estimator.fit).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return set()


def fit_ranker(estimator, X, y, qid, **fit_params):
    """Fit any scikit-learn-compatible ranker on query-grouped data and return it.

    Rows are first grouped by query (stably). The query structure goes to ``fit`` as
    ``qid=`` when the estimator takes it (rankselect, XGBoost's ``XGBRanker``), else as
    ``group=`` query sizes (LightGBM's ``LGBMRanker``), else not at all (a pointwise
    regressor).

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> from rankselect.analysis.inspection import fit_ranker
    >>> model = fit_ranker(rs.RankRLS(), *train)  # qid= for rankselect and XGBoost, group= for LightGBM
    >>> model.coef_.shape
    (22,)
    """
    if not hasattr(estimator, "fit"):
        raise TypeError(f"estimator must have fit(X, y, ...), got {type(estimator).__name__}")
    m = _n_rows_cols(X)[0]
    qid = check_qid(qid, m)
    y = check_vector(y, "y", n=m)
    groups = QueryGroups.from_qid(qid)
    rows = groups.perm
    Xg = X.iloc[rows] if hasattr(X, "iloc") else X[rows]
    yg = y[rows]
    params = _fit_params_of(estimator)
    queries = {"qid": qid[rows]} if "qid" in params else {"group": groups.sizes} if "group" in params else {}
    return check_fit_result(estimator.fit(Xg, yg, **queries, **fit_params), estimator)


@dataclass
class PathCurve:
    """Result of :func:`evaluate_path`.

    Attributes
    ----------
    n_features : ndarray of shape (p,)
        Prefix lengths k.
    features : list of ndarray
        The columns of each prefix (0-based).
    scores : ndarray of shape (p,)
        Mean validation ``scoring`` of the ranker fitted on each prefix.
    per_query : ndarray of shape (p, n_queries)
        Validation ``scoring`` per query (queries in order of first appearance).
    scoring : str
    best_n_features : int
        The k of the best validation score (the smallest such k on ties).

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> from rankselect.analysis.inspection import evaluate_path
    >>> curve = evaluate_path([7, 3, 11], rs.RankRLS(), train, vali)
    >>> type(curve).__name__, curve.per_query.shape
    ('PathCurve', (3, 15))
    """

    n_features: np.ndarray
    features: list
    scores: np.ndarray
    per_query: np.ndarray
    scoring: str

    @property
    def best_n_features(self) -> int:
        return int(self.n_features[int(np.argmax(self.scores))])


def _split(data, name: str):
    """``(X, y, qid)`` of a RankingData or a tuple, with ``y`` and ``qid`` checked against
    the rows of ``X`` (X itself may be a DataFrame or any 2-D array the ranker takes)."""
    try:
        X, y, qid = data
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a RankingData or an (X, y, qid) tuple") from exc
    m = _n_rows_cols(X)[0]
    y = check_vector(y, f"{name}'s y", n=m, of=f"{name}'s X")
    qid = check_qid(qid, m, name=f"{name}'s qid", of=f"{name}'s X")
    return X, y, qid


def evaluate_path(order, ranker, train, vali, *, scoring: str = "ndcg@10", n_features=None,
                  convention: str = "exponential", fit_params: Optional[dict[str, Any]] = None) -> PathCurve:
    """Validation curve of any ranker trained on each prefix of a selection order.

    For every ``k`` in ``n_features`` (default ``1 .. len(order)``), a clone of ``ranker``
    is fitted (:func:`fit_ranker`: ``qid=`` or LightGBM's ``group=``) on the training
    columns ``order[:k]`` and scored on the same validation columns.

    Parameters
    ----------
    order : sequence of int
        Feature columns (0-based) in selection order, e.g. ``GreedyRankRLS(...).selected_features_``.
    ranker : unfitted scikit-learn-compatible estimator with ``fit`` and ``predict``
        E.g. ``lightgbm.LGBMRanker()``, ``rankselect.RankRLS()``.
    train, vali : RankingData or (X, y, qid)
    scoring : str, default="ndcg@10"
        Measure name of :func:`rankselect.metrics.compute`.
    n_features : sequence of int, optional
        Prefix lengths to evaluate (each in ``1 .. len(order)``).
    convention : {"exponential", "trec", "lightgbm", "letor"}
    fit_params : dict, optional
        Extra keyword arguments of ``fit``.

    Returns
    -------
    PathCurve

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> from rankselect.analysis.inspection import evaluate_path
    >>> order = rs.GreedyRankRLS(n_features_to_select=4).fit(*train).selected_features_
    >>> curve = evaluate_path(order, rs.RankRLS(alpha=1.0), train, vali, scoring="ndcg@10")
    >>> curve.n_features, curve.scores.round(3), curve.best_n_features
    (array([1, 2, 3, 4]), array([0.726, 0.803, 0.905, 0.898]), 3)
    """
    order = np.asarray(order)
    if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
        raise ValueError(f"order must be a non-empty 1-D sequence of column indices, got {order!r}")
    if np.unique(order).size != order.size:
        raise ValueError("order must not repeat a feature")
    Xt, yt, qt = _split(train, "train")
    Xv, yv, qv = _split(vali, "vali")
    n = _n_rows_cols(Xt)[1]
    if _n_rows_cols(Xv)[1] != n:
        raise ValueError(f"vali has {_n_rows_cols(Xv)[1]} features but train has {n}")
    if (order < 0).any() or (order >= n).any():
        raise ValueError(f"order holds a column outside 0 .. {n - 1}")
    ks = np.arange(1, order.size + 1) if n_features is None else np.asarray(
        [_check_count(k, "n_features") for k in n_features], dtype=np.intp)
    if ks.size == 0 or (ks > order.size).any():  # at least one size, each <= len(order)
        raise ValueError(f"n_features must name at least one subset size, each <= len(order) = {order.size}")
    scores, per_q, feats = [], [], []
    for k in ks:
        cols = order[:k]
        est = fit_ranker(clone(ranker), _columns(Xt, cols), yt, qt, **(fit_params or {}))
        pred = check_predictions(est.predict(_columns(Xv, cols)), est, yv.size)
        pq = metrics.compute(scoring, yv, pred, qv, convention=convention, per_query=True)
        per_q.append(pq)
        scores.append(float(pq.mean()))
        feats.append(cols.copy())
    return PathCurve(n_features=ks, features=feats, scores=np.asarray(scores), per_query=np.vstack(per_q),
                     scoring=scoring)
