"""Query grouping: stable grouping of rows by qid, query offsets, per-query centring.

:class:`GroupedData` is the one form in which ranking data reaches the Rust core: rows
grouped by query (C-contiguous float64), their labels, and query offsets of dtype
:data:`OFFSETS_DTYPE` (``np.uintp``, the core's ``usize``). Every estimator builds it once
per ``fit`` from validated ``(X, y, qid)`` (inside :class:`TrainingData`, which keeps the
input-order arrays beside it) and passes it down; every ``_core`` entry point checks the
offsets it receives once (building the core's validated ``QueryOffsets``), and the kernels
borrow that type instead of re-checking.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._config import check_memory
from .._validation import check_matrix, check_qid, check_vector

__all__ = ["OFFSETS_DTYPE", "QueryGroups", "GroupedData", "TrainingData", "center_by_query"]

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

    Examples
    --------
    >>> import rankselect as rs
    >>> groups = rs.QueryGroups.from_qid([7, 7, 3, 7, 3])
    >>> groups.n_queries
    2
    >>> groups.offsets.tolist()
    [0, 3, 5]
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
        g = _core.group_queries(np.ascontiguousarray(qid))
        return cls(g.perm.astype(np.intp), np.ascontiguousarray(g.offsets, dtype=OFFSETS_DTYPE), g.ids)

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

    Build it once per ``fit`` (:meth:`TrainingData.from_arrays`, or :meth:`from_arrays`)
    from arrays already validated at the public boundary; pass ``X``, ``y`` and ``offsets``
    to ``_core`` together. Helpers take it instead of ``(X, y, qid)``, so they neither
    validate nor group again.

    Attributes
    ----------
    X : ndarray of shape (m, n)
        Feature rows in grouped order, C-contiguous float64.
    y : ndarray of shape (m,)
        Labels in grouped order, float64.
    groups : QueryGroups
        The grouping (``perm``, ``offsets``, ``ids``); :meth:`scatter` maps grouped rows back.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import GroupedData
    >>> g = GroupedData.from_arrays(np.arange(8.).reshape(4, 2), np.array([1., 0., 2., 0.]), np.array([5, 9, 5, 9]))
    >>> g.offsets.tolist(), g.y.tolist()
    ([0, 2, 4], [1.0, 2.0, 0.0, 0.0])
    """

    X: np.ndarray
    y: np.ndarray
    groups: QueryGroups

    @classmethod
    def from_arrays(cls, X, y, qid) -> GroupedData:
        """Group validated ``X`` (m, n), ``y`` (m,) and ``qid`` (m,): one call of the core's
        grouping (a copy of ``X`` unless its rows are already grouped, checked against the
        memory rule)."""
        return cls.from_groups(X, y, QueryGroups.from_qid(qid))

    @classmethod
    def from_groups(cls, X, y, groups: QueryGroups) -> GroupedData:
        """``X`` (m, n) and ``y`` (m,), in input order, grouped by ``groups``."""
        if not groups.is_identity:
            check_memory(X.nbytes, f"X grouped by query ({X.shape[0]} x {X.shape[1]} float64)",
                         "sort the rows by qid, or raise rankselect.set_config(max_memory=...)")
        return cls(np.ascontiguousarray(groups.gather(X), dtype=np.float64),
                   np.ascontiguousarray(groups.gather(y), dtype=np.float64), groups)

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
        return GroupedData(np.ascontiguousarray(self.X[:, keep]), self.y, self.groups)

    def with_features(self, X_grouped: np.ndarray) -> GroupedData:
        """The same rows and labels with other features ``X_grouped`` (m, p), already in
        grouped order (e.g. ``X`` times the feature directions, or a feature map of it)."""
        return GroupedData(np.ascontiguousarray(X_grouped, dtype=np.float64), self.y, self.groups)

    def has_preference_pair(self) -> bool:
        """Whether some query has two different labels (a preference pair)."""
        s = self.groups.starts
        return bool(self.y.size) and bool(np.any(np.maximum.reduceat(self.y, s) > np.minimum.reduceat(self.y, s)))

    def has_informative_feature(self) -> bool:
        """Whether some feature varies within some query (``not constant_within_queries().all()``),
        column by column until one does: one column's pass on real data, not all n."""
        first = np.repeat(self.groups.starts, self.groups.sizes)
        return any(bool((self.X[:, j] != self.X[first, j]).any()) for j in range(self.X.shape[1]))

    def constant_within_queries(self) -> np.ndarray:
        """(n_features,) bool: see :func:`rankselect.data.constant_within_queries`."""
        # every row equal to its query's first row (one pass; 3.5x faster than max == min
        # by reduceat on MQ2008; NaN is never equal, as there)
        first = np.repeat(self.groups.starts, self.groups.sizes)
        return ~(self.X != self.X[first]).any(axis=0)


@dataclass(frozen=True)
class TrainingData:
    """A training set validated once per ``fit``: the arrays in input order and the same
    rows grouped by query once (scikit-learn's validate-once, for ranking data).

    The estimators' ``fit`` builds it (``RankingEstimator._validate_training_data``) and
    passes it down; an estimator fitted inside another one's ``fit`` takes it as is.

    Attributes
    ----------
    X : ndarray of shape (m, n)
        C-contiguous float64, input order.
    y : ndarray of shape (m,)
        float64, input order.
    qid : ndarray of shape (m,)
        int64, input order.
    grouped : GroupedData
        The same rows grouped by query (what the kernels take).

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> sel = rs.GreedyRankRLS(n_features_to_select=2)
    >>> data = sel._validate_training_data(X, y, qid)  # what every fit builds once
    >>> type(data).__name__, data.grouped.offsets.shape
    ('TrainingData', (41,))
    """

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    grouped: GroupedData

    @classmethod
    def from_arrays(cls, X: np.ndarray, y: np.ndarray, qid: np.ndarray) -> TrainingData:
        """Validated ``X`` (m, n), ``y`` (m,), ``qid`` (m,) int64, grouped once."""
        return cls(X, y, qid, GroupedData.from_arrays(X, y, qid))

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def columns(self, keep) -> TrainingData:
        """The same rows restricted to the feature columns ``keep`` (no new grouping)."""
        return TrainingData(np.ascontiguousarray(self.X[:, keep]), self.y, self.qid, self.grouped.columns(keep))


def contiguous_offsets(qid: np.ndarray) -> Optional[np.ndarray]:
    """The offsets :meth:`QueryGroups.from_qid` gives when the rows of every query already
    form one run (as in every LETOR file): its grouping is then the identity, so a caller
    may skip the permutation. ``None`` when some query is split (or ``qid`` is empty).
    ``qid`` must be validated (int64, shape (m,))."""
    if qid.size == 0:
        return None
    starts = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    ids = qid[np.concatenate(([0], starts))]
    if np.unique(ids).size != ids.size:
        return None
    return np.concatenate(([0], starts, [qid.size])).astype(OFFSETS_DTYPE)


def center_by_query(a, qid) -> np.ndarray:
    """Subtract from each row of ``a`` (shape (m,) or (m, n)) the mean of its query.

    Returns a new array in input row order. The centring itself is the core's (the one
    RankRLS uses, ``groups::center_rows``).

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> rs.center_by_query(np.array([[1.], [3.], [10.], [20.]]), qid=[1, 1, 2, 2])
    array([[-1.],
           [ 1.],
           [-5.],
           [ 5.]])
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
    groups = QueryGroups.from_qid(check_qid(qid, arr.shape[0]))
    centred = np.asarray(_core.center_by_query(np.ascontiguousarray(groups.gather(arr.reshape(arr.shape[0], -1))),
                                               groups.offsets))
    return groups.scatter(centred).reshape(arr.shape)
