"""RankSVM on Dask arrays: the core's truncated Newton with the loss summed over shards."""
from __future__ import annotations

from typing import Literal, Optional, Union

import numpy as np
from distributed import Client

from .. import _core
from .._config import memory_limit
from ..models.ranksvm import RankSVM as _RankSVM
from ._contract import CLIENT_CONSTRAINT, DaskEstimatorMixin, DaskPredictMixin
from .pairwise import PairwiseLoss

__all__ = ["RankSVM"]


class RankSVM(DaskEstimatorMixin, DaskPredictMixin, _RankSVM):
    """:class:`rankselect.RankSVM` (linear) on Dask arrays, by the core's truncated Newton.

    The solver is the in-memory one (``rankselect_core::solvers::truncated_newton``: CG on
    generalized Hessian-vector products, exact line search, Chen et al. 2017 eqs. 24-25); it
    asks for the loss, its gradient, Hessian-vector products and line derivatives, and
    :class:`~rankselect.dask.pairwise.PairwiseLoss` answers them as sums over query shards
    (each request moves O(n) numbers per shard). Same parameters, validation, warnings and
    fitted attributes (``coef_``, ``n_iter_``, ``n_cg_iter_``, ``objective_``, ``n_pairs_``,
    ``n_features_in_``) as :class:`rankselect.RankSVM`, plus ``client``; the kernel maps
    (``kernel="nystroem"`` / ``"rff"``) are refused: apply the map to the Dask array first.
    The optimum is the in-memory one; the sums are taken in another order, so floats agree
    to rounding.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> model = rd.RankSVM(C=1.0).fit(X, y, qid)
    >>> model.coef_.shape
    (22,)
    >>> client.close()
    >>> cluster.close()
    """

    _parameter_constraints = {**_RankSVM._parameter_constraints, **CLIENT_CONSTRAINT}

    def __init__(self, C: float = 1.0, tol: float = 1e-6, max_iter: int = 100, max_cg_iter: int = 500, *,
                 kernel: Optional[Literal["nystroem", "rff"]] = None, n_components: int = 100,
                 gamma: Optional[float] = None, random_state: Union[int, np.random.RandomState, None] = None,
                 client: Optional[Client] = None) -> None:
        super().__init__(C=C, tol=tol, max_iter=max_iter, max_cg_iter=max_cg_iter, kernel=kernel,
                         n_components=n_components, gamma=gamma, random_state=random_state)
        self.client = client

    def fit(self, X, y, qid=None):
        """Fit on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,) chunked by whole queries."""
        self._validate_params()
        if self.kernel is not None:
            raise ValueError(f"rankselect.dask.RankSVM does not apply kernel maps (kernel={self.kernel!r}): "
                             "apply the map to the Dask array first (e.g. X.map_blocks(rankselect.Nystroem(...)"
                             ".fit(sample).transform)) and fit with kernel=None")
        shards = self._shards(X, y, qid)
        facts = self._warn_if_degenerate(shards)
        n = shards.n_features
        if not (facts.has_pair and facts.informative):
            result, n_cg, n_pairs = self._constant_loss(n, facts.n_pairs), 0, facts.n_pairs
        else:
            fit = _core.ranksvm_fit_with(
                PairwiseLoss(shards), n, float(self.C), float(self.tol), int(self.max_iter), int(self.max_cg_iter),
                max_memory=memory_limit())
            result, n_cg, n_pairs = fit.result, fit.n_cg_iter, fit.n_pairs
        self._set_result(result, n_cg, n_pairs)
        return self
