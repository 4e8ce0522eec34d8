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
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, cast

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from .. import metrics
from .._validation import as_generator, check_fit_result, check_predictions, check_qid, check_vector
from ..data.grouping import QueryGroups
from .stats.paired import mean_confidence_interval

__all__ = ["PermutationImportance", "permutation_importance", "PathCurve", "evaluate_path", "fit_ranker"]

_CI_METHODS = ("t", "bootstrap")


def _check_count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _check_level(confidence) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < cast(float, confidence) < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return float(confidence)


def _n_rows_cols(X):
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {shape}")
    return int(shape[0]), int(shape[1])


def _columns(X, cols):
    """Columns ``cols`` of a NumPy array, SciPy matrix or pandas DataFrame."""
    if hasattr(X, "iloc"):
        return X.iloc[:, list(cols)]
    return X[:, list(cols)]


@dataclass
class PermutationImportance:
    """Result of :func:`permutation_importance` (field names as scikit-learn's).

    Attributes
    ----------
    importances_mean : ndarray of shape (n_features,)
        Mean over queries (and repeats) of ``baseline_q - permuted_q``; larger means the
        ranker relies more on the feature.
    importances_std : ndarray of shape (n_features,)
        Standard deviation over the repeats of the mean drop.
    importances : ndarray of shape (n_features, n_repeats)
        Mean drop over queries of each repeat.
    per_query : ndarray of shape (n_features, n_queries)
        Drop of each query, averaged over the repeats (queries in order of first
        appearance, as ``query_ids``).
    ci_low, ci_high : ndarray of shape (n_features,)
        Confidence interval of ``importances_mean`` over queries (``ci_method``).
    baseline_score : float
        Mean ``scoring`` of the unpermuted data.
    baseline_per_query : ndarray of shape (n_queries,)
    query_ids : ndarray of shape (n_queries,)
    scoring, ci_method : str
    confidence : float

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> from rankselect.analysis.inspection import permutation_importance
    >>> model = rs.RankRLS().fit(*train)
    >>> imp = permutation_importance(model, *vali, n_repeats=2, random_state=0, features=[7])
    >>> type(imp).__name__, imp.importances.shape
    ('PermutationImportance', (1, 2))
    """

    importances_mean: np.ndarray
    importances_std: np.ndarray
    importances: np.ndarray
    per_query: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    baseline_score: float
    baseline_per_query: np.ndarray
    query_ids: np.ndarray
    scoring: str
    ci_method: str
    confidence: float


def _within_query_shuffle(group_index: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random permutation ``src`` of the rows that maps every row to a row of its own
    query (uniform within each query): permuted column = ``column[src]``."""
    m: int = group_index.shape[0]
    stable = np.lexsort((np.arange(m), group_index))  # rows by query, input order
    shuffled = np.lexsort((rng.random(m), group_index))  # rows by query, random order
    src = np.empty(m, dtype=np.intp)
    src[stable] = shuffled
    return src


def permutation_importance(ranker, X, y, qid, *, scoring: str = "ndcg@10", n_repeats: int = 10,
                           random_state=None, features: Optional[Sequence[int]] = None,
                           convention: str = "exponential", ci: str = "t", confidence: float = 0.95,
                           n_bootstrap: int = 2000) -> PermutationImportance:
    """Permutation importance for ranking: shuffle one feature **within each query** and
    measure the drop of a ranking measure, per query.

    For feature ``j`` and repeat ``r``, ``delta_{q,r} = M_q(f(X)) - M_q(f(X^{(j,r)}))``
    where ``X^{(j,r)}`` has column ``j`` permuted among the rows of each query and ``M_q``
    the measure of query ``q``. ``per_query`` holds ``d_q = mean_r delta_{q,r}``;
    ``importances_mean = mean_q d_q``. The confidence interval treats queries as the
    sampling unit: a t-interval over the ``d_q`` (``ci="t"``) or the BCa bootstrap over
    queries (``ci="bootstrap"``, :func:`scipy.stats.bootstrap`).

    Parameters
    ----------
    ranker : fitted object with ``predict(X)``
        Any ranker: rankselect's, LightGBM's ``LGBMRanker`` / ``Booster``, XGBoost's ...
    X : array-like or pandas DataFrame of shape (m, n)
    y : array-like of shape (m,)
        Relevance labels (>= 0).
    qid : array-like of shape (m,)
    scoring : str, default="ndcg@10"
        A measure name of :func:`rankselect.metrics.compute` (``"map"``, ``"ndcg@10"``, ...).
    n_repeats : int, default=10
    random_state : None, int or numpy Generator
    features : sequence of int, optional
        Columns to inspect (default all); the result rows follow this order.
    convention : {"exponential", "trec", "lightgbm", "letor"}
    ci : {"t", "bootstrap"}
    confidence : float in (0, 1), default=0.95
    n_bootstrap : int
        Resamples of the bootstrap interval.

    Returns
    -------
    PermutationImportance

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> from rankselect.analysis.inspection import permutation_importance
    >>> model = rs.RankRLS(alpha=1.0).fit(*train)
    >>> imp = permutation_importance(model, *vali, scoring="ndcg@10", n_repeats=3, random_state=0, features=[7, 0])
    >>> imp.importances_mean.round(3)
    array([ 0.106, -0.001])
    """
    if not hasattr(ranker, "predict"):
        raise TypeError(f"ranker must be a fitted object with predict(X), got {type(ranker).__name__}")
    n_repeats = _check_count(n_repeats, "n_repeats")
    confidence = _check_level(confidence)
    if ci not in _CI_METHODS:
        raise ValueError(f"ci must be one of {_CI_METHODS}, got {ci!r}")
    if sp.issparse(X):
        raise TypeError("permutation_importance needs a dense X (NumPy array or DataFrame): pass X.toarray()")
    m, n = _n_rows_cols(X)
    y = check_vector(y, "y", n=m)
    qid = check_qid(qid, m)
    groups = QueryGroups.from_qid(qid)
    group_index = np.empty(m, dtype=np.intp)
    group_index[groups.perm] = np.repeat(np.arange(groups.n_queries), groups.sizes)
    if features is None:
        cols = list(range(n))
    else:
        if isinstance(features, (str, bytes)) or not hasattr(features, "__iter__"):
            raise TypeError(f"features must be a sequence of column indices, got {features!r}")
        cols = list(features)
        for j in cols:
            if isinstance(j, bool) or not isinstance(j, numbers.Integral):
                raise TypeError(f"features must hold integer column indices, got {j!r}")
        cols = [int(j) for j in cols]
    for j in cols:
        if not 0 <= j < n:
            raise ValueError(f"features: column {j} is out of range for X with {n} features")
    rng = as_generator(random_state)

    def per_query(scores):
        return metrics.compute(scoring, y, check_predictions(scores, ranker, y.size), qid,
                               convention=convention, per_query=True)

    base = per_query(ranker.predict(X))
    is_frame = hasattr(X, "iloc")
    Xw: Any = X.copy() if is_frame else np.array(X, copy=True)
    drops = np.empty((len(cols), n_repeats, groups.n_queries))
    for a, j in enumerate(cols):
        original = (X.iloc[:, j].to_numpy() if is_frame else np.asarray(X[:, j])).copy()
        for r in range(n_repeats):
            shuffled = original[_within_query_shuffle(group_index, rng)]
            if is_frame:
                Xw.iloc[:, j] = shuffled
            else:
                Xw[:, j] = shuffled
            drops[a, r] = base - per_query(ranker.predict(Xw))
        if is_frame:
            Xw.iloc[:, j] = original
        else:
            Xw[:, j] = original
    pq = drops.mean(axis=1)
    lows, highs = np.empty(len(cols)), np.empty(len(cols))
    for a in range(len(cols)):
        if groups.n_queries >= 2:
            lows[a], highs[a] = mean_confidence_interval(pq[a], confidence, ci, n_resamples=n_bootstrap,
                                                         random_state=rng)
        else:
            lows[a] = highs[a] = np.nan
    per_repeat = drops.mean(axis=2)
    return PermutationImportance(
        importances_mean=pq.mean(axis=1), importances_std=per_repeat.std(axis=1), importances=per_repeat,
        per_query=pq, ci_low=lows, ci_high=highs, baseline_score=float(base.mean()),
        baseline_per_query=base, query_ids=groups.ids, scoring=scoring, ci_method=ci, confidence=confidence)


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
