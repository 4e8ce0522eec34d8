"""rankselect on a Dask cluster: the same methods on data sharded by query.

Every rankselect kernel is a sum of per-query terms, so data split into row blocks that
each hold **whole queries** (the chunks of Dask arrays ``X`` (m, n), ``y`` (m,), ``qid``
(m,), chunked along rows only) gives the in-memory results with no approximation: each
worker computes its shard's sums, the client adds them **in shard order** (so results do
not depend on scheduling) and finishes the computation.

- data: :func:`partition_by_query` (in-memory arrays -> Dask arrays of whole-query
  chunks), :func:`read_letor` (a set of LETOR files, one chunk per file). A query split
  across chunks is a ValueError naming the qid.
- selection and models: :class:`GreedyRankRLS` (exact: the greedy caches stay resident on
  the workers, one Dask actor per shard; a step moves O(n) numbers per shard, never rows),
  :class:`RankRLS` (sums of per-shard Gram matrices), :class:`RankSVM` and
  :class:`SparseRankSVM` (l1) (the solvers' loss, gradient and Hessian products as sums over
  shards), :class:`GAS` with :func:`kendall_similarity` and :func:`feature_importance`.
- evaluation: :func:`compute` and :func:`evaluate`, the metrics of
  :mod:`rankselect.metrics` on scores held in Dask arrays.

Estimators take the parameters of their in-memory counterparts plus ``client=`` (default:
the current client, :func:`distributed.default_client`), fit on Dask arrays and end with
the same fitted attributes (NumPy arrays). Needs ``pip install 'rankselect[dask]'``.
"""
from __future__ import annotations

import math
import numbers
import os
import sys
import uuid
from typing import List, Optional, Sequence

import numpy as np

try:
    import dask
    import dask.array as da
    from distributed import default_client
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "rankselect.dask needs dask and distributed; install them with "
        "pip install 'rankselect[dask]' (or pip install 'dask[distributed]')"
    ) from exc

from . import _core
from . import gas as _gas
from . import metrics as _metrics
from ._config import get_config, memory_limit
from ._linear import LinearPredictMixin
from ._validation import check_alphas, check_positive, check_ranking_data
from .data import load_letor as _load_letor
from .groups import GroupedData, QueryGroups
from .importance import FeatureImportance, _parse_measure, _pick
from .kendall import VARIANTS, _check_variant
from .rankrls import GreedyRankRLS as _GreedyRankRLS
from .rankrls import RankRLS as _RankRLS
from .ranksvm import RankSVM as _RankSVM
from .sparse import SparseRankSVM as _SparseRankSVM

__all__ = [
    "partition_by_query",
    "read_letor",
    "GreedyRankRLS",
    "RankRLS",
    "RankSVM",
    "SparseRankSVM",
    "GAS",
    "kendall_similarity",
    "feature_importance",
    "compute",
    "evaluate",
]


# --------------------------------------------------------------------------------------
# Data: Dask arrays whose chunks hold whole queries
# --------------------------------------------------------------------------------------

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
    for f, ((rows, cols), _) in zip(parts, shapes):
        xf = client.submit(lambda t, n=n: _pad_columns(t[0], n), f, pure=False)
        yf = client.submit(lambda t: t[1], f, pure=False)
        qf = client.submit(lambda t: t[2], f, pure=False)
        Xs.append(da.from_delayed(xf, shape=(rows, n), dtype=np.dtype(dtype)))
        ys.append(da.from_delayed(yf, shape=(rows,), dtype=np.float64))
        qs.append(da.from_delayed(qf, shape=(rows,), dtype=np.int64))
    return da.concatenate(Xs, axis=0), da.concatenate(ys), da.concatenate(qs)


def _check_whole_queries(ids_per_shard: List[np.ndarray], names: List[str]) -> None:
    """ValueError naming the first qid found in two shards."""
    seen = {}
    for s, ids in enumerate(ids_per_shard):
        for q in np.asarray(ids).tolist():
            if q in seen:
                raise ValueError(
                    f"qid {q} is split across {names[seen[q]]} and {names[s]}: every chunk must hold whole "
                    "queries (rankselect.dask.partition_by_query builds such chunks)")
            seen[q] = s


def _client(client):
    if client is not None:
        return client
    try:
        return default_client()
    except ValueError:
        raise ValueError("no Dask client: pass client= or start one (distributed.Client(...)) first") from None


# --------------------------------------------------------------------------------------
# Shards: one grouped block of whole queries per chunk, held on the workers
# --------------------------------------------------------------------------------------

def _as_dask(a, name):
    if isinstance(a, da.Array):
        return a
    to_arr = getattr(a, "to_dask_array", None)  # dask DataFrame / Series
    if to_arr is not None:
        return to_arr(lengths=True)
    raise TypeError(f"{name} must be a dask array (or dask DataFrame/Series), got {type(a).__name__}; "
                    "rankselect.dask.partition_by_query converts in-memory data")


def _own(a):
    """``a`` as an aligned, C-contiguous array (arrays unpickled from a buffer may be
    misaligned, which the Rust kernels refuse)."""
    a = np.asarray(a)
    return a if a.flags.aligned and a.flags.c_contiguous else np.array(a, order="C", copy=True)


def _sh(shard):
    """A shard dict with aligned arrays (it may have travelled between workers)."""
    return {k: _own(v) for k, v in shard.items()}


def _prepare(X, y, qid):
    """A shard: rows grouped by query (:class:`~rankselect.groups.GroupedData`'s ``X``, ``y``,
    ``offsets`` of dtype ``np.uintp``, and the query ids), as a dict of arrays that travels."""
    X, y, qid = check_ranking_data(_own(X), _own(y), _own(qid))
    data = GroupedData.from_arrays(X, y, qid)
    return {"X": data.X, "y": data.y, "offsets": data.offsets, "ids": data.groups.ids}


def _grouped(shard) -> GroupedData:
    """A shard (rows already grouped) as the package's :class:`~rankselect.groups.GroupedData`."""
    shard = _sh(shard)
    m = shard["X"].shape[0]
    return GroupedData(shard["X"], shard["y"], QueryGroups(np.arange(m), shard["offsets"], shard["ids"]))


def _info(shard):
    shard = _sh(shard)
    return shard["X"].shape[0], shard["X"].shape[1], shard["ids"]


class _Shards:
    """The shards of ``(X, y, qid)`` on the cluster, in chunk order."""

    def __init__(self, client, X, y=None, qid=None):
        self.client = client
        X = _as_dask(X, "X")
        qid = _as_dask(qid, "qid") if qid is not None else None
        if qid is None:
            raise ValueError("qid is required: the query id of every row, a dask array chunked like X")
        y = _as_dask(y, "y") if y is not None else da.zeros(qid.shape, chunks=qid.chunks, dtype=np.float64)
        if X.ndim != 2 or y.ndim != 1 or qid.ndim != 1:
            raise ValueError(f"X must be 2-D and y, qid 1-D, got shapes {X.shape}, {y.shape}, {qid.shape}")
        if any(math.isnan(c) for c in X.chunks[0] + y.chunks[0] + qid.chunks[0]):
            raise ValueError("chunk sizes of X, y, qid must be known (call .compute_chunk_sizes())")
        if not (X.chunks[0] == y.chunks[0] == qid.chunks[0]):
            raise ValueError(f"X, y and qid must have the same row chunks, got {X.chunks[0]}, {y.chunks[0]}, "
                             f"{qid.chunks[0]}")
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        keep = [i for i, c in enumerate(X.chunks[0]) if c > 0]
        if not keep:
            raise ValueError("X has no rows")
        xs, ys, qs = X.to_delayed().ravel(), y.to_delayed().ravel(), qid.to_delayed().ravel()
        tasks = [dask.delayed(_prepare)(xs[i], ys[i], qs[i]) for i in keep]
        self.futures = client.compute(tasks)
        infos = client.gather(client.map(_info, self.futures, pure=False))
        self.rows = [r for r, _, _ in infos]
        self.n_features = infos[0][1]
        _check_whole_queries([ids for _, _, ids in infos], [f"chunk {i}" for i in keep])
        self.n_queries = sum(len(ids) for _, _, ids in infos)

    def map(self, fn, *args, **kwargs) -> list:
        """``fn(shard, *args, **kwargs)`` on every shard; results in shard order."""
        futs = [self.client.submit(fn, f, *args, pure=False, **kwargs) for f in self.futures]
        return self.client.gather(futs)


def _ordered_sum(parts):
    """Sum in the given (shard) order, whatever the scheduling."""
    total = np.array(parts[0], dtype=np.float64, copy=True)
    for p in parts[1:]:
        total = total + p
    return total


# --------------------------------------------------------------------------------------
# Metrics on Dask collections
# --------------------------------------------------------------------------------------

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
        raise ValueError(f"y must hold relevance labels >= 0; a row of qid {q} has {shard['y'][i]!r}")
    return _core.metrics_per_query(specs, shard["y"], np.ascontiguousarray(shard["X"][:, 0]), shard["offsets"],
                                   max_grade)


def _per_query(specs, y, scores, qid, max_grade, client):
    sh = _scores_shards(y, scores, qid, client)
    if max_grade is None:
        # ERR's default: the largest label over all queries.
        max_grade = float(max(sh.map(lambda s: float(s["y"].max()))))
    parts = sh.map(_shard_scores_metrics, specs, max_grade)
    return np.concatenate(parts, axis=1)


def compute(metric: str, y, scores, qid, *, convention: str = "standard", ties: str = "stable",
            per_query: bool = False, max_grade: Optional[float] = None, client=None):
    """:func:`rankselect.metrics.compute` on Dask arrays (chunks of whole queries).

    Returns the mean over queries (per-query values concatenated in chunk order with
    ``per_query=True``).
    """
    if not isinstance(metric, str):
        raise ValueError(f"metric must be a metric name such as 'ndcg@10' or 'map', got {metric!r}")
    convention = _metrics._check_choice(convention, "convention", _metrics._CONVENTIONS)
    ties = _metrics._check_choice(ties, "ties", _metrics._TIES)
    max_grade = _metrics._check_max_grade(max_grade)
    values = _per_query([(metric, convention, ties)], y, scores, qid, max_grade, client)[0]
    return values if per_query else _metrics._mean(values)


def evaluate(y, scores, qid, *, convention: str = "standard", ties: str = "stable", ks=range(1, 11),
             max_grade: Optional[float] = None, per_query: bool = False, client=None):
    """:func:`rankselect.metrics.evaluate` (MAP, NDCG@k, P@k, MeanNDCG, ERR) on Dask arrays."""
    convention = _metrics._check_choice(convention, "convention", _metrics._CONVENTIONS)
    ties = _metrics._check_choice(ties, "ties", _metrics._TIES)
    ks = [_metrics._check_k(k, "ks", allow_none=False) for k in ks]
    names = ["MAP"] + [f"NDCG@{k}" for k in ks] + [f"P@{k}" for k in ks] + ["MeanNDCG", "ERR"]
    measures = ["ap"] + [f"ndcg@{k}" for k in ks] + [f"p@{k}" for k in ks] + ["meanndcg", "err"]
    values = _per_query([(m, convention, ties) for m in measures], y, scores, qid,
                        _metrics._check_max_grade(max_grade), client)
    return {name: (v if per_query else _metrics._mean(v)) for name, v in zip(names, values)}


# --------------------------------------------------------------------------------------
# GAS: Kendall similarity and feature importance as sums of per-shard terms
# --------------------------------------------------------------------------------------

def _shard_kendall(shard, variant, directions):
    shard = _sh(shard)
    X = shard["X"] if directions is None else np.ascontiguousarray(shard["X"] * directions)
    return _core.kendall_sums(X, shard["offsets"], variant)


def _kendall(shards, variant, absolute, directions=None):
    parts = shards.map(_shard_kendall, variant, directions)
    s = _ordered_sum([p[0] for p in parts])
    sn = _ordered_sum([p[1] for p in parts])
    q = sum(int(p[2]) for p in parts)
    if q == 0:
        raise ValueError("qid: no query has at least 2 documents; Kendall's tau needs document pairs")
    if not absolute:
        return s / q
    if variant == "geng":
        return np.maximum(s, sn) / q
    return np.abs(s / q)


def kendall_similarity(X, qid, variant: str = "geng", absolute: bool = False, *, client=None) -> np.ndarray:
    """:func:`rankselect.kendall_similarity` of Dask arrays (chunks of whole queries).

    Each shard returns its sums of per-query statistics and its number of queries with at
    least 2 documents; the mean is the sum of sums over the sum of counts.

    Returns
    -------
    ndarray of shape (n_features, n_features)
    """
    variant = _check_variant(variant)
    if not isinstance(absolute, (bool, np.bool_)):
        raise TypeError(f"absolute must be a bool, got {absolute!r}")
    shards = _Shards(_client(client), X, None, qid)
    return _kendall(shards, variant, bool(absolute))


def _shard_pairwise(shard):
    shard = _sh(shard)
    return _core.pairwise_counts(shard["X"], shard["y"], shard["offsets"])


def _shard_metric_importance(shard, measure, convention):
    shard = _sh(shard)
    spec = [(measure, convention, "pessimistic")]
    X, y, off = shard["X"], shard["y"], shard["offsets"]
    n = X.shape[1]
    asc = np.zeros((n, len(off) - 1))
    desc = np.zeros((n, len(off) - 1))
    for f in range(n):
        col = np.ascontiguousarray(X[:, f])
        asc[f] = _core.metrics_per_query(spec, y, col, off, None)[0]
        desc[f] = _core.metrics_per_query(spec, y, -col, off, None)[0]
    return asc, desc


def _importance(shards, measure, convention):
    kind, k = _parse_measure(measure)
    if kind == "pairwise":
        parts = shards.map(_shard_pairwise)
        # Exact integer counts: the sum does not depend on the order.
        ea = np.sum([p[0] for p in parts], axis=0, dtype=np.uint64)
        ed = np.sum([p[1] for p in parts], axis=0, dtype=np.uint64)
        prefs = sum(int(p[2]) for p in parts)
        if prefs == 0:
            raise ValueError("y: no query has two documents with different labels; pairwise importance needs "
                             "preference pairs")
        return _pick(1.0 - ea / (2.0 * prefs), 1.0 - ed / (2.0 * prefs))
    if not isinstance(convention, str) or convention.strip().lower() not in ("standard", "letor"):
        raise ValueError(f"convention must be 'standard' or 'letor', got {convention!r}")
    name = kind if k is None else f"{kind}@{k}"
    parts = shards.map(_shard_metric_importance, name, convention.strip().lower())
    asc = np.concatenate([p[0] for p in parts], axis=1)
    desc = np.concatenate([p[1] for p in parts], axis=1)
    mean = lambda v: np.array([_metrics._mean(r) for r in v])  # noqa: E731  (query order, as Rust)
    return _pick(mean(asc), mean(desc))


def feature_importance(X, y, qid, measure: str = "map", convention: str = "standard", *,
                       client=None) -> FeatureImportance:
    """:func:`rankselect.feature_importance` of Dask arrays (chunks of whole queries).

    Returns
    -------
    FeatureImportance
        ``(importance, directions)``, both of shape (n_features,).
    """
    _parse_measure(measure)
    shards = _Shards(_client(client), X, y, qid)
    return _importance(shards, measure, convention)


def _shard_constant(shard):
    data = _grouped(shard)
    if data.X.shape[0] == 0:
        return np.ones(data.X.shape[1], dtype=bool)
    return data.constant_within_queries()


class GAS(_gas.GAS):
    """:class:`rankselect.GAS` on Dask arrays: importance and similarity from per-shard sums.

    Same parameters and fitted attributes as :class:`rankselect.GAS`, plus ``client``.
    """

    def __init__(self, n_features_to_select=10, *, c=0.1, importance="map", similarity="geng",
                 absolute=False, convention="standard", client=None):
        super().__init__(n_features_to_select, c=c, importance=importance, similarity=similarity,
                         absolute=absolute, convention=convention)
        self.client = client

    def fit(self, X, y, qid=None):
        """Select features on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,)."""
        shards = _Shards(_client(self.client), X, y, qid)
        n = shards.n_features
        if n == 0:
            raise ValueError("X has no features (0 columns)")
        self._check_params(n)
        if isinstance(self.importance, str):
            _parse_measure(self.importance)
            imp = _importance(shards, self.importance, self.convention)
        else:
            imp = self._importance(np.empty((0, n)), None, None)
        if isinstance(self.similarity, str):
            if self.similarity not in VARIANTS:
                raise ValueError(f"similarity must be one of {VARIANTS} or an (n_features, n_features) array, "
                                 f"got {self.similarity!r}")
            e = _kendall(shards, self.similarity, bool(self.absolute), imp.directions.astype(np.float64))
        else:
            e = self._similarity(np.empty((0, n)), None, None)
        constant = np.logical_and.reduce(shards.map(_shard_constant))
        selected, weights = _gas.gas_greedy(imp.importance, e, int(self.n_features_to_select), float(self.c),
                                            last=constant)
        self.importance_ = imp.importance
        self.directions_ = imp.directions
        self.similarity_ = e
        self.selected_features_ = selected
        self.selection_weights_ = weights
        self.constant_features_ = np.flatnonzero(constant)
        self.n_features_in_ = n
        return self


# --------------------------------------------------------------------------------------
# RankRLS: sums of per-shard Gram matrices
# --------------------------------------------------------------------------------------

def _centred(shard):
    """``Xc`` (m, n) and ``yc`` (m,): the shard's rows minus their query means, by the core's
    one definition of per-query centring (``groups::center_rows``, as RankRLS)."""
    shard = _sh(shard)
    off = shard["offsets"]
    return (np.asarray(_core.center_by_query(shard["X"], off)),
            np.asarray(_core.center_by_query(shard["y"][:, None], off))[:, 0])


def _shard_gram(shard):
    Xc, yc = _centred(shard)
    return Xc.T @ Xc, Xc.T @ yc


def _shard_lqo_errors(shard, V, s, zy, alphas):
    """Per alpha, this shard's sum over queries of ``||(I - H_qq)^-1 r_q||^2`` (eq. 7)."""
    shard = _sh(shard)
    Xc, yc = _centred(shard)
    Z = Xc @ V
    off = shard["offsets"]
    out = np.zeros(len(alphas))
    for a_i, alpha in enumerate(alphas):
        d = 1.0 / (s + alpha)
        beta = zy * d
        r_all = yc - Z @ beta
        total = 0.0
        for q in range(len(off) - 1):
            st, e = off[q], off[q + 1]
            Zq = Z[st:e]
            ih = np.eye(e - st) - (Zq * d) @ Zq.T
            r = np.linalg.solve(ih, r_all[st:e])
            total += float(r @ r)
        out[a_i] = total
    return out


class RankRLS(_RankRLS):
    """:class:`rankselect.RankRLS` on Dask arrays (chunks of whole queries).

    ``Xc^T Xc`` and ``Xc^T yc`` are sums of per-shard Gram matrices (centring is per query,
    so per shard); the weights solve ``(Xc^T Xc + alpha I) w = Xc^T yc`` on the client; the
    exact LQO error per alpha (Theorem 3.1, eq. 7) is a sum of per-query terms computed on
    the shards from the broadcast eigendecomposition of ``Xc^T Xc``. Same attributes as
    :class:`rankselect.RankRLS` (``coef_``, ``alpha_``, ``lqo_errors_``,
    ``n_features_in_``); ``predict`` accepts NumPy or Dask arrays.
    """

    def __init__(self, alpha=1.0, *, client=None):
        super().__init__(alpha=alpha)
        self.client = client

    def fit(self, X, y, qid=None):
        """Fit on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,)."""
        import scipy.linalg

        alphas, is_list = check_alphas(self.alpha)
        shards = _Shards(_client(self.client), X, y, qid)
        if shards.n_queries < 2:
            raise ValueError(f"qid must hold at least two queries for leave-query-out, got {shards.n_queries}")
        parts = shards.map(_shard_gram)
        G = _ordered_sum([p[0] for p in parts])
        b = _ordered_sum([p[1] for p in parts])
        s, V = np.linalg.eigh(G)
        s = np.maximum(s, 0.0)
        zy = V.T @ b
        errors = _ordered_sum(shards.map(_shard_lqo_errors, V, s, zy, alphas))
        best = int(np.argmin(errors))
        self.lqo_errors_ = errors
        self.alpha_ = float(alphas[best])
        if is_list:
            self.coef_ = V @ (zy / (s + self.alpha_))
        else:
            n = G.shape[0]
            self.coef_ = scipy.linalg.cho_solve(scipy.linalg.cho_factor(G + self.alpha_ * np.eye(n), lower=True), b)
        self.n_features_in_ = shards.n_features
        return self

    def lqo_predict(self):  # pragma: no cover - documented limitation
        raise NotImplementedError("lqo_predict is not available on rankselect.dask.RankRLS; "
                                  "use rankselect.RankRLS on data that fits in memory")

    def predict(self, X):
        """Scores ``X @ coef_``: a Dask array for a Dask input, else a NumPy array."""
        return _predict(self, X)


def _predict(est, X):
    if isinstance(X, da.Array):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(est, "coef_")
        if X.shape[1] != est.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {est.n_features_in_}")
        coef = est.coef_
        return X.rechunk({1: -1}).map_blocks(lambda b: b @ coef, drop_axis=1, dtype=np.float64)
    return LinearPredictMixin.predict(est, X)


# --------------------------------------------------------------------------------------
# RankSVM: truncated Newton with shard sums of gradients and Hessian-vector products
# --------------------------------------------------------------------------------------

def _shard_svm_value_grad(shard, w):
    shard = _sh(shard)
    value, grad = _core.squared_hinge_value_grad(shard["X"], shard["y"], shard["offsets"], _own(w))
    return value, grad


def _shard_svm_hessp(shard, w, v):
    shard = _sh(shard)
    return _core.squared_hinge_hessp(shard["X"], shard["y"], shard["offsets"], _own(w), _own(v)[:, None])[:, 0]


def _shard_svm_line(shard, w, d):
    """``(grad L(w) . d, d . H(w) d)`` of this shard (line-search derivatives)."""
    shard = _sh(shard)
    X, y, off, w, d = shard["X"], shard["y"], shard["offsets"], _own(w), _own(d)
    _, grad = _core.squared_hinge_value_grad(X, y, off, w)
    hd = _core.squared_hinge_hessp(X, y, off, w, d[:, None])[:, 0]
    return float(grad @ d), float(d @ hd)


def _shard_n_pairs(shard):
    shard = _sh(shard)
    return int(_core.query_pair_counts(shard["y"], shard["offsets"]).sum())


class RankSVM(_RankSVM):
    """:class:`rankselect.RankSVM` (linear) on Dask arrays, by the same truncated Newton.

    The loss, its gradient and its generalized Hessian-vector products are sums over
    query shards of the per-query squared-hinge kernels (Chen et al. 2017, eqs. 24-25);
    the Newton / conjugate-gradient / exact line-search iterations of
    ``rankselect_core::ranksvm`` run on the client on n-vectors, so each iteration moves
    O(n) numbers per shard. Same parameters (``kernel=None`` only) and attributes
    (``coef_``, ``n_iter_``, ``n_cg_iter_``, ``objective_``, ``n_pairs_``,
    ``n_features_in_``), plus ``client``; the optimum is the in-memory one up to the
    solver tolerance (the sums are taken in another order).
    """

    def __init__(self, C=1.0, tol=1e-6, max_iter=100, max_cg_iter=500, *, kernel=None, n_components=100,
                 gamma=None, random_state=None, client=None):
        super().__init__(C=C, tol=tol, max_iter=max_iter, max_cg_iter=max_cg_iter, kernel=kernel,
                         n_components=n_components, gamma=gamma, random_state=random_state)
        self.client = client

    def fit(self, X, y, qid=None):
        """Fit on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,)."""
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        self._validate_params()
        if self.kernel is not None:
            raise ValueError("rankselect.dask.RankSVM supports kernel=None only (a linear RankSVM); "
                             "apply a kernel map to the Dask array first")
        shards = _Shards(_client(self.client), X, y, qid)
        n = shards.n_features
        c = float(self.C)

        def value_grad(w):
            parts = shards.map(_shard_svm_value_grad, w)
            loss = 0.0
            for v, _ in parts:
                loss += v
            g = w + c * _ordered_sum([gr for _, gr in parts])
            return 0.5 * float(w @ w) + c * loss, g

        w = np.zeros(n)
        obj, g = value_grad(w)
        gnorm = float(np.sqrt(g @ g))
        g0 = gnorm
        rel = (lambda gn: gn / g0 if g0 > 0 else 0.0)
        n_iter = n_cg = 0
        converged = rel(gnorm) <= self.tol
        while not converged and n_iter < self.max_iter:
            # Newton direction: CG on (I + C H) d = -g.
            eta = min(0.1, np.sqrt(rel(gnorm)))
            cg_tol = eta * gnorm
            d = np.zeros(n)
            r = -g
            p = r.copy()
            rr = float(r @ r)
            for _ in range(int(self.max_cg_iter)):
                if np.sqrt(rr) <= cg_tol:
                    break
                hp = p + c * _ordered_sum(shards.map(_shard_svm_hessp, w, p))
                n_cg += 1
                php = float(p @ hp)
                if php <= 0.0:
                    break
                a = rr / php
                d = d + a * p
                r = r - a * hp
                rr_new = float(r @ r)
                p = r + (rr_new / rr) * p
                rr = rr_new
            t = self._line_search(shards, w, d, c)
            w_new = w + t * d
            obj_new, g_new = value_grad(w_new)
            n_iter += 1
            if not (obj_new <= obj) or t == 0.0:
                break
            stalled = obj_new == obj
            w, obj, g = w_new, obj_new, g_new
            gnorm = float(np.sqrt(g @ g))
            converged = rel(gnorm) <= self.tol
            if stalled:
                break
        n_pairs = sum(shards.map(_shard_n_pairs))
        if n_pairs == 0:
            warnings.warn("the training data has no preference pairs (no query has two different labels): the "
                          "model is all zeros", UserWarning, stacklevel=2)
        elif not converged:
            warnings.warn(f"RankSVM did not reach tol={self.tol} in {n_iter} Newton steps (relative gradient "
                          f"norm {rel(gnorm):.3g}); increase max_iter", ConvergenceWarning, stacklevel=2)
        self.coef_ = w
        self.n_iter_ = int(n_iter)
        self.n_cg_iter_ = int(n_cg)
        self.objective_ = float(obj)
        self.n_pairs_ = int(n_pairs)
        self.n_features_in_ = n
        return self

    @staticmethod
    def _line_search(shards, w, d, c):
        """Exact minimiser of ``phi(t) = f(w + t d)`` by safeguarded Newton (as the core)."""
        wd, dd = float(w @ d), float(d @ d)

        def derivs(t):
            parts = shards.map(_shard_svm_line, w + t * d, d)
            gd = hdd = 0.0
            for a, b in parts:
                gd += a
                hdd += b
            return wd + t * dd + c * gd, dd + c * hdd

        d0, _ = derivs(0.0)
        if d0 >= 0.0:
            return 0.0
        lo, hi, t = 0.0, np.inf, 1.0
        for _ in range(100):
            dp, second = derivs(t)
            if abs(dp) <= 1e-12 * abs(d0):
                break
            if dp < 0.0:
                lo = t
            else:
                hi = t
            nxt = t - dp / second
            if not (lo < nxt < hi):
                nxt = 0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * t
            if abs(nxt - t) <= 1e-15 * abs(t):
                break
            t = nxt
        return t

    def decision_function(self, X):
        """Scores ``X @ coef_``: a Dask array for a Dask input, else a NumPy array."""
        if isinstance(X, da.Array):
            return _predict(self, X)
        return super().decision_function(X)

    def predict(self, X):
        """Same as :meth:`decision_function`."""
        return self.decision_function(X)


# --------------------------------------------------------------------------------------
# SparseRankSVM, l1: proximal Newton with shard sums of the datafit quantities
# --------------------------------------------------------------------------------------

def _shard_svm_value(shard, w):
    shard = _sh(shard)
    value, _ = _core.squared_hinge_value_grad(shard["X"], shard["y"], shard["offsets"], _own(w))
    return value


def _shard_svm_hessian(shard, w):
    """This shard's generalized Hessian ``2 X^T A^T D A X`` at ``w``, (n, n)."""
    shard = _sh(shard)
    n = shard["X"].shape[1]
    return _core.squared_hinge_hessp(shard["X"], shard["y"], shard["offsets"], _own(w), np.eye(n))


def _shard_min_max(shard):
    X = _sh(shard)["X"]
    return X.min(axis=0), X.max(axis=0)


def _soft(z, t):
    return np.sign(z) * max(abs(z) - t, 0.0)


class SparseRankSVM(_SparseRankSVM):
    """:class:`rankselect.SparseRankSVM` with ``penalty="l1"`` on Dask arrays.

    Minimises ``sum_j beta_j |w_j| + C L(w)`` (Laporte et al. 2014, eqs. 7 and 12) by
    proximal Newton on the client: the loss, its gradient and its generalized Hessian
    ``2 X^T A^T D A X`` (n x n) are sums over query shards of the per-query squared-hinge
    kernels; each Newton step solves its l1-regularised quadratic model by coordinate
    descent and takes an Armijo step. It reaches the in-memory minimiser (up to ``tol``);
    attributes as :class:`rankselect.SparseRankSVM` (``objective_history_`` per Newton
    step), plus ``client``. Non-convex penalties are not available here.
    """

    def __init__(self, C=1.0, penalty="l1", p=0.5, epsilon=0.1, mcp_gamma=2.0, weights=None, max_iter=5000,
                 max_reweightings=10, tol=1e-6, solver="prox-newton", *, client=None):
        super().__init__(C=C, penalty=penalty, p=p, epsilon=epsilon, mcp_gamma=mcp_gamma, weights=weights,
                         max_iter=max_iter, max_reweightings=max_reweightings, tol=tol, solver=solver)
        self.client = client

    def fit(self, X, y, qid=None):
        """Fit on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,)."""
        shards = _Shards(_client(self.client), X, y, qid)
        n = shards.n_features
        weights = self._check_params(n)
        if self.penalty != "l1":
            raise ValueError(f"rankselect.dask.SparseRankSVM supports penalty='l1' only, got {self.penalty!r}")
        mm = shards.map(_shard_min_max)
        lo, hi = np.minimum.reduce([a for a, _ in mm]), np.maximum.reduce([b for _, b in mm])
        constant = lo == hi
        zero = (lo == 0) & (hi == 0)  # rankselect.uninformative.zero_features over all shards
        if constant.all():
            raise ValueError("X: every feature is constant over the training set; nothing to select")
        beta = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
        C = float(self.C)
        pinned = ~np.isfinite(beta)

        def loss(w):
            total = 0.0
            for v in shards.map(_shard_svm_value, w):
                total += v
            return total

        def objective(w, L):
            nz = w != 0
            return float(np.sum(beta[nz] * np.abs(w[nz]))) + C * L

        def value_grad(w):
            parts = shards.map(_shard_svm_value_grad, w)
            total = 0.0
            for v, _ in parts:
                total += v
            return total, C * _ordered_sum([g for _, g in parts])

        def kkt(w, g):
            r = np.where(w != 0, np.abs(g + beta * np.sign(w)), np.maximum(np.abs(g) - beta, 0.0))
            r[pinned] = 0.0
            return float(r.max()) if r.size else 0.0

        w = np.zeros(n)
        L, g = value_grad(w)
        obj = objective(w, L)
        scale = max(1.0, float(np.abs(g).max()))
        history = [obj]
        converged = kkt(w, g) <= self.tol * scale
        n_iter = 0
        while not converged and n_iter < int(self.max_iter):
            H = C * _ordered_sum(shards.map(_shard_svm_hessian, w))
            diag = np.maximum(np.diag(H), 1e-12 * max(1.0, float(np.abs(np.diag(H)).max())))
            d = np.zeros(n)
            Hd = np.zeros(n)
            for _ in range(1000):  # coordinate descent on the l1-regularised quadratic model
                change = 0.0
                for j in range(n):
                    if pinned[j]:
                        continue
                    z = w[j] + d[j]
                    znew = _soft(z - (g[j] + Hd[j]) / diag[j], beta[j] / diag[j])
                    delta = znew - z
                    if delta != 0.0:
                        d[j] += delta
                        Hd += delta * H[:, j]
                        change = max(change, abs(delta))
                if change <= 1e-14 * max(1.0, float(np.abs(w + d).max())):
                    break
            nz_new, nz_old = (w + d) != 0, w != 0
            decrease = float(g @ d) + float(np.sum(beta[nz_new] * np.abs((w + d)[nz_new]))) - \
                float(np.sum(beta[nz_old] * np.abs(w[nz_old])))
            t = 1.0
            for _ in range(60):  # Armijo backtracking
                w_new = w + t * d
                obj_new = objective(w_new, loss(w_new))
                if obj_new <= obj + 1e-4 * t * decrease:
                    break
                t *= 0.5
            n_iter += 1
            if not obj_new < obj:
                break  # no decrease left in floating point
            w = w_new
            L, g = value_grad(w)
            obj = objective(w, L)
            history.append(obj)
            converged = kkt(w, g) <= self.tol * scale
        if not converged:
            from sklearn.exceptions import ConvergenceWarning
            import warnings

            warnings.warn(f"SparseRankSVM did not reach tol={self.tol} in {n_iter} proximal Newton steps",
                          ConvergenceWarning, stacklevel=2)
        result = _core.SolverResult(w, obj, np.asarray(history, dtype=float), float(kkt(w, g)), n_iter, converged)
        self._set_fitted(result, 1, constant, zero)
        return self

    def predict(self, X):
        """Scores ``X @ coef_``: a Dask array for a Dask input, else a NumPy array."""
        return _predict(self, X)


# --------------------------------------------------------------------------------------
# Greedy RankRLS: resident shard caches, O(n) numbers per shard per step
# --------------------------------------------------------------------------------------

class _GreedyShardActor:
    """Dask actor holding one shard's greedy caches (``_core.GreedyShard``)."""

    def __init__(self, shard, alpha, criterion, convention, max_memory):
        shard = _sh(shard)
        limit = max_memory if max_memory is not None else memory_limit()
        self.state = _core.GreedyShard(shard["X"], shard["y"], shard["offsets"], float(alpha), criterion,
                                       convention, int(limit))

    def replay(self, history, skip):
        """Applies past steps ``(b, c, d, t)`` (a fresh actor rebuilt after a lost worker);
        ``skip``: the features that were never candidates (constant within every query)."""
        skip = np.array(skip, dtype=bool)
        for (b, c, d, t) in history:
            self.state.add(int(b), float(c), float(d), _own(t), skip)
            skip[int(b)] = True
        return len(history)

    def informative(self):
        return self.state.informative()

    def dots(self):
        return self.state.dots()

    def scan(self, c, d, skip):
        return self.state.scan(_own(c), _own(d), _own(skip))

    def cross(self, b):
        return self.state.cross(int(b))

    def add_and_coef(self, b, c, d, t, skip, selected, next_dots=False):
        """Adds feature ``b``; returns the partial weights of ``selected`` and, with
        ``next_dots``, the next step's :meth:`dots` (one round trip fewer per step)."""
        self.state.add(int(b), float(c), float(d), _own(t), _own(skip))
        coef = self.state.coef_partial(list(selected))
        return (coef, self.state.dots()) if next_dots else (coef, None)


class GreedyRankRLS(_GreedyRankRLS):
    """:class:`rankselect.GreedyRankRLS` on Dask arrays: exact, with the caches on the workers.

    Each chunk (shard of whole queries) gets one Dask actor that builds and keeps its rows'
    greedy caches (``Xc``, ``C``, ``U``, ``a``, ``p``: 3 m_s x n floats). A step is three
    rounds of O(n) numbers per shard, reduced on the client in shard order:
    ``v_i^T C_i`` and ``v_i^T a`` (giving every candidate's ``c_i``, ``d_i``); the
    candidates' partial LQO criterion sums (best feature ``b``); ``v_b^T C_i`` (giving the
    update vector ``t``), then every shard applies the Sherman-Morrison update
    (``rankselect_core::greedy_shard``) and returns the next step's first-round sums with
    the partial weights. No row ever leaves its worker after the start, so
    per-step communication is independent of the number of rows.

    Fault handling: every shard state is a function of its rows and of the broadcast history
    ``(b, c_b, d_b, t)`` of the steps so far. When a worker holding a shard is lost, its
    shard data are recomputed by Dask from the graph, a new actor replays the history
    (the same operations on the same numbers: the identical state), and the step is
    retried; the fit therefore ends with the same result. After ``max_retries`` losses in
    one fit it raises a RuntimeError.

    Same parameters and fitted attributes as :class:`rankselect.GreedyRankRLS`
    (``selected_features_``, ``lqo_scores_``, ``coef_path_``, ``coef_``, ``stop_reason_``,
    ``n_features_in_``), plus ``client`` and ``max_retries``.
    """

    def __init__(self, n_features_to_select=10, alpha=1.0, criterion="squared", convention="standard",
                 min_improvement=None, verbose=False, *, client=None, max_retries=3):
        super().__init__(n_features_to_select=n_features_to_select, alpha=alpha, criterion=criterion,
                         convention=convention, min_improvement=min_improvement, verbose=verbose)
        self.client = client
        self.max_retries = max_retries

    # -- actors ---------------------------------------------------------------------
    def _start(self):
        """One new actor per shard (built on the worker that holds the shard)."""
        futs = [self._client.submit(_GreedyShardActor, f, float(self.alpha), self.criterion, str(self.convention),
                                    get_config()["max_memory"], actor=True,
                                    key=f"rankselect-greedy-shard-{i}-{uuid.uuid4().hex}")
                for i, f in enumerate(self._shards.futures)]
        return [f.result() for f in futs]

    def _call_all(self, method, *args):
        """``method(*args)`` on every shard actor, results in shard order; rebuilds lost actors."""
        for attempt in range(int(self.max_retries) + 1):
            try:
                futs = [getattr(a, method)(*args) for a in self._actors]
                return [f.result() for f in futs]
            except (ValueError, TypeError, MemoryError, KeyboardInterrupt):
                raise
            except Exception as exc:  # a lost worker: CommClosedError, OSError, KilledWorker, ...
                if attempt == int(self.max_retries):
                    raise RuntimeError(
                        f"GreedyRankRLS: a Dask worker holding a shard was lost {attempt + 1} times "
                        f"(last error: {type(exc).__name__}: {exc}); the fit was stopped") from exc
                self._rebuild()
        raise AssertionError("unreachable")  # pragma: no cover

    def _rebuild(self):
        """New actors for every shard, each replaying the broadcast history."""
        self._n_rebuilds += 1
        self._actors = self._start()
        futs = [a.replay(self._history, self._skip0.copy()) for a in self._actors]
        for f in futs:
            f.result()

    # -- fit ------------------------------------------------------------------------
    def fit(self, X, y, qid=None):
        """Select features on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,)."""
        k = self.n_features_to_select
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise TypeError(f"n_features_to_select must be an integer, got {k!r}")
        check_positive(self.alpha, "alpha")
        if self.min_improvement is not None:
            check_positive(self.min_improvement, "min_improvement", strict=False)
        if not isinstance(self.criterion, str):
            raise TypeError(f"criterion must be a string, got {self.criterion!r}")
        check_positive(self.max_retries, "max_retries", strict=False, integer=True)
        self._client = _client(self.client)
        shards = _Shards(self._client, X, y, qid)
        n = shards.n_features
        if shards.n_queries < 2:
            raise ValueError(f"qid must hold at least two queries for leave-query-out, got {shards.n_queries}")
        if not 1 <= k <= n:
            raise ValueError(f"n_features_to_select must be in [1, n_features={n}], got {k}")
        higher = not self.criterion.strip().lower() == "squared"
        self._shards = shards
        self._history = []
        self._skip0 = np.zeros(n, dtype=bool)
        self._n_rebuilds = 0
        self._actors = self._start()
        try:
            selected, values, path, stop = self._run(int(k), n, shards.n_queries, higher)
        finally:
            self._actors = self._shards = self._client = None
        self.selected_features_ = np.asarray(selected, dtype=np.intp)
        self.lqo_scores_ = np.asarray(values, dtype=np.float64)
        self.coef_path_ = np.asarray(path, dtype=np.float64).reshape(len(selected), n)
        self.coef_ = self.coef_path_[-1].copy() if len(selected) else np.zeros(n)
        self.stop_reason_ = stop
        self.n_features_in_ = n
        return self

    def _run(self, k, n, n_queries, higher):
        # Features constant within every query of every shard cannot change the model: never
        # candidates (the in-memory kernel's rule); the path stops when only they are left.
        informative = np.logical_or.reduce([np.asarray(v, dtype=bool) for v in self._call_all("informative")])
        skip = ~informative
        self._skip0 = skip.copy()
        selected, values, path = [], [], []
        parts = None
        stop = None
        for step in range(k):
            if skip.all():
                stop = "uninformative"
                if self.verbose:
                    print(f"[GreedyRankRLS] stopped after {len(selected)} of {k} features: every remaining "
                          "feature is constant within every query, so none can change the model",
                          file=sys.stderr, flush=True)
                break
            if parts is None:
                parts = self._call_all("dots")
            e = _ordered_sum([p[0] for p in parts])
            h = _ordered_sum([p[1] for p in parts])
            c = 1.0 / (1.0 + e)
            d = c * h
            crit = _ordered_sum(self._call_all("scan", c, d, skip.copy()))
            if higher:
                crit = crit / n_queries
            crit[skip] = np.nan
            if np.isnan(crit).all():
                raise ValueError("no candidate feature gives a finite leave-query-out criterion")
            # Ties to the lowest index; NaN never wins (as the in-memory kernel).
            b = int(np.nanargmax(crit) if higher else np.nanargmin(crit))
            value = float(crit[b])
            if self.min_improvement is not None and values:
                prev = values[-1]
                gain = value - prev if higher else prev - value
                if gain < float(self.min_improvement) * abs(prev):
                    stop = "min_improvement"
                    break
            t = c[b] * _ordered_sum(self._call_all("cross", b))
            out = self._call_all("add_and_coef", b, float(c[b]), float(d[b]), t, skip.copy(), selected + [b],
                                 step + 1 < k)
            coef_parts = [o[0] for o in out]
            parts = [o[1] for o in out] if step + 1 < k else None
            self._history.append((b, float(c[b]), float(d[b]), t))
            skip[b] = True
            selected.append(b)
            values.append(value)
            w = np.zeros(n)
            w[selected] = _ordered_sum(coef_parts)
            path.append(w)
            if self.verbose:
                print(f"[GreedyRankRLS] step {step + 1}/{k}: feature {b} ({self.criterion} {value:.6g})",
                      file=sys.stderr, flush=True)
        return selected, values, path, stop

    def predict(self, X):
        """Scores ``X @ coef_``: a Dask array for a Dask input, else a NumPy array."""
        return _predict(self, X)
