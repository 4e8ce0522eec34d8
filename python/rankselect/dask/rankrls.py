"""RankRLS on Dask arrays: the core's alpha path in pieces that are sums over shards."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import numpy as np
from distributed import Client

from .. import _core
from .._validation import check_alphas
from ..models.rankrls import RankRLS as _RankRLS
from ..models.rankrls import RankRLSPath
from ._contract import CLIENT_CONSTRAINT, DaskEstimatorMixin, DaskPredictMixin, check_lqo_queries
from .shards import _ordered_sum, _own, _sh, _Shards

__all__ = ["RankRLS"]


def _gram(shard):
    s = _sh(shard)
    return _core.rankrls_gram(s["X"], s["y"], s["offsets"])


def _targets(shard, V):
    s = _sh(shard)
    return _core.rankrls_projected_targets(s["X"], s["y"], s["offsets"], _own(V))


def _lqo_errors(shard, V, sv, zy, alphas):
    s = _sh(shard)
    return _core.rankrls_lqo_errors(s["X"], s["y"], s["offsets"], _own(V), _own(sv), _own(zy), _own(alphas))


def _pieces(shards: _Shards, alphas: np.ndarray):
    """``(G, b, path)``: the sums ``Xc^T Xc``, ``Xc^T yc`` and the alpha path (module
    ``rankselect_core::models::rankrls::path``: (a) Gram sums, (b) eigendecomposition and
    weights, (c) LQO errors, each per-shard part added in shard order)."""
    parts = shards.map(_gram)
    G, b = _ordered_sum([g for g, _ in parts]), _ordered_sum([v for _, v in parts])
    sv, V = _core.rankrls_eigen(G)
    zy = _ordered_sum(shards.map(_targets, V))
    coefs = _core.rankrls_path_weights(V, sv, zy, alphas)
    errors = _ordered_sum(shards.map(_lqo_errors, V, sv, zy, alphas))
    return G, b, RankRLSPath(alphas=np.asarray(alphas, dtype=float), coefs=np.asarray(coefs), lqo_errors=errors)


class RankRLS(DaskEstimatorMixin, DaskPredictMixin, _RankRLS):
    """:class:`rankselect.RankRLS` on Dask arrays (chunks of whole queries).

    The alpha path of the core in its three pieces (Pahikkala et al. 2010, eq. 5 and
    Theorem 3.1 / eq. 7): per-shard ``Xc^T Xc`` and ``Xc^T yc`` (centring is per query, so
    per shard), one eigendecomposition of their sum, per-shard LQO errors per alpha, the
    parts added in shard order; with one alpha, the weights by the core's Cholesky solve on
    the summed ``(Xc^T Xc + alpha I, Xc^T yc)``. Same parameters, validation, warnings and
    fitted attributes (``coef_``, ``alpha_``, ``lqo_errors_``, ``n_features_in_``) as
    :class:`rankselect.RankRLS`, plus ``client``; :meth:`path` works on Dask arrays;
    ``lqo_predict`` (one prediction per training row) is in-memory only.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> model = rd.RankRLS(alpha=1.0).fit(X, y, qid)
    >>> model.coef_.shape
    (22,)
    >>> client.close()
    >>> cluster.close()
    """

    _parameter_constraints = {**_RankRLS._parameter_constraints, **CLIENT_CONSTRAINT}

    def __init__(self, alpha: Union[float, Sequence[float], np.ndarray] = 1.0, *,
                 client: Union[Client, None] = None) -> None:
        super().__init__(alpha=alpha)
        self.client = client

    def fit(self, X, y, qid=None):
        """Fit on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,) chunked by whole queries."""
        self._validate_params()
        alphas, is_list = check_alphas(self.alpha)
        shards = self._shards(X, y, qid)
        self._warn_if_degenerate(shards)
        check_lqo_queries(shards)
        G, b, path = _pieces(shards, alphas)
        best = path.best_index
        self.lqo_errors_ = path.lqo_errors
        self.alpha_ = float(alphas[best])
        self.coef_ = path.coefs[best].copy() if is_list else np.asarray(_core.rankrls_solve(G, b, self.alpha_))
        return self

    def path(self, X, y, qid=None, alphas=None) -> RankRLSPath:
        """:meth:`rankselect.RankRLS.path` on Dask arrays (the estimator is not changed)."""
        if alphas is None:
            self._validate_params()
            alphas = self.alpha
        alphas, _ = check_alphas(alphas, "alphas")
        return _pieces(check_lqo_queries(self._shards(X, y, qid, reset=False)), alphas)[2]

    def lqo_predict(self, X, y, qid):
        """Not on Dask arrays (NotImplementedError): use :class:`rankselect.RankRLS`."""
        raise NotImplementedError("lqo_predict is not available on rankselect.dask.RankRLS; "
                                  "use rankselect.RankRLS on data that fits in memory")
