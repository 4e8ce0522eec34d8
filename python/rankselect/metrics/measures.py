"""The ranking measures: NDCG, P@k, AP / MAP, MeanNDCG, ERR, by name (:func:`compute`) and
the LETOR table in one pass (:func:`evaluate`); conventions and ties as in
:mod:`rankselect.metrics`. Computed in the Rust core, query by query."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

import numpy as np

from .. import _core
from .._validation import check_scores, shown
from ..data.grouping import QueryGroups
from .checks import CONVENTIONS, TIES, check_choice, check_k, check_max_grade, mean_over_queries

__all__ = [
    "ndcg",
    "precision",
    "average_precision",
    "mean_average_precision",
    "mean_ndcg",
    "err",
    "compute",
    "evaluate",
]


def _prepare(y, scores, qid) -> tuple[QueryGroups, np.ndarray, np.ndarray]:
    """Validated labels and scores grouped by query: ``(groups, y, scores)``."""
    y, scores, qid = check_scores(y, scores, qid)
    if y.shape[0] == 0:
        raise ValueError("y is empty: metrics need at least one query with one document")
    if (y < 0).any():
        i = int(np.flatnonzero(y < 0)[0])
        raise ValueError(f"y must hold relevance labels >= 0; row {i} has {shown(y[i])}")
    groups = QueryGroups.from_qid(qid)
    return groups, np.ascontiguousarray(groups.gather(y)), np.ascontiguousarray(groups.gather(scores))


def _run(specs: list[tuple[str, str, str]], y, scores, qid, max_grade=None) -> np.ndarray:
    """Per-query values of several metrics, shape (len(specs), n_queries)."""
    max_grade = check_max_grade(max_grade)
    groups, yg, sg = _prepare(y, scores, qid)
    if max_grade is not None and max_grade < yg.max():
        raise ValueError(f"max_grade ({max_grade}) is below the largest label in y ({yg.max()})")
    return _core.metrics_per_query(specs, yg, sg, groups.offsets, max_grade)


def _one(measure: str, y, scores, qid, convention, ties, per_query, max_grade=None):
    convention = check_choice(convention, "convention", CONVENTIONS)
    ties = check_choice(ties, "ties", TIES)
    values = _run([(measure, convention, ties)], y, scores, qid, max_grade)[0]
    return values if per_query else mean_over_queries(values)


def ndcg(y, scores, qid, k: Optional[int] = None, *, convention: str = "exponential",
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
    convention : {"exponential", "trec", "lightgbm", "letor"}
        (``"standard"``: the old name of ``"exponential"``)
    ties : {"stable", "pessimistic"}
    per_query : bool
        Return the array of shape (n_queries,) instead of the mean.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> y = np.array([2, 0, 1, 1, 0])
    >>> scores = np.array([0.9, 0.8, 0.3, 0.5, 0.1])
    >>> qid = np.array([1, 1, 1, 2, 2])
    >>> round(rs.metrics.ndcg(y, scores, qid, k=3), 4)
    0.982
    >>> rs.metrics.ndcg(y, scores, qid, k=3, convention="letor", per_query=True).round(4)
    array([0.9077, 0.    ])
    """
    k = check_k(k)
    return _one("ndcg" if k is None else f"ndcg@{k}", y, scores, qid, convention, ties, per_query)


def precision(y, scores, qid, k: int, *, convention: str = "exponential", ties: str = "stable",
              per_query: bool = False):
    """Precision at ``k``: ``(# relevant documents in the top min(k, n)) / k``.

    Relevant means ``r > 0`` (standard) or ``r >= 1`` (LETOR); positions beyond the end of
    a short query count as non-relevant (division by ``k`` in both conventions).
    Shapes as :func:`ndcg`; returns the mean over queries or, with ``per_query=True``,
    an array of shape (n_queries,).

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> y = np.array([2, 0, 1, 1, 0])
    >>> scores = np.array([0.9, 0.8, 0.3, 0.5, 0.1])
    >>> qid = np.array([1, 1, 1, 2, 2])
    >>> rs.metrics.precision(y, scores, qid, k=2, per_query=True)
    array([0.5, 0.5])
    """
    cutoff = check_k(k, allow_none=False)
    return _one(f"p@{cutoff}", y, scores, qid, convention, ties, per_query)


def average_precision(y, scores, qid, *, convention: str = "exponential", ties: str = "stable") -> np.ndarray:
    """Average precision of each query, shape (n_queries,).

    ``AP = (1 / R) sum_{i: r_i relevant} P@i`` with ``R`` the number of relevant documents
    of the query; 0 for a query without relevant documents.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> y = np.array([2, 0, 1, 1, 0])
    >>> scores = np.array([0.9, 0.8, 0.3, 0.5, 0.1])
    >>> qid = np.array([1, 1, 1, 2, 2])
    >>> rs.metrics.average_precision(y, scores, qid).round(4)
    array([0.8333, 1.    ])
    """
    return _one("ap", y, scores, qid, convention, ties, True)


def mean_average_precision(y, scores, qid, *, convention: str = "exponential", ties: str = "stable",
                           per_query: bool = False):
    """MAP: the mean over queries of :func:`average_precision`.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> y = np.array([2, 0, 1, 1, 0])
    >>> scores = np.array([0.9, 0.8, 0.3, 0.5, 0.1])
    >>> qid = np.array([1, 1, 1, 2, 2])
    >>> round(rs.metrics.mean_average_precision(y, scores, qid), 4)
    0.9167
    """
    return _one("ap", y, scores, qid, convention, ties, per_query)


def mean_ndcg(y, scores, qid, *, convention: str = "exponential", ties: str = "stable",
              per_query: bool = False):
    """LETOR's MeanNDCG: ``(1 / n) sum_{k=1}^{n} NDCG@k`` per query, then the mean over
    queries (NDCG@k in the chosen convention; 0 for a query without relevant documents).

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> y = np.array([2, 0, 1, 1, 0])
    >>> scores = np.array([0.9, 0.8, 0.3, 0.5, 0.1])
    >>> qid = np.array([1, 1, 1, 2, 2])
    >>> round(rs.metrics.mean_ndcg(y, scores, qid), 4)
    0.965
    """
    return _one("meanndcg", y, scores, qid, convention, ties, per_query)


def err(y, scores, qid, k: Optional[int] = None, *, max_grade: Optional[float] = None,
        convention: str = "exponential", ties: str = "stable", per_query: bool = False):
    """Expected reciprocal rank at ``k`` (Chapelle et al. 2009).

    ``ERR@k = sum_{i <= min(k, n)} (1 / i) R_i prod_{j < i} (1 - R_j)``,
    ``R_i = (2**r_i - 1) / 2**max_grade``; ``max_grade`` defaults to the largest label in
    ``y`` (over all queries) and must not be below it. ``convention`` has no effect
    (LETOR's script has no ERR); it is accepted for uniformity.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> y = np.array([2, 0, 1, 1, 0])
    >>> scores = np.array([0.9, 0.8, 0.3, 0.5, 0.1])
    >>> qid = np.array([1, 1, 1, 2, 2])
    >>> round(rs.metrics.err(y, scores, qid, k=3), 4)
    0.5104
    """
    k = check_k(k)
    return _one("err" if k is None else f"err@{k}", y, scores, qid, convention, ties, per_query, max_grade)


def compute(metric: str, y, scores, qid, *, convention: str = "exponential", ties: str = "stable",
            per_query: bool = False, max_grade: Optional[float] = None):
    """Any metric by name: ``"ndcg"``, ``"ndcg@10"``, ``"p@5"`` / ``"precision@5"``,
    ``"map"`` / ``"ap"``, ``"meanndcg"``, ``"err"``, ``"err@10"`` (case-insensitive).

    Returns the mean over queries, or the per-query array with ``per_query=True``.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> y = np.array([2, 0, 1, 1, 0])
    >>> scores = np.array([0.9, 0.8, 0.3, 0.5, 0.1])
    >>> qid = np.array([1, 1, 1, 2, 2])
    >>> round(rs.metrics.compute("ndcg@3", y, scores, qid), 4)
    0.982
    >>> rs.metrics.compute("p@1", y, scores, qid, per_query=True)
    array([1., 1.])
    """
    if not isinstance(metric, str):
        raise ValueError(f"metric must be a metric name such as 'ndcg@10' or 'map', got {metric!r}")
    return _one(metric, y, scores, qid, convention, ties, per_query, max_grade)


def evaluate(y, scores, qid, *, convention: str = "exponential", ties: str = "stable",
             ks: Iterable[int] = range(1, 11), max_grade: Optional[float] = None,
             per_query: bool = False) -> dict[str, Any]:
    """The usual LETOR table in one pass (each query ranked once).

    Returns a dict ``{"MAP", "NDCG@k" for k in ks, "P@k" for k in ks, "MeanNDCG", "ERR"}``
    of means over queries (arrays of shape (n_queries,) with ``per_query=True``).

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> y = np.array([2, 0, 1, 1, 0])
    >>> scores = np.array([0.9, 0.8, 0.3, 0.5, 0.1])
    >>> qid = np.array([1, 1, 1, 2, 2])
    >>> table = rs.metrics.evaluate(y, scores, qid, ks=[1, 3])
    >>> {name: round(value, 4) for name, value in table.items()}
    {'MAP': 0.9167, 'NDCG@1': 1.0, 'NDCG@3': 0.982, 'P@1': 1.0, 'P@3': 0.5, 'MeanNDCG': 0.965, 'ERR': 0.5104}
    """
    convention = check_choice(convention, "convention", CONVENTIONS)
    ties = check_choice(ties, "ties", TIES)
    cutoffs = [check_k(k, "ks", allow_none=False) for k in ks]
    names = ["MAP"] + [f"NDCG@{k}" for k in cutoffs] + [f"P@{k}" for k in cutoffs] + ["MeanNDCG", "ERR"]
    measures = ["ap"] + [f"ndcg@{k}" for k in cutoffs] + [f"p@{k}" for k in cutoffs] + ["meanndcg", "err"]
    values = _run([(m, convention, ties) for m in measures], y, scores, qid, max_grade)
    return {name: (v if per_query else mean_over_queries(v)) for name, v in zip(names, values)}
