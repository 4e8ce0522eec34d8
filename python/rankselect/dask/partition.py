"""Data on the cluster: Dask arrays whose row chunks hold whole queries, from in-memory
arrays (:func:`partition_by_query`) or from a set of LETOR files (:func:`read_letor`)."""
from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Optional

import dask.array as da
import numpy as np

from .._validation import check_positive, check_ranking_data
from ..data.grouping import QueryGroups
from ..data.letor import load_letor as _load_letor
from .shards import _check_whole_queries, _client

__all__ = ["partition_by_query", "read_letor"]


def partition_by_query(X, y, qid, *, n_partitions: Optional[int] = None,
                       rows_per_partition: Optional[int] = None):
    """Dask arrays of ``X``, ``y``, ``qid`` whose row chunks hold whole queries.

    Rows are grouped by query (stably, queries in order of first appearance, as the
    in-memory estimators do) and cut at query boundaries into chunks of about equal row
    counts; a query is never split, so a chunk may be larger than the target.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    qid : array-like of shape (m,)
    n_partitions : int, optional
        Number of chunks (at most the number of queries). Default: 1 chunk per
        ``rows_per_partition`` rows if that is given, else 4.
    rows_per_partition : int, optional
        Target rows per chunk (instead of ``n_partitions``).

    Returns
    -------
    X, y, qid : dask.array.Array
        Shapes (m, n), (m,), (m,), rows in grouped order, chunked along rows only.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> X.chunks[0], X.shape
    ((302, 281), (583, 22))
    >>> client.close()
    >>> cluster.close()
    """
    X, y, qid = check_ranking_data(X, y, qid)
    groups = QueryGroups.from_qid(qid)
    m = X.shape[0]
    if n_partitions is not None and rows_per_partition is not None:
        raise ValueError("give n_partitions or rows_per_partition, not both")
    if rows_per_partition is not None:
        check_positive(rows_per_partition, "rows_per_partition", integer=True)
        n_partitions = max(1, math.ceil(m / int(rows_per_partition)))
    elif n_partitions is None:
        n_partitions = 4
    else:
        check_positive(n_partitions, "n_partitions", integer=True)
    n_partitions = min(int(n_partitions), groups.n_queries)
    # Cut after the query whose end first reaches each multiple of m / n_partitions.
    ends = groups.offsets[1:]
    cuts = [0]
    for p in range(1, n_partitions):
        target = p * m / n_partitions
        j = int(np.searchsorted(ends, target, side="left"))
        e = int(ends[min(j, len(ends) - 1)])
        if e > cuts[-1] and e < m:
            cuts.append(e)
    cuts.append(m)
    chunks = (tuple(np.diff(cuts).tolist()),)
    Xg, yg, qg = groups.gather(X), groups.gather(y), groups.gather(qid)
    return (da.from_array(np.ascontiguousarray(Xg), chunks=(chunks[0], X.shape[1])),
            da.from_array(np.ascontiguousarray(yg), chunks=chunks),
            da.from_array(np.ascontiguousarray(qg), chunks=chunks))


def _load_part(path, n_features, dtype, allow_nonfinite):
    d = _load_letor(path, n_features=n_features, dtype=dtype, allow_nonfinite=allow_nonfinite)
    return d.X, d.y, d.qid


def _pad_columns(X, n):
    if X.shape[1] == n:
        return X
    out = np.zeros((X.shape[0], n), dtype=X.dtype)
    out[:, : X.shape[1]] = X
    return out


def read_letor(paths: Sequence, *, n_features: Optional[int] = None, dtype=np.float64,
               allow_nonfinite: bool = False, client=None):
    """Read a set of LETOR files into Dask arrays, one chunk per file.

    Each file is parsed on a worker (it must be readable there) and must hold whole
    queries: a query whose rows are in two files is a ValueError naming the qid.

    Parameters
    ----------
    paths : sequence of str or path-like
        The files (plain or gzip), e.g. ``["S1.txt", "S2.txt", "S3.txt"]``.
    n_features : int, optional
        Number of columns; default the largest feature index over all files (files with
        fewer columns are padded with zeros, as :func:`rankselect.load_letor_folds`).
    dtype, allow_nonfinite
        As :func:`rankselect.load_letor`.
    client : distributed.Client, optional
        Default: the current client.

    Returns
    -------
    X, y, qid : dask.array.Array
        Shapes (m, n), (m,), (m,), chunked by file, data held on the workers.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> paths = [str(rs.data.datasets.example_path(s)) for s in ("train", "vali")]  # one chunk per file
    >>> X, y, qid = rd.read_letor(paths)
    >>> X.chunks[0], X.shape[1]
    ((583, 234), 22)
    >>> client.close()
    >>> cluster.close()
    """
    client = _client(client)
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence) or len(paths) == 0:
        raise ValueError("paths must be a non-empty list of LETOR files")
    paths = [os.fspath(p) for p in paths]
    parts = [client.submit(_load_part, p, n_features, dtype, allow_nonfinite, pure=False) for p in paths]
    shapes = client.gather([client.submit(lambda t: (t[0].shape, np.unique(t[2])), f, pure=False)
                            for f in parts])
    _check_whole_queries([ids for _, ids in shapes], [f"file {p}" for p in paths])
    n = max(s[1] for s, _ in shapes) if n_features is None else int(n_features)
    Xs, ys, qs = [], [], []
    for f, ((rows, _cols), _) in zip(parts, shapes):
        xf = client.submit(lambda t, n=n: _pad_columns(t[0], n), f, pure=False)
        yf = client.submit(lambda t: t[1], f, pure=False)
        qf = client.submit(lambda t: t[2], f, pure=False)
        Xs.append(da.from_delayed(xf, shape=(rows, n), dtype=np.dtype(dtype)))
        ys.append(da.from_delayed(yf, shape=(rows,), dtype=np.float64))
        qs.append(da.from_delayed(qf, shape=(rows,), dtype=np.int64))
    return da.concatenate(Xs, axis=0), da.concatenate(ys), da.concatenate(qs)
