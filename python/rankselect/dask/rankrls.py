"""RankRLS on Dask arrays: sums of per-shard Gram matrices, exact leave-query-out errors
per alpha summed over the shards."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Optional, Union

import numpy as np
import scipy.linalg
from distributed import Client

from .. import _core
from .._validation import check_alphas
from ..models.rankrls import RankRLS as _RankRLS
from .predict import predict_linear
from .shards import _client, _ordered_sum, _sh, _Shards

__all__ = ["RankRLS"]


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

    def __init__(self, alpha: Union[float, Sequence[float], np.ndarray] = 1.0, *,
                 client: Optional[Client] = None) -> None:
        super().__init__(alpha=alpha)
        self.client = client

    def fit(self, X, y, qid=None):
        """Fit on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,)."""
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
        return predict_linear(self, X)
