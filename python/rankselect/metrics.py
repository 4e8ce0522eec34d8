"""IR metrics of a ranking, per query and averaged over queries (computed in Rust).

Every function takes labels ``y`` (m,), ``scores`` (m,) and ``qid`` (m,). Queries are
defined by ``qid`` (rows need not be sorted or contiguous; rows keep their input order
inside a query), ranked by ``scores`` descending, and each metric returns the mean over
queries, or with ``per_query=True`` an array of shape (n_queries,) with the queries in
order of first appearance (as :class:`rankselect.QueryGroups`).

Notation: ``r_i`` is the label at rank ``i`` (1-based), ``n`` the number of documents of
the query, ``g(r) = 2**r - 1`` the gain.

Conventions (``convention=``)
-----------------------------
``"standard"`` (default; trec_eval and most of the literature)
    ``DCG@k = sum_{i <= min(k, n)} g(r_i) / log2(i + 1)``; ``NDCG@k = DCG@k / IDCG@k``
    with ``IDCG@k`` the DCG@k of the labels sorted descending; ``k`` is truncated to the
    query length (``k=None`` means ``k = n``); relevant means ``r > 0``; a query without
    relevant documents scores 0.
``"letor"`` (exactly LETOR 4.0's ``Eval-Score-4.0.pl``, which produced the papers' tables)
    ``DCG@k = g(r_1) + g(r_2) + sum_{3 <= i <= k} g(r_i) / log2(i)`` (no discount at ranks
    1 and 2); ``NDCG@k = 0`` when the query has fewer than ``k`` documents; queries
    without relevant documents count as 0; relevant means ``r >= 1``.

In both conventions ``P@k = (# relevant in the top min(k, n)) / k`` (missing positions
count as non-relevant), ``AP = (1/R) sum_{i: r_i relevant} P@i`` with ``R`` the number of
relevant documents of the query (0 when ``R = 0``), ``MeanNDCG`` (LETOR) is the mean of
NDCG@1..n per query, and ``ERR@k = sum_{i <= min(k, n)} (1/i) R_i prod_{j < i} (1 - R_j)``
with ``R_i = g(r_i) / 2**max_grade`` (Chapelle et al. 2009; LETOR's script has no ERR, so
both conventions give the same ERR).

Ties (``ties=``)
----------------
``"stable"`` (default): documents with equal scores keep their input order, as LETOR's
script does (note that LETOR files are not in random order, so a constant scorer is not a
random one). ``"pessimistic"``: lower labels first among equal scores.

Outside LETOR 4.0 data (labels other than 0, 1, 2) the Perl script would give gain 0 and
no relevance to other labels; here ``g(r) = 2**r - 1`` for every label ``r >= 0``.
"""
from __future__ import annotations

import numbers
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from sklearn.metrics._scorer import _Scorer

from . import _core
from ._validation import check_scores
from .groups import GroupedData

__all__ = [
    "ndcg",
    "precision",
    "average_precision",
    "mean_average_precision",
    "mean_ndcg",
    "err",
    "compute",
    "evaluate",
    "make_scorer",
]

_CONVENTIONS = ("standard", "letor")
_TIES = ("stable", "pessimistic")


def _check_choice(value, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value.lower() not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value.lower()


def _check_k(k, name: str = "k", *, allow_none: bool = True) -> Optional[int]:
    if k is None and allow_none:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        what = "a positive integer or None" if allow_none else "a positive integer"
        raise ValueError(f"{name} must be {what}, got {k!r}")
    return int(k)


def _check_max_grade(max_grade) -> Optional[float]:
    if max_grade is None:
        return None
    if isinstance(max_grade, bool) or not isinstance(max_grade, numbers.Real) or not np.isfinite(max_grade):
        raise ValueError(f"max_grade must be a finite number or None, got {max_grade!r}")
    return float(max_grade)


def _prepare(y, scores, qid) -> Tuple[GroupedData, np.ndarray]:
    y, scores, qid = check_scores(y, scores, qid)
    if y.shape[0] == 0:
        raise ValueError("y is empty: metrics need at least one query with one document")
    if (y < 0).any():
        i = int(np.flatnonzero(y < 0)[0])
        raise ValueError(f"y must hold relevance labels >= 0; row {i} has {y[i]!r}")
    data = GroupedData.from_arrays(None, y, qid)
    return data, data.gather(scores)


def _run(specs: List[Tuple[str, str, str]], y, scores, qid, max_grade=None) -> np.ndarray:
    """Per-query values of several metrics, shape (len(specs), n_queries)."""
    max_grade = _check_max_grade(max_grade)
    data, sg = _prepare(y, scores, qid)
    if max_grade is not None and max_grade < data.y.max():
        raise ValueError(f"max_grade ({max_grade}) is below the largest label in y ({data.y.max()})")
    return _core.metrics_per_query(specs, data.y, sg, data.offsets, max_grade)


def _one(measure: str, y, scores, qid, convention, ties, per_query, max_grade=None):
    convention = _check_choice(convention, "convention", _CONVENTIONS)
    ties = _check_choice(ties, "ties", _TIES)
    values = _run([(measure, convention, ties)], y, scores, qid, max_grade)[0]
    return values if per_query else _mean(values)


def _mean(values: np.ndarray) -> float:
    """Sequential sum in query order over the number of queries (as the Rust `mean`)."""
    total = 0.0
    for v in values.tolist():
        total += v
    return total / len(values)


def ndcg(y, scores, qid, k: Optional[int] = None, *, convention: str = "standard",
         ties: str = "stable", per_query: bool = False):
    """Normalised discounted cumulative gain at ``k`` (``None``: the whole query).

    Standard: ``DCG@k = sum_{i <= min(k, n)} (2**r_i - 1) / log2(i + 1)``,
    ``NDCG@k = DCG@k / IDCG@k`` (0 when no document is relevant).
    LETOR: discount 1 at ranks 1 and 2 and ``1 / log2(i)`` after, and ``NDCG@k = 0`` for a
    query with fewer than ``k`` documents. See the module docstring.

    Parameters
    ----------
    y : array-like of shape (m,)
        Relevance labels (>= 0).
    scores : array-like of shape (m,)
        Predicted scores; higher ranks first.
    qid : array-like of shape (m,)
        Query id of every row.
    k : int >= 1 or None
    convention : {"standard", "letor"}
    ties : {"stable", "pessimistic"}
    per_query : bool
        Return the array of shape (n_queries,) instead of the mean.
    """
    k = _check_k(k)
    return _one("ndcg" if k is None else f"ndcg@{k}", y, scores, qid, convention, ties, per_query)


def precision(y, scores, qid, k: int, *, convention: str = "standard", ties: str = "stable",
              per_query: bool = False):
    """Precision at ``k``: ``(# relevant documents in the top min(k, n)) / k``.

    Relevant means ``r > 0`` (standard) or ``r >= 1`` (LETOR); positions beyond the end of
    a short query count as non-relevant (division by ``k`` in both conventions).
    Shapes as :func:`ndcg`; returns the mean over queries or, with ``per_query=True``,
    an array of shape (n_queries,).
    """
    k = _check_k(k, allow_none=False)
    return _one(f"p@{k}", y, scores, qid, convention, ties, per_query)


def average_precision(y, scores, qid, *, convention: str = "standard", ties: str = "stable") -> np.ndarray:
    """Average precision of each query, shape (n_queries,).

    ``AP = (1 / R) sum_{i: r_i relevant} P@i`` with ``R`` the number of relevant documents
    of the query; 0 for a query without relevant documents.
    """
    return _one("ap", y, scores, qid, convention, ties, True)


def mean_average_precision(y, scores, qid, *, convention: str = "standard", ties: str = "stable",
                           per_query: bool = False):
    """MAP: the mean over queries of :func:`average_precision`."""
    return _one("ap", y, scores, qid, convention, ties, per_query)


def mean_ndcg(y, scores, qid, *, convention: str = "standard", ties: str = "stable",
              per_query: bool = False):
    """LETOR's MeanNDCG: ``(1 / n) sum_{k=1}^{n} NDCG@k`` per query, then the mean over
    queries (NDCG@k in the chosen convention; 0 for a query without relevant documents)."""
    return _one("meanndcg", y, scores, qid, convention, ties, per_query)


def err(y, scores, qid, k: Optional[int] = None, *, max_grade: Optional[float] = None,
        convention: str = "standard", ties: str = "stable", per_query: bool = False):
    """Expected reciprocal rank at ``k`` (Chapelle et al. 2009).

    ``ERR@k = sum_{i <= min(k, n)} (1 / i) R_i prod_{j < i} (1 - R_j)``,
    ``R_i = (2**r_i - 1) / 2**max_grade``; ``max_grade`` defaults to the largest label in
    ``y`` (over all queries) and must not be below it. ``convention`` has no effect
    (LETOR's script has no ERR); it is accepted for uniformity.
    """
    k = _check_k(k)
    return _one("err" if k is None else f"err@{k}", y, scores, qid, convention, ties, per_query, max_grade)


def compute(metric: str, y, scores, qid, *, convention: str = "standard", ties: str = "stable",
            per_query: bool = False, max_grade: Optional[float] = None):
    """Any metric by name: ``"ndcg"``, ``"ndcg@10"``, ``"p@5"`` / ``"precision@5"``,
    ``"map"`` / ``"ap"``, ``"meanndcg"``, ``"err"``, ``"err@10"`` (case-insensitive).

    Returns the mean over queries, or the per-query array with ``per_query=True``.
    """
    if not isinstance(metric, str):
        raise ValueError(f"metric must be a metric name such as 'ndcg@10' or 'map', got {metric!r}")
    return _one(metric, y, scores, qid, convention, ties, per_query, max_grade)


def evaluate(y, scores, qid, *, convention: str = "standard", ties: str = "stable",
             ks: Iterable[int] = range(1, 11), max_grade: Optional[float] = None,
             per_query: bool = False) -> Dict[str, object]:
    """The usual LETOR table in one pass (each query ranked once).

    Returns a dict ``{"MAP", "NDCG@k" for k in ks, "P@k" for k in ks, "MeanNDCG", "ERR"}``
    of means over queries (arrays of shape (n_queries,) with ``per_query=True``).
    """
    convention = _check_choice(convention, "convention", _CONVENTIONS)
    ties = _check_choice(ties, "ties", _TIES)
    ks = [_check_k(k, "ks", allow_none=False) for k in ks]
    names = ["MAP"] + [f"NDCG@{k}" for k in ks] + [f"P@{k}" for k in ks] + ["MeanNDCG", "ERR"]
    measures = ["ap"] + [f"ndcg@{k}" for k in ks] + [f"p@{k}" for k in ks] + ["meanndcg", "err"]
    values = _run([(m, convention, ties) for m in measures], y, scores, qid, max_grade)
    return {name: (v if per_query else _mean(v)) for name, v in zip(names, values)}


class _RankingMeasure:
    """``score_func(y_true, y_pred, qid)`` of a ranking scorer: :func:`compute` of one
    measure (picklable, so that scorers work with ``n_jobs``)."""

    def __init__(self, measure: str, convention: str, ties: str, qid=None):
        self.measure = measure
        self.convention = convention
        self.ties = ties
        self.qid = qid

    def __call__(self, y_true, y_pred, qid=None):
        if qid is None:
            qid = self.qid
        if qid is None:
            raise ValueError(
                f"the {self.measure!r} scorer got no qid: enable metadata routing "
                "(sklearn.set_config(enable_metadata_routing=True)) and pass qid=... to the fit of "
                "GridSearchCV / cross_validate / SequentialFeatureSelector (it is requested by "
                "default), or bind the query ids of the scored rows: make_scorer(measure, qid=qid)")
        return compute(self.measure, y_true, y_pred, qid, convention=self.convention, ties=self.ties)

    def __repr__(self):
        return f"{self.measure}"


class RankingScorer(_Scorer):
    """A scikit-learn scorer of a ranking measure (:func:`make_scorer`); requests ``qid``
    by default under metadata routing."""

    __metadata_request__score = {"qid": True}

    def __repr__(self):
        f = self._score_func
        return (f"rankselect.metrics.make_scorer({f.measure!r}, convention={f.convention!r}, "
                f"ties={f.ties!r})")


def make_scorer(measure: str, *, convention: str = "standard", ties: str = "stable", qid=None):
    """A scikit-learn scorer of a ranking measure, for ``scoring=``.

    ``scorer(estimator, X, y, qid=qid)`` is the mean over queries of ``measure`` of the
    ranking by ``estimator.predict(X)`` (higher is better). The scorer requests ``qid`` under
    metadata routing, so with ``sklearn.set_config(enable_metadata_routing=True)``::

        GridSearchCV(pipe, grid, cv=GroupKFold(), scoring=make_scorer("ndcg@10"))
            .fit(X, y, qid=qid, groups=qid)

    routes each split's query ids to it (likewise ``cross_validate``,
    ``SequentialFeatureSelector``). For tools that pass no metadata (e.g.
    :func:`sklearn.inspection.permutation_importance`), bind the query ids of the rows it
    scores with ``qid=``.

    Parameters
    ----------
    measure : str
        A measure name of :func:`compute`: ``"ndcg@10"``, ``"ndcg"``, ``"map"``, ``"p@10"``,
        ``"meanndcg"``, ``"err@10"``, ... (case-insensitive).
    convention : {"standard", "letor"}, default="standard"
    ties : {"stable", "pessimistic"}, default="stable"
    qid : array-like of shape (m,), default=None
        Query ids used when the caller passes none (a routed ``qid`` takes precedence).

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y, **metadata) -> float``
    """
    if not isinstance(measure, str):
        raise ValueError(f"measure must be a measure name such as 'ndcg@10' or 'map', got {measure!r}")
    convention = _check_choice(convention, "convention", _CONVENTIONS)
    ties = _check_choice(ties, "ties", _TIES)
    # parse the name now (ValueError naming it) rather than at the first split
    compute(measure, [1.0, 0.0], [1.0, 0.0], [0, 0], convention=convention, ties=ties)
    if qid is not None:
        from ._validation import check_qid

        qid = check_qid(qid)
    return RankingScorer(_RankingMeasure(measure, convention, ties, qid), 1, {}, "predict")
