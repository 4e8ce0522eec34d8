"""SparseRankSVM on Dask arrays: the core's solvers with the loss summed over shards."""
from __future__ import annotations

from typing import Literal, Optional, Union

import numpy as np
import numpy.typing as npt
from distributed import Client

from .. import _core
from .._config import memory_limit
from .._validation import check_vector
from ..models.penalties import Penalty
from ..selection import FitPlan
from ..selection.sparse_ranksvm import PenaltyName
from ..selection.sparse_ranksvm import SparseRankSVM as _SparseRankSVM
from ._contract import CLIENT_CONSTRAINT, DaskEstimatorMixin, DaskPredictMixin
from .pairwise import PairwiseLoss

__all__ = ["SparseRankSVM"]


class SparseRankSVM(DaskEstimatorMixin, DaskPredictMixin, _SparseRankSVM):
    """:class:`rankselect.SparseRankSVM` on Dask arrays, by the core's solvers.

    Minimises ``Ω(w) + C L(w)`` (Laporte et al. 2014, eqs. 7 and 12) with the in-memory
    solvers (``rankselect_core::models::sparse_ranksvm::fit_with``: proximal Newton or
    FISTA, reweighted L1 for the non-convex penalties; every penalty of
    :mod:`rankselect.models.penalties`, the group penalties with ``solver="fista"``); they ask for the
    loss, its gradient, generalized Hessian blocks and a Lipschitz bound, and
    :class:`~rankselect.dask.pairwise.PairwiseLoss` answers them as sums over query shards.
    Same parameters (``weights`` and ``feature_costs`` included), validation, warnings and
    fitted attributes as :class:`rankselect.SparseRankSVM`, plus ``client``; ``fit`` takes
    ``coef_init``. The regularisation path (:meth:`path`, :meth:`c_min`) is in-memory only.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> model = rd.SparseRankSVM(C=0.05).fit(X, y, qid)
    >>> model.selected_features_[:3]
    array([ 3, 11,  7])
    >>> client.close()
    >>> cluster.close()
    """

    _parameter_constraints = {**_SparseRankSVM._parameter_constraints, **CLIENT_CONSTRAINT}

    def __init__(self, C: float = 1.0, penalty: Union[PenaltyName, Penalty] = "l1", p: Optional[float] = None,
                 epsilon: Optional[float] = None, mcp_gamma: Optional[float] = None,
                 weights: Optional[npt.ArrayLike] = None, max_iter: int = 5000, max_reweightings: int = 10,
                 tol: float = 1e-6, solver: Literal["prox-newton", "fista"] = "prox-newton",
                 feature_costs: Optional[npt.ArrayLike] = None, *, l1_ratio: Optional[float] = None,
                 feature_groups=None, select_groups: bool = True,
                 client: Optional[Client] = None) -> None:
        super().__init__(C=C, penalty=penalty, p=p, epsilon=epsilon, mcp_gamma=mcp_gamma, weights=weights,
                         max_iter=max_iter, max_reweightings=max_reweightings, tol=tol, solver=solver,
                         feature_costs=feature_costs, l1_ratio=l1_ratio, feature_groups=feature_groups,
                         select_groups=select_groups)
        self.client = client

    def fit(self, X, y, qid=None, *, coef_init=None):
        """Fit on Dask arrays ``X`` (m, n), ``y`` (m,), ``qid`` (m,) chunked by whole queries.

        ``coef_init`` (n,) warm-starts the solver.
        """
        self._validate_params()
        shards = self._shards(X, y, qid)
        facts = self._warn_if_degenerate(shards)
        n = shards.n_features
        plan = FitPlan.of(self, shards, n)
        penalty = self._check_params(plan)
        w0 = None if coef_init is None else check_vector(coef_init, "coef_init", n=n)
        constant, zero = facts.low == facts.high, (facts.low == 0) & (facts.high == 0)
        if not (facts.has_pair and facts.informative):
            # the loss is constant: the minimiser is w = 0 (nothing to solve)
            result = _core.SolverResult(np.zeros(n), 0.0, np.zeros(1), 0.0, 0, True)
            self._set_fitted(result, 0, constant, zero, plan)
            return self
        fit = _core.sparse_ranksvm_with(
            PairwiseLoss(shards), n, float(self.C), penalty, w0, int(self.max_iter), int(self.max_reweightings),
            float(self.tol), self.solver, max_memory=memory_limit())
        self._set_fitted(fit.result, fit.n_reweightings, constant, zero, plan)
        return self

    def c_min(self, X, y, qid) -> float:
        """Not on Dask arrays (NotImplementedError): use :class:`rankselect.SparseRankSVM`."""
        raise NotImplementedError("rankselect.dask.SparseRankSVM has no c_min / path: fit it for each C, or use "
                                  "rankselect.SparseRankSVM on data that fit in memory")

    def path(self, X, y, qid=None, Cs=None, n_Cs: int = 10, ratio: float = 1e3):
        """Not on Dask arrays (NotImplementedError): use :class:`rankselect.SparseRankSVM`."""
        return self.c_min(X, y, qid)
