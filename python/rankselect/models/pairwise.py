"""Preference pairs and the pairwise squared hinge loss (computed in the Rust core).

The preference set of a ranking data set is ``P = {(i, j) : qid_i = qid_j, y_i > y_j}``.
The pairwise squared hinge loss of a linear ranker ``w`` is (Chen et al. 2017, eq. 4-5)::

    L(w) = sum_{(i, j) in P} max(0, 1 - w·(x_i - x_j))^2 = (1 - A X w)^T D (1 - A X w)

where ``A`` is the (p, m) pair matrix (:func:`preference_pair_matrix`) and ``D`` the
diagonal indicator of the active pairs (``1 - w·(x_i - x_j) > 0``). Its gradient is
``-2 X^T A^T D (1 - A X w)`` and its generalized Hessian ``2 X^T A^T D A X`` (eq. 24).
:func:`squared_hinge` and :func:`squared_hinge_hessp` compute them WITHOUT materialising
the pairs (per query: sort by score, accumulate per relevance level; O(m log m) instead of
O(p)).
"""
from __future__ import annotations

import numbers
from typing import Optional

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._config import check_memory, memory_limit
from .._validation import check_matrix, check_qid, check_vector, shown
from ..data.grouping import GroupedData, QueryGroups

__all__ = [
    "count_pairs",
    "preference_pairs",
    "preference_pair_matrix",
    "squared_hinge",
    "squared_hinge_hessp",
]


def _grouped_labels(y, qid) -> tuple[QueryGroups, np.ndarray]:
    """The grouping of ``qid`` and the labels ``y`` in grouped order (validated)."""
    y = check_vector(y, "y")
    groups = QueryGroups.from_qid(check_qid(qid, y.shape[0]))
    return groups, np.ascontiguousarray(groups.gather(y))


#: Default ``max_pairs`` of :func:`preference_pairs` / :func:`preference_pair_matrix`: one
#: hundred million pairs (about 4.8 GB as index arrays, 12 GB as a pair matrix) is more than a
#: LETOR data set needs; pass ``max_pairs=None`` to rely on the memory rule alone.
DEFAULT_MAX_PAIRS = 100_000_000

# Peak bytes per listed pair: the Rust index arrays (2 x 8), the mapped input rows (2 x 8) and
# their intp copies (2 x 8); the pair matrix adds indices, data (2 x 2 x 8), lo/hi (2 x 8) and
# the row pointer (8).
_PAIR_BYTES = 48
_PAIR_MATRIX_BYTES = _PAIR_BYTES + 56


def _check_max_pairs(max_pairs):
    if max_pairs is None:
        return None
    if isinstance(max_pairs, bool) or not isinstance(max_pairs, numbers.Integral):
        raise TypeError(f"max_pairs must be a non-negative integer or None, got {shown(max_pairs)}")
    if max_pairs < 0:
        raise ValueError(f"max_pairs must be >= 0, got {max_pairs!r}")
    return int(max_pairs)


def count_pairs(y, qid) -> int:
    """Number of preference pairs ``|P|`` of labels ``y`` (m,) grouped by ``qid`` (m,).

    Examples
    --------
    >>> from rankselect.models.pairwise import count_pairs
    >>> count_pairs(y=[2, 0, 1, 1], qid=[1, 1, 1, 2])
    3
    """
    g, yg = _grouped_labels(y, qid)
    return int(_core.query_pair_counts(yg, g.offsets).sum())


def preference_pairs(y, qid, max_pairs: Optional[int] = DEFAULT_MAX_PAIRS) -> tuple[np.ndarray, np.ndarray]:
    """All preference pairs: rows ``i[k]``, ``j[k]`` of the same query with ``y[i] > y[j]``.

    Parameters
    ----------
    y : array-like of shape (m,)
        Relevance labels.
    qid : array-like of shape (m,)
        Query id of every row (need not be sorted or contiguous).
    max_pairs : int or None, default=100_000_000
        Raise ``ValueError`` (naming the qid with the most pairs) before allocating when
        the total number of pairs exceeds this; None: no count limit. In every case the
        memory rule applies: a ``MemoryError`` naming the sizes when the pair lists would
        not fit (see :func:`rankselect.set_config`).

    Returns
    -------
    i, j : ndarray of shape (p,), dtype intp
        Input row indices. Order: queries in order of first appearance, then ``i`` in input
        order, then ``j`` in input order.

    Examples
    --------
    >>> import rankselect as rs
    >>> rs.preference_pairs(y=[2, 0, 1, 1], qid=[1, 1, 1, 2])
    (array([0, 0, 2]), array([1, 2, 1]))
    """
    return _pairs(y, qid, max_pairs, _PAIR_BYTES, "preference_pairs")


def _pairs(y, qid, max_pairs, bytes_per_pair, what):
    max_pairs = _check_max_pairs(max_pairs)
    g, yg = _grouped_labels(y, qid)
    counts = _core.query_pair_counts(yg, g.offsets)
    total = int(counts.sum(dtype=object))
    q = int(np.argmax(counts)) if counts.size else 0
    if max_pairs is not None and total > max_pairs:
        raise ValueError(
            f"{total} preference pairs exceed max_pairs={max_pairs}; "
            f"qid {g.ids[q]} has the most ({int(counts[q])} pairs)"
        )
    check_memory(
        total * bytes_per_pair,
        f"{what}: {total} preference pairs (qid {g.ids[q] if counts.size else '-'} has the most, "
        f"{int(counts[q]) if counts.size else 0})",
        "pass a smaller max_pairs, split long queries, or use the implicit loss "
        "(rankselect.models.pairwise.squared_hinge), which never lists the pairs",
    )
    pairs = _core.preference_pairs(yg, g.offsets, max_memory=memory_limit())
    perm = g.perm
    return perm[pairs.i.astype(np.intp)], perm[pairs.j.astype(np.intp)]


def preference_pair_matrix(y, qid, max_pairs: Optional[int] = DEFAULT_MAX_PAIRS) -> sp.csr_matrix:
    """The pair matrix ``A`` of shape (p, m), CSR: row k has +1 at ``i[k]``, -1 at ``j[k]``.

    ``A @ X`` are the pairwise difference vectors ``x_i - x_j`` (rows in the order of
    :func:`preference_pairs`). ``max_pairs`` and the memory rule as in
    :func:`preference_pairs`.

    Examples
    --------
    >>> import rankselect as rs
    >>> rs.preference_pair_matrix(y=[2, 0, 1], qid=[1, 1, 1]).toarray()
    array([[ 1., -1.,  0.],
           [ 1.,  0., -1.],
           [ 0., -1.,  1.]])
    """
    i, j = _pairs(y, qid, max_pairs, _PAIR_MATRIX_BYTES, "preference_pair_matrix")
    m = np.asarray(y).shape[0]
    p = i.shape[0]
    lo = np.minimum(i, j)
    hi = np.maximum(i, j)
    indices = np.empty(2 * p, dtype=np.intp)
    indices[0::2] = lo
    indices[1::2] = hi
    data = np.empty(2 * p, dtype=np.float64)
    data[0::2] = np.where(i < j, 1.0, -1.0)
    data[1::2] = -data[0::2]
    indptr = np.arange(0, 2 * p + 1, 2, dtype=np.intp)
    return sp.csr_matrix((data, indices, indptr), shape=(p, m))


def _grouped_problem(X, y, qid, w):
    X = check_matrix(X, "X")
    m, n = X.shape
    y = check_vector(y, "y", n=m)
    qid = check_qid(qid, m)
    w = np.asarray(w)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"w must have shape ({n},) (one weight per column of X), got {w.shape}")
    w = check_vector(w, "w")
    return GroupedData.from_arrays(X, y, qid), w


def squared_hinge(X, y, qid, w) -> tuple[float, np.ndarray]:
    """Pairwise squared hinge loss and its gradient, without materialising the pairs.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    qid : array-like of shape (m,)
    w : array-like of shape (n,)

    Returns
    -------
    value : float
        ``L(w) = sum_{(i,j) in P} max(0, 1 - w·(x_i - x_j))^2``.
    grad : ndarray of shape (n,)
        ``dL/dw``.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.models.pairwise import squared_hinge
    >>> X = np.array([[1., 0.], [0., 1.], [0., 0.]])
    >>> loss, grad = squared_hinge(X, y=[2, 1, 0], qid=[1, 1, 1], w=np.zeros(2))
    >>> loss, grad
    (3.0, array([-4.,  0.]))
    """
    data, w = _grouped_problem(X, y, qid, w)
    value, grad = _core.squared_hinge_value_grad(data.X, data.y, data.offsets, w)
    return float(value), grad


def squared_hinge_hessp(X, y, qid, w, v) -> np.ndarray:
    """Generalized Hessian of the loss at ``w`` times ``v``: ``2 X^T A^T D A X v``.

    ``D`` marks the pairs active at ``w`` (``1 - w·(x_i - x_j) > 0``).

    Parameters
    ----------
    X, y, qid, w : as in :func:`squared_hinge`
    v : array-like of shape (n,) or (n, k)

    Returns
    -------
    ndarray of the shape of ``v``

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.models.pairwise import squared_hinge_hessp
    >>> X = np.array([[1., 0.], [0., 1.], [0., 0.]])
    >>> squared_hinge_hessp(X, y=[2, 1, 0], qid=[1, 1, 1], w=np.zeros(2), v=np.array([1., 0.]))
    array([ 4., -2.])
    """
    data, w = _grouped_problem(X, y, qid, w)
    v = np.asarray(v)
    n = data.X.shape[1]
    if v.ndim not in (1, 2) or v.shape[0] != n:
        raise ValueError(f"v must have shape ({n},) or ({n}, k), got {v.shape}")
    V = check_matrix(v.reshape(n, -1), "v")
    out = _core.squared_hinge_hessp(data.X, data.y, data.offsets, w, V)
    return out.reshape(v.shape)
