"""RankSVM on Dask arrays: the truncated Newton of the core with shard sums of the loss,
its gradient and Hessian-vector products."""
from __future__ import annotations

import warnings
from typing import Literal, Optional, Union

import dask.array as da
import numpy as np
from distributed import Client
from sklearn.exceptions import ConvergenceWarning

from .. import _core
from ..models.ranksvm import RankSVM as _RankSVM
from .predict import predict_linear
from .shards import _client, _ordered_sum, _own, _sh, _Shards

__all__ = ["RankSVM"]


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

    def __init__(self, C: float = 1.0, tol: float = 1e-6, max_iter: int = 100, max_cg_iter: int = 500, *,
                 kernel: Optional[Literal["nystroem", "rff"]] = None, n_components: int = 100,
                 gamma: Optional[float] = None, random_state: Union[int, np.random.RandomState, None] = None,
                 client: Optional[Client] = None) -> None:
        super().__init__(C=C, tol=tol, max_iter=max_iter, max_cg_iter=max_cg_iter, kernel=kernel,
                         n_components=n_components, gamma=gamma, random_state=random_state)
        self.client = client

    def fit(self, X, y, qid=None):
        """Fit on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,)."""
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

        def rel(gn):
            return gn / g0 if g0 > 0 else 0.0

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
            return predict_linear(self, X)
        return super().decision_function(X)

    def predict(self, X):
        """Same as :meth:`decision_function`."""
        return self.decision_function(X)
