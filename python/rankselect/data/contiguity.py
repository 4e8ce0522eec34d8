"""Queries whose rows are not contiguous in a file (merged by qid downstream; in a LETOR
file usually the sign of files concatenated by mistake)."""
from __future__ import annotations

import warnings
from typing import Optional

import numpy as np

__all__ = ["split_queries"]


def split_queries(qid) -> tuple[int, Optional[int], Optional[int]]:
    """``(n, qid, row)``: how many queries have rows in more than one contiguous run, and,
    for the first of them in file order, its qid and the 0-based row where it starts again
    (None, None when no query is split).

    Parameters
    ----------
    qid : array-like of shape (n_samples,)

    Examples
    --------
    >>> from rankselect.data import split_queries
    >>> split_queries([1, 1, 2, 2, 1])  # query 1 starts again at row 4
    (1, 1, 4)
    """
    qid = np.asarray(qid)
    if qid.shape[0] < 2:
        return 0, None, None
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])  # first row of every run
    run_qid = qid[starts]
    _, n_runs = np.unique(run_qid, return_counts=True)
    split = n_runs > 1
    if not split.any():
        return 0, None, None
    # a run whose qid occurred in an earlier run starts a query again
    order = np.argsort(run_qid, kind="stable")  # runs grouped by qid, each group in file order
    repeated = np.ones(run_qid.shape[0], dtype=bool)
    repeated[order[np.cumsum(n_runs) - n_runs]] = False  # the first run of every qid
    again = int(np.flatnonzero(repeated)[0])
    return int(split.sum()), int(run_qid[again]), int(starts[again])


def _warn_split_queries(path: str, qid: np.ndarray) -> None:
    n, first, row = split_queries(qid)
    if n:
        assert row is not None
        queries = "query has" if n == 1 else "queries have"
        warnings.warn(
            f"{path}: {n} {queries} rows that are not contiguous in the file (the first: qid {first}, "
            f"which starts again at data row {row + 1}); they are merged by qid (in a LETOR file "
            f"this usually means files were concatenated by mistake)", UserWarning, stacklevel=3)
