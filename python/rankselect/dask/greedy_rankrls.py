"""Greedy RankRLS on Dask arrays: exact, with the greedy caches resident on the workers (one
actor per shard; a step moves O(n) numbers per shard, never rows)."""
from __future__ import annotations

import numbers
import sys
import uuid
from typing import Optional, Union

import numpy as np
from distributed import Client

from .. import _core
from .._config import get_config, memory_limit
from .._validation import check_positive
from ..metrics.checks import Convention
from ..selection.greedy_rankrls import GreedyRankRLS as _GreedyRankRLS
from .predict import predict_linear
from .shards import _client, _ordered_sum, _own, _sh, _Shards

__all__ = ["GreedyRankRLS"]


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

    def __init__(self, n_features_to_select: int = 10, alpha: float = 1.0, criterion: str = "squared",
                 convention: Convention = "standard", min_improvement: Optional[float] = None,
                 verbose: Union[bool, int] = False, *, client: Optional[Client] = None,
                 max_retries: int = 3) -> None:
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
        return predict_linear(self, X)
