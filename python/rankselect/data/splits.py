"""Cross-validation by query: :func:`query_splits`, the one rule for every ``cv=`` argument.

A query's rows are never split between training and test: scoring a ranker on queries whose
other rows it was trained on measures memorisation, not ranking. The rule:

- an int ``k`` is :class:`sklearn.model_selection.GroupKFold` ``(k)`` on the query ids;
- scikit-learn's group splitters (``GroupKFold``, ``GroupShuffleSplit``, ``LeaveOneGroupOut``,
  ``LeavePGroupsOut``, ``StratifiedGroupKFold``) and any other object with ``split`` are called
  with ``groups=qid``, and their splits are checked;
- scikit-learn's row splitters (``KFold``, ``ShuffleSplit``, ``StratifiedKFold``,
  ``RepeatedKFold``, ...) are refused: they ignore the groups;
- an iterable of ``(train, test)`` row-index pairs is taken as is and checked.

A split that puts a query on both sides is a :class:`ValueError` that names the query id. Query
ids are integers (:func:`rankselect._validation.check_qid`: a NaN or 2-D ``qid`` is refused, not
flattened or split).
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn import model_selection as ms

from .._validation import check_qid

__all__ = ["query_splits", "query_masks", "GROUP_SPLITTERS"]

#: scikit-learn's splitters that keep each group on one side (given ``groups=``)
GROUP_SPLITTERS: tuple[type, ...] = tuple(
    getattr(ms, name) for name in ("GroupKFold", "GroupShuffleSplit", "LeaveOneGroupOut", "LeavePGroupsOut",
                                   "StratifiedGroupKFold") if hasattr(ms, name))


def _row_splitter(cv: Any) -> bool:
    """Whether ``cv`` is one of scikit-learn's splitters that ignore ``groups``."""
    return type(cv).__module__.startswith("sklearn.model_selection") and not isinstance(cv, GROUP_SPLITTERS) \
        and type(cv).__name__ != "PredefinedSplit"


def query_splits(cv: Any, qid, X=None, y=None, *, name: str = "cv") -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` row indices of ``cv`` on rows with query ids ``qid`` (m,), with
    no query on both sides of any split (module docstring).

    Parameters
    ----------
    cv : int, splitter or iterable of (train, test) index pairs
        The folds (see the module docstring for what each kind means).
    qid : array-like of shape (m,)
        Query id of every row.
    X, y : array-like, optional
        Passed to ``cv.split`` (a stratified splitter needs ``y``); default: row placeholders.
    name : str, default="cv"
        The argument's name in messages.

    Returns
    -------
    list of (ndarray of int, ndarray of int)
        Row indices of the training and the test part of every split.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import KFold
    >>> from rankselect.data.splits import query_splits
    >>> qid = np.repeat([1, 2, 3], 2)
    >>> sorted(test.tolist() for _, test in query_splits(3, qid))  # one query per fold
    [[0, 1], [2, 3], [4, 5]]
    >>> query_splits(KFold(3), qid)
    Traceback (most recent call last):
    ...
    ValueError: cv=KFold(...) splits rows, not queries: ...
    """
    qid = check_qid(qid)
    m = qid.shape[0]
    n_queries = np.unique(qid).size
    if isinstance(cv, (bool, str, bytes)):  # a str has a split method, but is no splitter
        raise TypeError(f"{name} must be an int, a splitter or an iterable of (train, test) pairs, got {cv!r}")
    if isinstance(cv, numbers.Integral):
        if int(cv) < 2:
            raise ValueError(f"{name}={int(cv)}: query folds need at least 2 folds")
        if n_queries < int(cv):
            raise ValueError(f"{name}={int(cv)} query folds need at least {int(cv)} queries, the data have "
                             f"{n_queries} (n_samples={m})")
        cv = ms.GroupKFold(n_splits=int(cv))
    if hasattr(cv, "split"):
        if _row_splitter(cv):
            raise ValueError(f"{name}={type(cv).__name__}(...) splits rows, not queries: rows of one query would "
                             "be on both sides of a split (scoring on training queries); use a group splitter "
                             "such as GroupKFold or GroupShuffleSplit, which rankselect gives groups=qid")
        placeholder = np.zeros((m, 1)) if X is None else X
        pairs = list(cv.split(placeholder, y, groups=qid))
    elif not hasattr(cv, "__iter__"):
        raise TypeError(f"{name} must be an int, a splitter or an iterable of (train, test) pairs, "
                        f"got {type(cv).__name__}")
    else:
        pairs = list(cv)
    out = []
    for i, pair in enumerate(pairs):
        try:
            train, test = pair
        except (TypeError, ValueError):
            raise TypeError(f"{name}: split {i} is not a (train, test) pair of row indices") from None
        train, test = (_indices(part, m, f"{name}: split {i} {side}") for part, side in
                       ((train, "train"), (test, "test")))
        if test.size == 0 or train.size == 0:
            raise ValueError(f"{name}: split {i} has an empty {'test' if test.size == 0 else 'train'} part")
        shared = np.intersect1d(qid[train], qid[test])
        if shared.size:
            raise ValueError(f"{name}: split {i} puts query qid={_plain(shared[0])} on both sides "
                             f"({shared.size} queries shared); split by query, e.g. GroupKFold or "
                             "GroupShuffleSplit")
        out.append((train, test))
    if not out:
        raise ValueError(f"{name} gave no split")
    return out


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _indices(part: Any, m: int, what: str) -> np.ndarray:
    arr = np.asarray(part)
    if arr.dtype == bool:
        if arr.shape != (m,):
            raise ValueError(f"{what} is a boolean mask of shape {arr.shape}, expected ({m},)")
        return np.flatnonzero(arr)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"{what} must be a 1-D array of row indices")
    arr = arr.astype(np.intp)
    if arr.size and (arr.min() < 0 or arr.max() >= m):
        raise ValueError(f"{what} holds a row index outside 0 .. {m - 1}")
    return arr


def query_masks(pairs, qid, query_ids) -> list[tuple[np.ndarray, np.ndarray]]:
    """Boolean masks over ``query_ids`` (n_queries,) of the queries on each side of ``pairs``
    (row-index pairs of rows with query ids ``qid``).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data.splits import query_masks
    >>> query_masks([(np.array([0, 1]), np.array([2]))], np.array([5, 5, 7]), np.array([5, 7]))
    [(array([ True, False]), array([False,  True]))]
    """
    qid = np.asarray(qid)
    return [(np.isin(query_ids, qid[tr]), np.isin(query_ids, qid[te])) for tr, te in pairs]


