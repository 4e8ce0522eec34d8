"""SparseRankSVM (l1) on Dask arrays: proximal Newton with shard sums of the datafit
quantities."""
from __future__ import annotations

import warnings
from typing import Literal, Optional

import numpy as np
import numpy.typing as npt
from distributed import Client
from sklearn.exceptions import ConvergenceWarning

from .. import _core
from ..models.sparse_ranksvm import SparseRankSVM as _SparseRankSVM
from .predict import predict_linear
from .ranksvm import _shard_svm_value_grad
from .shards import _client, _ordered_sum, _own, _sh, _Shards

__all__ = ["SparseRankSVM"]


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

    def __init__(self, C: float = 1.0, penalty: Literal["l1", "log", "mcp", "lp"] = "l1", p: float = 0.5,
                 epsilon: float = 0.1, mcp_gamma: float = 2.0, weights: Optional[npt.ArrayLike] = None,
                 max_iter: int = 5000, max_reweightings: int = 10, tol: float = 1e-6,
                 solver: Literal["prox-newton", "fista"] = "prox-newton", *,
                 client: Optional[Client] = None) -> None:
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
            warnings.warn(f"SparseRankSVM did not reach tol={self.tol} in {n_iter} proximal Newton steps",
                          ConvergenceWarning, stacklevel=2)
        result = _core.SolverResult(w, obj, np.asarray(history, dtype=float), float(kkt(w, g)), n_iter, converged)
        self._set_fitted(result, 1, constant, zero)
        return self

    def predict(self, X):
        """Scores ``X @ coef_``: a Dask array for a Dask input, else a NumPy array."""
        return predict_linear(self, X)
