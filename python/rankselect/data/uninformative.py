"""The two kinds of uninformative feature, defined once.

A feature (a column of ``X``) can be useless to a ranker in two ways:

1. **all-zero on the training rows** (:func:`zero_features`). LETOR files hold such
   columns (a feature missing from a collection is written as 0); Laporte et al. (2014,
   Section V-B) "do not consider features that are zero for all the queries". These are
   the features that do not count in a *sparsity ratio*: every sparsity ratio of the
   package (:attr:`SparseRankSVM.sparsity_ratio_`, :attr:`FSMRank.sparsity_ratio_`, the
   experiment's ``sparsity_ratio`` and ``n_features``) is ``#selected available features /
   #available features`` with *available* = not all-zero on the training rows.
2. **constant within every query** (:func:`constant_within_queries`). The feature takes
   one value inside each query, so it cannot order any two documents of a query: it has no
   preference pair to explain and every pairwise difference is 0 (this includes kind 1).
   GAS selects such features only after every other one (``GAS.constant_features_``); the
   experiment applies the same test to a model's *scores* to refuse degenerate grid points
   (a score vector tied within every query ranks by file order, which is informative in
   LETOR files).

(FSMRank and SparseRankSVM additionally set aside columns constant over *all* training
rows (:func:`constant_columns`): a correlation with such a column is undefined. That is a
numerical precondition of FSMRank's similarity matrix, not a third kind of uninformative
feature.)
"""
from __future__ import annotations

from typing import Union

import numpy as np

from .grouping import GroupedData, QueryGroups

__all__ = ["zero_features", "constant_within_queries", "constant_columns"]


def zero_features(X) -> np.ndarray:
    """(n_features,) bool: the column is 0 on every (training) row of ``X`` (m, n).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import zero_features
    >>> zero_features(np.array([[0., 1., 0.], [0., 2., 0.]]))
    array([ True, False,  True])
    """
    return ~np.any(np.asarray(X) != 0, axis=0)


def constant_columns(X: np.ndarray) -> np.ndarray:
    """(n_features,) bool: the column of ``X`` (m, n) is constant over all rows (every column
    of an empty ``X``).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import constant_columns
    >>> constant_columns(np.array([[1., 0., 3.], [2., 0., 3.]]))
    array([False,  True,  True])
    """
    return np.all(X == X[:1], axis=0)


def constant_within_queries(X, qid, *, tol: float = 0.0) -> Union[np.ndarray, bool]:
    """(n_features,) bool: the column of ``X`` (m, n) takes one value inside every query.

    ``X`` may also be a score vector (m,), then the result is a scalar bool. ``tol``: values
    within ``tol * max(1, max|X|)`` of each other count as equal (the experiment uses 1e-12
    for scores, to absorb round-off).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import constant_within_queries
    >>> X = np.array([[1., 5.], [1., 6.], [2., 7.], [2., 7.]])
    >>> constant_within_queries(X, qid=[1, 1, 2, 2])
    array([ True, False])
    """
    a = np.asarray(X, dtype=float)
    vector = a.ndim == 1
    a2 = a.reshape(a.shape[0], -1)
    data = qid if isinstance(qid, GroupedData) else None
    g = data.groups if data is not None else QueryGroups.from_qid(qid)
    grouped = a2 if (data is not None and data.X is a2) else g.gather(a2)
    s = g.starts
    spread = np.maximum.reduceat(grouped, s, axis=0) - np.minimum.reduceat(grouped, s, axis=0)
    scale = max(1.0, float(np.max(np.abs(a2)))) if (tol and a2.size) else 1.0
    out = np.asarray((spread <= tol * scale).all(axis=0))
    return bool(out[0]) if vector else out
