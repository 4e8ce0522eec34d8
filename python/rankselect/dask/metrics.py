"""The metrics of :mod:`rankselect.metrics` on scores held in Dask arrays (chunks of whole
queries): per-query values computed on the shards, in chunk order."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _core
from .._validation import shown
from ..metrics.checks import CONVENTIONS, TIES, check_choice, check_k, check_max_grade, mean_over_queries
from .shards import _as_dask, _client, _sh, _Shards

__all__ = ["compute", "evaluate"]


def _scores_shards(y, scores, qid, client):
    client = _client(client)
    scores = _as_dask(scores, "scores")
    y = _as_dask(y, "y")
    qid = _as_dask(qid, "qid")
    if scores.ndim != 1:
        raise ValueError(f"scores must be 1-D, got shape {scores.shape}")
    X = scores[:, None]
    return _Shards(client, X, y, qid)


def _shard_scores_metrics(shard, specs, max_grade):
    shard = _sh(shard)
    if (shard["y"] < 0).any():
        i = int(np.flatnonzero(shard["y"] < 0)[0])
        q = shard["ids"][int(np.searchsorted(shard["offsets"], i, side="right")) - 1]
        raise ValueError(f"y must hold relevance labels >= 0; a row of qid {q} has {shown(shard['y'][i])}")
    return _core.metrics_per_query(specs, shard["y"], np.ascontiguousarray(shard["X"][:, 0]), shard["offsets"],
                                   max_grade)


def _per_query(specs, y, scores, qid, max_grade, client):
    sh = _scores_shards(y, scores, qid, client)
    if max_grade is None:
        # ERR's default: the largest label over all queries.
        max_grade = float(max(sh.map(lambda s: float(s["y"].max()))))
    parts = sh.map(_shard_scores_metrics, specs, max_grade)
    return np.concatenate(parts, axis=1)


def compute(metric: str, y, scores, qid, *, convention: str = "exponential", ties: str = "stable",
            per_query: bool = False, max_grade: Optional[float] = None, client=None):
    """:func:`rankselect.metrics.compute` on Dask arrays (chunks of whole queries).

    Returns the mean over queries (per-query values concatenated in chunk order with
    ``per_query=True``).

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> round(rd.compute("ndcg@10", y, X[:, 7], qid), 4)
    0.347
    >>> client.close()
    >>> cluster.close()
    """
    if not isinstance(metric, str):
        raise ValueError(f"metric must be a metric name such as 'ndcg@10' or 'map', got {metric!r}")
    convention = check_choice(convention, "convention", CONVENTIONS)
    ties = check_choice(ties, "ties", TIES)
    max_grade = check_max_grade(max_grade)
    values = _per_query([(metric, convention, ties)], y, scores, qid, max_grade, client)[0]
    return values if per_query else mean_over_queries(values)


def evaluate(y, scores, qid, *, convention: str = "exponential", ties: str = "stable", ks=range(1, 11),
             max_grade: Optional[float] = None, per_query: bool = False, client=None):
    """:func:`rankselect.metrics.evaluate` (MAP, NDCG@k, P@k, MeanNDCG, ERR) on Dask arrays.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> round(rd.evaluate(y, X[:, 7], qid, ks=[10])["NDCG@10"], 4)
    0.347
    >>> client.close()
    >>> cluster.close()
    """
    convention = check_choice(convention, "convention", CONVENTIONS)
    ties = check_choice(ties, "ties", TIES)
    ks = [check_k(k, "ks", allow_none=False) for k in ks]
    names = ["MAP"] + [f"NDCG@{k}" for k in ks] + [f"P@{k}" for k in ks] + ["MeanNDCG", "ERR"]
    measures = ["ap"] + [f"ndcg@{k}" for k in ks] + [f"p@{k}" for k in ks] + ["meanndcg", "err"]
    values = _per_query([(m, convention, ties) for m in measures], y, scores, qid,
                        check_max_grade(max_grade), client)
    return {name: (v if per_query else mean_over_queries(v)) for name, v in zip(names, values)}
