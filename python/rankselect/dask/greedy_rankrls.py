"""Greedy RankRLS on Dask arrays: the core's selection loop, with the greedy caches resident on
the workers (one actor per shard; a step moves O(n) numbers per shard, never rows)."""
from __future__ import annotations

import uuid
from typing import Optional, Union

import numpy as np
import numpy.typing as npt
from distributed import Client

from .. import _core
from .._config import get_config, memory_limit
from ..metrics.checks import Convention
from ..selection.greedy_rankrls import GreedyRankRLS as _GreedyRankRLS
from ._contract import CLIENT_CONSTRAINT, DaskEstimatorMixin, DaskPredictMixin, check_lqo_queries
from .shards import _own, _sh, _Shards, is_lost_worker

__all__ = ["GreedyRankRLS", "ShardActors"]


class _GreedyShardActor:
    """Dask actor holding one shard's greedy caches (``_core.GreedyShard``): it answers the
    rounds of ``rankselect_core::shards::greedy_shard`` for its rows."""

    def __init__(self, shard, alpha, criterion, convention, max_memory):
        shard = _sh(shard)
        limit = max_memory if max_memory is not None else memory_limit()
        self.state = _core.GreedyShard(shard["X"], shard["y"], shard["offsets"], float(alpha), criterion,
                                       convention, int(limit))

    def replay(self, history):
        """Applies the past rounds ``add(b, c, d, t, skip)`` (a fresh actor rebuilt after a
        lost worker): the same operations on the same numbers, the identical state."""
        for (b, c, d, t, skip) in history:
            self.state.add(int(b), float(c), float(d), _own(t), _own(skip))
        return len(history)

    def informative(self):
        return self.state.informative()

    def gram(self):
        return self.state.gram()

    def baseline(self):
        return self.state.baseline()

    def dots(self):
        return self.state.dots()

    def scan(self, c, d, skip):
        return self.state.scan(_own(c), _own(d), _own(skip))

    def cross(self, b):
        return self.state.cross(int(b))

    def add(self, b, c, d, t, skip):
        """Adds feature ``b``; returns the step's smallest pivot ``1 - c s1_q`` (the accuracy
        monitor's) and the next step's :meth:`dots` (one round trip fewer)."""
        den = self.state.add(int(b), float(c), float(d), _own(t), _own(skip))
        return den, self.state.dots()

    def unit_dots(self, offsets, columns):
        return self.state.unit_dots(_own(offsets), _own(columns))

    def scan_units(self, offsets, columns, k, h):
        return self.state.scan_units(_own(offsets), _own(columns), _own(k), _own(h))


#: The core's refusal of a value its accuracy monitor doubts (a small alpha with nearly
#: collinear columns; module docs of ``shards::greedy_sharded::accuracy``).
_UNCERTIFIED = "cannot be certified exact on query shards"


class ShardActors:
    """The shards' answers to the core's greedy rounds (``_core.greedy_rankrls_sharded``):
    one :class:`_GreedyShardActor` per shard, every round's results in shard order.

    Fault handling: every shard state is a function of its rows and of the history of the
    ``add`` rounds. When a worker holding a shard is lost, its shard data are recomputed by
    Dask from the graph, new actors replay the history and the round is retried; after
    ``max_retries`` losses in one fit a RuntimeError stops it. Only a lost worker is retried
    (:func:`~rankselect.dask.shards.is_lost_worker`); an error of a shard task itself is
    raised as is.
    """

    #: The actor class of one shard (a hook for tests).
    actor_class = _GreedyShardActor

    def __init__(self, client, shards: _Shards, alpha, criterion, convention, max_retries: int) -> None:
        self._client = client
        self._shards = shards
        self._args = (float(alpha), criterion, str(convention), get_config()["max_memory"])
        self.max_retries = int(max_retries)
        self._history: list = []
        self.n_rebuilds = 0
        self._actors = self._start()

    def _start(self):
        """One new actor per shard (built on the worker that holds the shard)."""
        futs = [self._client.submit(self.actor_class, f, *self._args, actor=True,
                                    key=f"rankselect-greedy-shard-{i}-{uuid.uuid4().hex}")
                for i, f in enumerate(self._shards.futures)]
        return [f.result() for f in futs]

    def _call_all(self, method, *args):
        """``method(*args)`` on every shard actor, results in shard order; rebuilds the actors
        after a lost worker (:func:`~rankselect.dask.shards.is_lost_worker`) and retries. Any
        other error (a bug in a shard task: an IndexError, a ValueError) is raised as is, at
        once."""
        for attempt in range(self.max_retries + 1):
            try:
                if attempt:
                    self._rebuild()
                futs = [getattr(a, method)(*args) for a in self._actors]
                return [f.result() for f in futs]
            except Exception as exc:
                if not is_lost_worker(exc):
                    raise
                if attempt == self.max_retries:
                    raise RuntimeError(
                        f"GreedyRankRLS: a Dask worker holding a shard was lost {attempt + 1} times "
                        f"(last error: {type(exc).__name__}: {exc}); the fit was stopped") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _rebuild(self):
        """New actors for every shard, each replaying the history."""
        self.n_rebuilds += 1
        self._actors = self._start()
        for f in [a.replay(self._history) for a in self._actors]:
            f.result()

    # -- the rounds (rankselect_core::shards::greedy_sharded::ShardCalls) ---------------------
    def informative(self):
        return self._call_all("informative")

    def gram(self):
        return self._call_all("gram")

    def baseline(self):
        return self._call_all("baseline")

    def dots(self):
        return self._call_all("dots")

    def scan(self, c, d, skip):
        return self._call_all("scan", c, d, skip)

    def cross(self, b):
        return self._call_all("cross", b)

    def add(self, b, c, d, t, skip):
        out = self._call_all("add", b, c, d, t, skip)
        self._history.append((b, c, d, np.array(t), np.array(skip)))
        return out

    def unit_dots(self, offsets, columns):
        return self._call_all("unit_dots", offsets, columns)

    def scan_units(self, offsets, columns, k, h):
        return self._call_all("scan_units", offsets, columns, k, h)

    def rows(self):
        """Per shard, its rows and its largest query's (the shape a refusal names)."""
        return list(zip(self._shards.rows, self._shards.largest_query))


class GreedyRankRLS(DaskEstimatorMixin, DaskPredictMixin, _GreedyRankRLS):
    """:class:`rankselect.GreedyRankRLS` on Dask arrays: the core's selection loop, with the
    caches on the workers.

    Each chunk (shard of whole queries) gets one Dask actor that builds and keeps its rows'
    greedy caches (``Xc``, ``C``, ``U``: 3 m_s x n floats, the memory rule of
    :func:`rankselect.set_config` applied on the worker). The selection is the in-memory
    one (``rankselect_core::selection::greedy_rls::select``: ties to the lowest index, NaN
    never wins, ``min_improvement``, the uninformative stop, ``feature_costs``, ``budget`` and
    the feature groups with their ``group_costs`` and ``select_groups``, the primal weights of
    every prefix); it asks the shards for partial sums (``rankselect_core::shards::greedy_shard``:
    three rounds of O(n) numbers per shard and step; a whole group also has two rounds of its
    b x b blocks, ``unit_dots`` and ``scan_units``, and is added by its columns' rounds) and
    adds them in shard order. No row leaves its worker after the start.

    A lost worker is survived: new actors replay the history of the steps (the identical
    state) and the round is retried, up to :attr:`max_retries` losses per fit (then a
    RuntimeError); any other error of a shard task is raised as is, without a retry.
    :meth:`to_local` gives the in-memory :class:`rankselect.GreedyRankRLS`; a pickled one
    drops its ``client`` (unpickled, it uses the default client).

    Same parameters, validation, warnings and fitted attributes as
    :class:`rankselect.GreedyRankRLS` (``selected_features_``, ``lqo_scores_``,
    ``coef_path_``, ``coef_``, ``cost_path_``, ``stop_reason_``, ``n_features_in_``), plus
    ``client`` and ``n_rebuilds_`` (how many times the shards' actors were rebuilt after a lost
    worker during the fit; 0 without a loss).

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> sel = rd.GreedyRankRLS(n_features_to_select=3).fit(X, y, qid)
    >>> sel.selected_features_
    array([ 7,  3, 11])
    >>> client.close()
    >>> cluster.close()
    """

    #: Lost workers survived per fit (class attribute; set it on a subclass or an instance).
    max_retries: int = 3
    #: Fitted attributes about the cluster, not copied by :meth:`to_local`.
    _cluster_attributes = ("n_rebuilds_",)
    #: The shards' answerer (a hook for tests).
    _actors_class = ShardActors

    _parameter_constraints = {**_GreedyRankRLS._parameter_constraints, **CLIENT_CONSTRAINT}

    def __init__(self, n_features_to_select: int = 10, alpha: float = 1.0, criterion: str = "squared",
                 convention: Convention = "exponential", min_improvement: Optional[float] = None,
                 verbose: Union[bool, int] = False, feature_costs: Optional[npt.ArrayLike] = None,
                 budget: Optional[float] = None, floating: bool = False, feature_groups=None,
                 group_costs=None, select_groups: bool = True, *,
                 client: Optional[Client] = None) -> None:
        super().__init__(n_features_to_select=n_features_to_select, alpha=alpha, criterion=criterion,
                         convention=convention, min_improvement=min_improvement, verbose=verbose,
                         feature_costs=feature_costs, budget=budget, floating=floating,
                         feature_groups=feature_groups, group_costs=group_costs, select_groups=select_groups)
        self.client = client

    def fit(self, X, y, qid=None):
        """Select features on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,) chunked by
        whole queries."""
        self._validate_params()
        if self.floating:
            raise ValueError("floating=True is not available on Dask arrays: the query shards have no removal "
                             "step; run rankselect.GreedyRankRLS(floating=True) in memory")
        shards = self._shards(X, y, qid)
        n = shards.n_features  # k's bound n (or n_groups): the core's check
        self._warn_if_degenerate(shards)
        check_lqo_queries(shards)
        plan, options, units = self._greedy_run(n, shards)
        actors = self._actors_class(shards.client, shards, self.alpha, self.criterion, self.convention,
                                    self.max_retries)
        try:
            r = _core.greedy_rankrls_sharded(actors, n, shards.n_queries, options, self._progress(), groups=units)
        except ValueError as exc:
            # the accuracy monitor's refusal (rankselect_core::shards::greedy_sharded::accuracy)
            if _UNCERTIFIED in str(exc):
                raise ValueError(f"rankselect.dask.GreedyRankRLS: {exc}") from None
            raise
        finally:
            self.n_rebuilds_ = actors.n_rebuilds
            del actors
        self._set_result(r, plan)
        return self
