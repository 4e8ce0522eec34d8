"""Query grouping: stable grouping of rows by qid, query offsets, per-query centring.

:class:`GroupedData` is the one form in which ranking data reaches the Rust core: rows
grouped by query (C-contiguous float64), their labels, and query offsets of dtype
:data:`OFFSETS_DTYPE` (``np.uintp``, the core's ``usize``). Every estimator builds it once
per ``fit`` from validated ``(X, y, qid)``; every ``_core`` entry point checks the offsets
it receives once (building the core's validated ``QueryOffsets``), and the kernels borrow
that type instead of re-checking.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._validation import check_matrix, check_qid, check_vector

__all__ = ["OFFSETS_DTYPE", "QueryGroups", "GroupedData", "center_by_query"]

#: dtype of query offsets everywhere in the package and across the ``_core`` boundary
OFFSETS_DTYPE = np.uintp


@dataclass(frozen=True)
class QueryGroups:
    """Rows grouped by query id, stably.

    Attributes
    ----------
    perm : ndarray of shape (m,)
        Input row of each grouped row; rows of query ``q`` are
        ``perm[offsets[q]:offsets[q + 1]]``, in input order.
    offsets : ndarray of shape (n_queries + 1,), dtype ``np.uintp``
    ids : ndarray of shape (n_queries,)
        qid of each query, in order of first appearance.
    """

    perm: np.ndarray
    offsets: np.ndarray
    ids: np.ndarray

    @classmethod
    def from_qid(cls, qid) -> QueryGroups:
        """Group the rows of ``qid`` (validated here unless already int64)."""
        qid = np.asarray(qid)
        if qid.dtype != np.int64 or qid.ndim != 1:
            qid = check_qid(qid)
        perm, offsets, ids = _core.group_queries(np.ascontiguousarray(qid))
        return cls(perm.astype(np.intp), np.ascontiguousarray(offsets, dtype=OFFSETS_DTYPE), ids)

    @property
    def n_queries(self) -> int:
        return len(self.ids)

    @property
    def sizes(self) -> np.ndarray:
        """Number of rows of each query, shape (n_queries,)."""
        return np.diff(self.offsets).astype(np.intp)

    @property
    def starts(self) -> np.ndarray:
        """First grouped row of each query, shape (n_queries,) (``np.intp``, for NumPy's
        ``reduceat``)."""
        return self.offsets[:-1].astype(np.intp)

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


@dataclass(frozen=True)
class GroupedData:
    """A ranking data set with its rows grouped by query: what the Rust kernels take.

    Build it with :meth:`from_arrays` once per ``fit``, from arrays already validated at the
    public boundary; pass ``X``, ``y`` and ``offsets`` to ``_core`` together.

    Attributes
    ----------
    X : ndarray of shape (m, n) or None
        Feature rows in grouped order, C-contiguous float64.
    y : ndarray of shape (m,) or None
        Labels in grouped order, float64.
    groups : QueryGroups
        The grouping (``perm``, ``offsets``, ``ids``); :meth:`scatter` maps grouped rows back.
    """

    X: Optional[np.ndarray]
    y: Optional[np.ndarray]
    groups: QueryGroups

    @classmethod
    def from_arrays(cls, X, y, qid) -> GroupedData:
        """Group validated ``X`` (m, n) or None, ``y`` (m,) or None and ``qid`` (m,)."""
        g = QueryGroups.from_qid(qid)
        Xg = None if X is None else np.ascontiguousarray(g.gather(X), dtype=np.float64)
        yg = None if y is None else np.ascontiguousarray(g.gather(y), dtype=np.float64)
        return cls(Xg, yg, g)

    @property
    def offsets(self) -> np.ndarray:
        """Query boundaries, shape (n_queries + 1,), dtype ``np.uintp``."""
        return self.groups.offsets

    @property
    def n_queries(self) -> int:
        return self.groups.n_queries

    def gather(self, a: np.ndarray) -> np.ndarray:
        """Rows of another input-order array ``a`` in grouped order, C-contiguous."""
        return np.ascontiguousarray(self.groups.gather(a))

    def scatter(self, grouped: np.ndarray) -> np.ndarray:
        """Grouped rows back in input order."""
        return self.groups.scatter(grouped)

    def columns(self, keep) -> GroupedData:
        """The same rows restricted to the feature columns ``keep``."""
        assert self.X is not None, "grouped without X"
        return GroupedData(np.ascontiguousarray(self.X[:, keep]), self.y, self.groups)

    def has_preference_pair(self) -> bool:
        """Whether some query has two different labels (a preference pair)."""
        assert self.y is not None, "grouped without y"
        s = self.groups.starts
        return bool(self.y.size) and bool(np.any(np.maximum.reduceat(self.y, s) > np.minimum.reduceat(self.y, s)))

    def constant_within_queries(self) -> np.ndarray:
        """(n_features,) bool: see :func:`rankselect.data.constant_within_queries`."""
        assert self.X is not None, "grouped without X"
        s = self.groups.starts
        return (np.maximum.reduceat(self.X, s, axis=0) == np.minimum.reduceat(self.X, s, axis=0)).all(axis=0)


def center_by_query(a, qid) -> np.ndarray:
    """Subtract from each row of ``a`` (shape (m,) or (m, n)) the mean of its query.

    Returns a new array in input row order. The centring itself is the core's (the one
    RankRLS uses, ``groups::center_rows``).
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
    data = GroupedData.from_arrays(arr.reshape(arr.shape[0], -1), None, qid)
    assert data.X is not None
    centred = np.asarray(_core.center_by_query(data.X, data.offsets))
    return data.scatter(centred).reshape(arr.shape)
