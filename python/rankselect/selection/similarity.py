"""Kendall-tau similarity between features, per query, averaged over queries.

GAS (Geng et al. 2007, Section 2.3) measures the similarity of two features by how
alike the rankings they produce are. For one query with ``n_q >= 2`` documents, with
``n0 = n_q (n_q - 1) / 2`` document pairs, ``C`` pairs ordered strictly the same way by
both features (concordant), ``D`` ordered strictly opposite ways (discordant) and
``T_a``, ``T_b`` pairs tied in one feature:

- ``variant="geng"`` (the paper's definition): ``tau_q = C / n0``, in [0, 1].
  Ties count as disagreement, so the diagonal is the mean fraction of untied pairs.
- ``variant="tau_b"``: Kendall's tau-b, ``(C - D) / sqrt((n0 - T_a) (n0 - T_b))``, equal
  to :func:`scipy.stats.kendalltau` on the query, in [-1, 1]. A query where either
  feature is constant (tau-b undefined, NaN in SciPy) contributes **0**; the diagonal is
  therefore the fraction of queries in which the feature varies.

Per-query values are averaged over the queries with at least 2 documents.

``absolute=True`` compares each feature with the other one *or its negation*, whichever
is closer: a feature and its negation produce the same ranking read backwards, and a
ranker can use either (GAS's importance tries both directions). It is applied after the
averaging (a feature has one direction for all queries): ``|mean tau_b|``, and for
``"geng"`` ``max(mean C / n0, mean D / n0)`` (``D / n0`` is the Geng similarity with the
negated feature).

The Rust kernel is exact (integer pair counts) and uses two schemes chosen by query
length: bit-parallel pair sets for short queries and Knight's O(n_q log n_q) merge-sort
algorithm for long ones; both give identical results.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from .. import _core
from .._config import check_memory
from .._validation import check_matrix, check_qid, shown
from ..data.grouping import QueryGroups, contiguous_offsets

__all__ = ["VARIANTS", "SIMILARITIES", "kendall_similarity", "spearman_similarity", "check_variant"]

VARIANTS = ("geng", "tau_b")

#: every similarity a filter selector computes: the Kendall variants and FSA's ``"spearman"``
SIMILARITIES = VARIANTS + ("spearman",)

_ALGORITHMS = {"auto": None, "bitset": np.iinfo(np.int64).max, "merge": 0}


def check_variant(variant) -> str:
    """``variant`` when it is one of :data:`VARIANTS`; ValueError otherwise.

    Examples
    --------
    >>> from rankselect.selection.similarity import check_variant
    >>> check_variant("tau_b")
    'tau_b'
    """
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {shown(variant)}")
    return variant


def kendall_similarity(X, qid, variant: str = "geng", absolute: bool = False, *,
                       algorithm: str = "auto") -> np.ndarray:
    """Kendall-tau similarity matrix of the features of ``X``, averaged over queries.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Feature values; finite.
    qid : array-like of shape (n_samples,)
        Query id of every row; rows of a query need not be contiguous.
    variant : {"geng", "tau_b"}, default="geng"
        Per-query statistic (see the module docstring): ``"geng"`` is
        concordant pairs / all pairs (Geng et al. 2007, Section 2.3); ``"tau_b"`` is
        Kendall's tau-b (0 for a query where a feature is constant).
    absolute : bool, default=False
        Compare each feature with the other one or its negation, whichever is closer
        (``|mean tau_b|``, or ``max(mean C/n0, mean D/n0)`` for ``"geng"``).
    algorithm : {"auto", "bitset", "merge"}, default="auto"
        Exact counting scheme: ``"auto"`` picks per query by length (bit-parallel for
        short queries, Knight's merge sort for long ones); the others force one scheme
        (for tests and benchmarks; the result is identical). ``"bitset"`` still falls back
        to merge sort for queries whose bitsets would not fit in 64 MiB.

    Returns
    -------
    ndarray of shape (n_features, n_features)
        Symmetric similarity matrix.

    Raises
    ------
    ValueError
        On bad shapes, NaN/inf, an unknown variant, or when no query has 2 documents.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> X = np.array([[1., 2., 3.], [2., 1., 2.], [3., 0., 1.]])
    >>> rs.kendall_similarity(X, qid=[1, 1, 1], variant="tau_b")
    array([[ 1., -1., -1.],
           [-1.,  1.,  1.],
           [-1.,  1.,  1.]])
    """
    variant = check_variant(variant)
    if not isinstance(absolute, (bool, np.bool_)):
        raise TypeError(f"absolute must be a bool, got {shown(absolute)}")
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"algorithm must be one of {tuple(_ALGORITHMS)}, got {algorithm!r}")
    X = check_matrix(X, "X", squares=False)  # order statistics: no squares
    if X.shape[1] == 0:
        raise ValueError("X has no features (0 columns)")
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    qid = check_qid(qid, X.shape[0])
    _check_similarity_memory(*X.shape)
    offsets = contiguous_offsets(qid)
    if offsets is None:
        groups = QueryGroups.from_qid(qid)
        X, offsets = np.ascontiguousarray(groups.gather(X)), groups.offsets
    if not (np.diff(offsets) >= 2).any():
        raise ValueError("qid: no query has at least 2 documents; Kendall's tau needs document pairs")
    return _similarity_grouped(X, offsets, variant, bool(absolute), algorithm)


def _check_similarity_memory(m: int, n: int) -> None:
    # The (n, n) result, its per-thread partial sums (bounded by 2) and the grouped copy of X.
    check_memory(8 * (3 * n * n + m * n), f"Kendall similarity of {n} features ({n} x {n} matrices)",
                 "select among fewer features (e.g. pre-filter by importance)")


def _similarity_grouped(X: np.ndarray, offsets: np.ndarray, variant: str, absolute: bool,
                        algorithm: str = "auto") -> np.ndarray:
    """:func:`kendall_similarity` of rows ``X`` (m, n) already validated and grouped by
    query (``offsets``)."""
    return _core.kendall_similarity(X, offsets, variant, absolute, _ALGORITHMS[algorithm])



def spearman_similarity(X) -> np.ndarray:
    """``|Spearman|`` rank correlation of every pair of features over all rows (the similarity
    of Gigli et al. 2016, FSA's ``scipy.stats.spearmanr`` on the pooled training rows).

    Spearman's rho is Pearson's correlation of the columns' ranks (ties: average ranks);
    queries are ignored (unlike :func:`kendall_similarity`, which averages over queries), and
    the absolute value makes a feature and its negation identical. A feature constant over
    all rows (rho undefined, NaN in SciPy) has similarity 0 to every other feature; the
    diagonal is 1. Cost: one sort per feature and an (n, m) x (m, n) product.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Feature values; finite.

    Returns
    -------
    ndarray of shape (n_features, n_features)
        Symmetric, in [0, 1].

    Examples
    --------
    >>> from rankselect import spearman_similarity
    >>> X = [[1.0, -2.0, 0.0], [2.0, -4.0, 1.0], [3.0, -5.0, 0.5]]
    >>> spearman_similarity(X).round(2)  # column 1 is column 0 negated: similarity 1
    array([[1. , 1. , 0.5],
           [1. , 1. , 0.5],
           [0.5, 0.5, 1. ]])
    """
    X = check_matrix(X, "X", squares=False)
    if X.shape[1] == 0:
        raise ValueError("X has no features (0 columns)")
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    return _spearman(X)


def _spearman(X: np.ndarray) -> np.ndarray:
    """:func:`spearman_similarity` of validated rows (their order is irrelevant)."""
    m, n = X.shape
    check_memory(8 * (2 * m * n + 2 * n * n), f"Spearman similarity of {n} features ({n} x {n} matrix)",
                 "select among fewer features (e.g. pre-filter by importance)")
    ranks = rankdata(X, axis=0) if m else np.zeros((0, n))
    ranks -= ranks.mean(axis=0)
    norms = np.sqrt(np.einsum("ij,ij->j", ranks, ranks))
    varies = norms > 0
    ranks[:, varies] /= norms[varies]
    s = np.abs(ranks.T @ ranks)
    np.clip(s, 0.0, 1.0, out=s)
    s = (s + s.T) / 2  # exactly symmetric
    np.fill_diagonal(s, 1.0)
    return s
