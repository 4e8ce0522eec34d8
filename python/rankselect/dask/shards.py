"""Shards: one block of whole queries per chunk of the Dask arrays, grouped on the workers.

A shard travels as a dict of arrays (``X``, ``y``, ``offsets``, ``ids``: the
:class:`~rankselect.data.GroupedData` of its rows); the client adds per-shard results **in
shard order** (:func:`_ordered_sum`), so results do not depend on scheduling. The facts the
estimator contract needs before a fit (a preference pair, an informative feature, the
features constant within every query or zero everywhere) are shard reductions too
(:meth:`_Shards.facts`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import dask
import dask.array as da
import numpy as np
from distributed import KilledWorker, default_client
from distributed.comm import CommClosedError

from .. import _core
from .._validation import check_ranking_data
from ..data.grouping import GroupedData, QueryGroups


def _check_whole_queries(ids_per_shard: list[np.ndarray], names: list[str]) -> None:
    """ValueError naming the first qid found in two shards."""
    seen: dict[int, int] = {}
    for s, ids in enumerate(ids_per_shard):
        for q in np.asarray(ids).tolist():
            if q in seen:
                raise ValueError(
                    f"qid {q} is split across {names[seen[q]]} and {names[s]}: every chunk must hold whole "
                    "queries (rankselect.dask.partition_by_query builds such chunks)")
            seen[q] = s


#: what a lost worker raises at the client: the scheduler gave up on a task whose workers died
#: (KilledWorker), a closed connection (CommClosedError, ConnectionError), or an actor's
#: ``OSError("Unable to contact Actor's worker")`` or ``RuntimeError("Worker holding Actor was
#: lost. ...")`` (distributed's ``Actor`` raises the one or the other, depending on when the
#: worker died)
LOST_WORKER_ERRORS: tuple[type[BaseException], ...] = (KilledWorker, CommClosedError, ConnectionError)


def is_lost_worker(exc: BaseException) -> bool:
    """Whether ``exc`` says that a worker was lost (a retry may succeed), not that the task
    failed (an error of the task itself, such as an IndexError, which is raised as is)."""
    if isinstance(exc, LOST_WORKER_ERRORS) or type(exc) is OSError:
        return True
    return type(exc) is RuntimeError and str(exc).startswith("Worker holding Actor was lost")


def _client(client):
    if client is not None:
        return client
    try:
        return default_client()
    except ValueError:
        raise ValueError("no Dask client: pass client= or start one (distributed.Client(...)) first") from None


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
    """A shard: rows grouped by query (:class:`~rankselect.data.grouping.GroupedData`'s ``X``, ``y``,
    ``offsets`` of dtype ``np.uintp``, and the query ids), as a dict of arrays that travels."""
    X, y, qid = check_ranking_data(_own(X), _own(y), _own(qid))
    data = GroupedData.from_arrays(X, y, qid)
    return {"X": data.X, "y": data.y, "offsets": data.offsets, "ids": data.groups.ids}


def _grouped(shard) -> GroupedData:
    """A shard (rows already grouped) as the package's :class:`~rankselect.data.grouping.GroupedData`."""
    shard = _sh(shard)
    m = shard["X"].shape[0]
    return GroupedData(shard["X"], shard["y"], QueryGroups(np.arange(m), shard["offsets"], shard["ids"]))


def _info(shard):
    shard = _sh(shard)
    return shard["X"].shape[0], shard["X"].shape[1], shard["ids"], int(np.diff(shard["offsets"]).max(initial=0))


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
        self.rows = [r for r, _, _, _ in infos]
        #: per shard, its largest query's rows
        self.largest_query = [q for _, _, _, q in infos]
        self.n_features = infos[0][1]
        _check_whole_queries([ids for _, _, ids, _ in infos], [f"chunk {i}" for i in keep])
        self.n_queries = sum(len(ids) for _, _, ids, _ in infos)
        self._facts = None

    def map(self, fn, *args, **kwargs) -> list:
        """``fn(shard, *args, **kwargs)`` on every shard; results in shard order."""
        futs = [self.client.submit(fn, f, *args, pure=False, **kwargs) for f in self.futures]
        return self.client.gather(futs)

    def facts(self) -> _Facts:
        """The degenerate-data facts and the column facts over all shards (computed once)."""
        if self._facts is None:
            parts = self.map(_shard_facts)
            varies = np.logical_or.reduce([p[1] for p in parts])
            self._facts = _Facts(
                has_pair=any(p[0] for p in parts), varies=varies,
                low=np.minimum.reduce([p[2] for p in parts]), high=np.maximum.reduce([p[3] for p in parts]),
                n_pairs=sum(p[4] for p in parts))
        return self._facts


@dataclass(frozen=True)
class _Facts:
    """Over all shards: a query with two different labels (``has_pair``), the features that
    vary inside some query (``varies``), each column's min and max (``low``, ``high``), the
    number of preference pairs."""

    has_pair: bool
    varies: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_pairs: int

    @property
    def informative(self) -> bool:
        return bool(self.varies.any())


def _shard_facts(shard):
    data = _grouped(shard)
    n = data.X.shape[1]
    if data.X.shape[0] == 0:
        return False, np.zeros(n, dtype=bool), np.full(n, np.inf), np.full(n, -np.inf), 0
    counts = _core.query_pair_counts(data.y, data.offsets)
    return (bool(counts.any()), ~data.constant_within_queries(), data.X.min(axis=0), data.X.max(axis=0),
            int(counts.sum()))


def _ordered_sum(parts):
    """Sum in the given (shard) order, whatever the scheduling (arrays or floats)."""
    total = np.array(parts[0], dtype=np.float64, copy=True)
    for p in parts[1:]:
        total = total + p
    return total if total.ndim else float(total)
