"""Query grouping: stable grouping of rows by qid, query offsets, per-query centring."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import _core
from ._validation import check_matrix, check_qid, check_vector


@dataclass(frozen=True)
class QueryGroups:
    """Rows grouped by query id, stably.

    Attributes
    ----------
    perm : ndarray of shape (m,)
        Input row of each grouped row; rows of query ``q`` are
        ``perm[offsets[q]:offsets[q + 1]]``, in input order.
    offsets : ndarray of shape (n_queries + 1,)
    ids : ndarray of shape (n_queries,)
        qid of each query, in order of first appearance.
    """

    perm: np.ndarray
    offsets: np.ndarray
    ids: np.ndarray

    @classmethod
    def from_qid(cls, qid) -> "QueryGroups":
        qid = check_qid(qid)
        perm, offsets, ids = _core.group_queries(qid)
        return cls(perm.astype(np.intp), offsets.astype(np.intp), ids)

    @property
    def n_queries(self) -> int:
        return len(self.ids)

    @property
    def sizes(self) -> np.ndarray:
        """Number of rows of each query, shape (n_queries,)."""
        return np.diff(self.offsets)

    @property
    def is_identity(self) -> bool:
        return bool(np.array_equal(self.perm, np.arange(len(self.perm))))

    def gather(self, a: np.ndarray) -> np.ndarray:
        """Rows of ``a`` (axis 0) in grouped order."""
        return a if self.is_identity else a[self.perm]

    def scatter(self, grouped: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`gather`: grouped rows back in input order."""
        if self.is_identity:
            return grouped
        out = np.empty_like(grouped)
        out[self.perm] = grouped
        return out


def center_by_query(a, qid) -> np.ndarray:
    """Subtract from each row of ``a`` (shape (m,) or (m, n)) the mean of its query.

    Returns a new array in input row order.
    """
    if sp.issparse(a):
        raise TypeError(
            f"center_by_query needs a dense array, got a sparse {type(a).__name__}: centring makes every"
            " entry nonzero; pass a.toarray()"
        )
    arr = np.asarray(a)
    if arr.ndim == 2:
        arr = check_matrix(arr, "a")
    else:
        arr = check_vector(arr, "a")
    qid = check_qid(qid, arr.shape[0])
    g = QueryGroups.from_qid(qid)
    grouped = g.gather(arr)
    sizes = g.sizes
    means = np.add.reduceat(grouped, g.offsets[:-1], axis=0) / (
        sizes if grouped.ndim == 1 else sizes[:, None])
    return g.scatter(grouped - np.repeat(means, sizes, axis=0))
