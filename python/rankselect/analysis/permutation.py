"""Query-aware permutation importance of any fitted ranker, per feature or per feature group.

- :func:`permutation_importance`: the drop in a ranking measure when one feature's values
  are shuffled **within each query** (shuffling across queries would also break the
  per-query offsets, which no ranking measure sees), per query, with a confidence interval
  over queries; with ``feature_groups``, the columns of a group are shuffled **jointly** (one
  row permutation for all of them, which keeps their joint distribution within the group).

Re-exported by :mod:`rankselect.analysis.inspection`.
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, cast

import numpy as np
import scipy.sparse as sp

from .. import metrics
from .._validation import as_generator, check_predictions, check_qid, check_vector
from ..data.feature_groups import check_feature_groups
from ..data.grouping import QueryGroups
from .stats.paired import mean_confidence_interval

__all__ = ["PermutationImportance", "permutation_importance"]

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
    groups : ndarray of str, shape (n_groups,), or None
        With ``feature_groups``: the name of the group of each row of the fields above
        (the rows are groups, not features); None for a per-feature result.

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
    groups: Optional[np.ndarray] = None


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
                           n_bootstrap: int = 2000, feature_groups: Any = None) -> PermutationImportance:
    """Permutation importance for ranking: shuffle one feature **within each query** and
    measure the drop of a ranking measure, per query.

    For feature ``j`` and repeat ``r``, ``delta_{q,r} = M_q(f(X)) - M_q(f(X^{(j,r)}))``
    where ``X^{(j,r)}`` has column ``j`` permuted among the rows of each query and ``M_q``
    the measure of query ``q``. ``per_query`` holds ``d_q = mean_r delta_{q,r}``;
    ``importances_mean = mean_q d_q``. The confidence interval treats queries as the
    sampling unit: a t-interval over the ``d_q`` (``ci="t"``) or the BCa bootstrap over
    queries (``ci="bootstrap"``, :func:`scipy.stats.bootstrap`).

    With ``feature_groups``, a group ``g`` is one unit: ``X^{(g,r)}`` has **all** the
    columns of ``g`` permuted by the same within-query row permutation (so the joint
    distribution of the group's columns is kept and only their link to the other columns and
    to the labels is broken), and the rows of the result are the groups (``groups`` names
    them). A group of one column gives exactly that feature's importance (same seed).

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
    feature_groups : label per feature, mapping ``{group: [columns]}`` or FeatureGroups, optional
        Permute the columns of each group jointly and report one row per group, in the order
        of the groups' names (e.g. :func:`rankselect.data.datasets.feature_layout`); not
        together with ``features``.

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

    Per group (here two made-up groups of the example's 22 columns):

    >>> halves = ["first"] * 11 + ["second"] * 11
    >>> imp = permutation_importance(model, *vali, n_repeats=3, random_state=0, feature_groups=halves)
    >>> imp.groups.tolist(), imp.importances_mean.shape
    (['first', 'second'], (2,))
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
    names: Optional[np.ndarray] = None
    if feature_groups is not None:
        if features is not None:
            raise ValueError("give features= or feature_groups=, not both")
        fg = check_feature_groups(feature_groups, n)
        units = fg.member_lists()
        names = np.array(fg.names, dtype=object)
    elif features is None:
        cols = list(range(n))
    else:
        if isinstance(features, (str, bytes)) or not hasattr(features, "__iter__"):
            raise TypeError(f"features must be a sequence of column indices, got {features!r}")
        cols = list(features)
        for j in cols:
            if isinstance(j, bool) or not isinstance(j, numbers.Integral):
                raise TypeError(f"features must hold integer column indices, got {j!r}")
        cols = [int(j) for j in cols]
    if feature_groups is None:
        for j in cols:
            if not 0 <= j < n:
                raise ValueError(f"features: column {j} is out of range for X with {n} features")
        units = [np.array([j], dtype=np.intp) for j in cols]
    rng = as_generator(random_state)

    def per_query(scores):
        return metrics.compute(scoring, y, check_predictions(scores, ranker, y.size), qid,
                               convention=convention, per_query=True)

    base = per_query(ranker.predict(X))
    is_frame = hasattr(X, "iloc")
    Xw: Any = X.copy() if is_frame else np.array(X, copy=True)
    drops = np.empty((len(units), n_repeats, groups.n_queries))
    for a, unit in enumerate(units):  # the columns permuted together (one, or a group's)
        original = (X.iloc[:, unit].to_numpy() if is_frame else np.asarray(X[:, unit])).copy()
        for r in range(n_repeats):
            shuffled = original[_within_query_shuffle(group_index, rng)]  # one row permutation for all
            if is_frame:
                Xw.iloc[:, unit] = shuffled
            else:
                Xw[:, unit] = shuffled
            drops[a, r] = base - per_query(ranker.predict(Xw))
        if is_frame:
            Xw.iloc[:, unit] = original
        else:
            Xw[:, unit] = original
    pq = drops.mean(axis=1)
    lows, highs = np.empty(len(units)), np.empty(len(units))
    for a in range(len(units)):
        if groups.n_queries >= 2:
            lows[a], highs[a] = mean_confidence_interval(pq[a], confidence, ci, n_resamples=n_bootstrap,
                                                         random_state=rng)
        else:
            lows[a] = highs[a] = np.nan
    per_repeat = drops.mean(axis=2)
    return PermutationImportance(
        importances_mean=pq.mean(axis=1), importances_std=per_repeat.std(axis=1), importances=per_repeat,
        per_query=pq, ci_low=lows, ci_high=highs, baseline_score=float(base.mean()),
        baseline_per_query=base, query_ids=groups.ids, scoring=scoring, ci_method=ci, confidence=confidence,
        groups=names)
