"""RankRLS and greedy RankRLS (Pahikkala et al. 2010) with exact leave-query-out selection.

RankRLS minimises the pairwise squared loss ``sum_q 1/(2 n_q) sum_{i,j in q} ((y_i - y_j) -
(f_i - f_j))^2 + alpha ||w||^2`` (eq. 3), which equals ``||L (y - X w)||^2 + alpha ||w||^2``
with ``L`` the query-wise centring matrix (eq. 4). Its solution (eq. 5) is ridge regression
on query-centred data: ``w = (Xc^T Xc + alpha I)^-1 Xc^T yc``.

Leave-query-out (LQO) cross-validation is exact and needs no refitting (Theorem 3.1):
deleting a query leaves the other queries' centring unchanged.
"""
from __future__ import annotations

import numbers
import sys

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._config import check_memory
from ._linear import LinearPredictMixin
from ._validation import check_positive, check_ranking_data
from .groups import QueryGroups

__all__ = ["RankRLS", "GreedyRankRLS"]


def _grouped(X, y, qid):
    """Validate, group rows by query; returns (Xg, yg, offsets, groups)."""
    X, y, qid = check_ranking_data(X, y, qid)
    m, n = X.shape
    # The grouped and the query-centred copies of X, the Gram matrix and its eigenvectors.
    check_memory(8 * (2 * m * n + 3 * n * n), f"RankRLS on {m} x {n} data (Gram matrix {n} x {n})",
                 "use fewer features or rows")
    groups = QueryGroups.from_qid(qid)
    if groups.n_queries < 2:
        raise ValueError(
            f"qid must hold at least two queries for leave-query-out, got {groups.n_queries}"
        )
    Xg = np.ascontiguousarray(groups.gather(X))
    yg = np.ascontiguousarray(groups.gather(y))
    return Xg, yg, groups.offsets.astype(np.int64), groups


def _check_alpha(alpha):
    """Return alpha as a 1-D float array (>= 1 values, each > 0) and whether it was a list."""
    if np.ndim(alpha) == 0:
        check_positive(alpha, "alpha")
        return np.array([float(alpha)]), False
    values = np.asarray(alpha, dtype=float).ravel()
    if values.size == 0:
        raise ValueError("alpha must hold at least one value")
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    return values, True


class RankRLS(LinearPredictMixin, BaseEstimator):
    """RankRLS: pairwise regularised least squares for ranking (linear, eq. 5).

    Parameters
    ----------
    alpha : float or sequence of float, default=1.0
        Ridge parameter (the paper's lambda), > 0. Given a sequence, the exact LQO error of
        every value is computed from one eigendecomposition of ``Xc^T Xc``
        (``lqo_errors_``) and the model of the best value is kept (``alpha_``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    alpha_ : float
        The alpha of ``coef_`` (the LQO-best one when ``alpha`` is a sequence).
    lqo_errors_ : ndarray of shape (n_alphas,)
        Exact LQO error (sum over queries of squared query-centred hold-out residuals) per
        alpha, in the order given.
    n_features_in_ : int
    """

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y, qid=None):
        """Fit on ``X`` (m, n), labels ``y`` (m,), query ids ``qid`` (m,)."""
        alphas, is_list = _check_alpha(self.alpha)
        Xg, yg, offsets, groups = _grouped(X, y, qid)
        errors, coefs = _core.rankrls_alpha_path(Xg, yg, offsets, alphas)
        best = int(np.argmin(errors))
        self.lqo_errors_ = np.asarray(errors)
        self.alpha_ = float(alphas[best])
        if is_list:
            self.coef_ = np.asarray(coefs[best])
        else:
            self.coef_ = np.asarray(_core.rankrls_fit(Xg, yg, offsets, self.alpha_))
        self.n_features_in_ = Xg.shape[1]
        self._train = (Xg, yg, offsets, groups)
        return self

    def lqo_predict(self):
        """Exact leave-query-out predictions on the training data, in input row order.

        Entry ``i`` is ``x_i @ w_{-q(i)}``, the score of row ``i`` by the RankRLS model (with
        ``alpha_``) trained on all queries except row ``i``'s own, without refitting
        (Theorem 3.1; primal form, O(m n^2 + sum_q n_q^2 n)).

        Returns
        -------
        ndarray of shape (m,)
        """
        check_is_fitted(self, "coef_")
        Xg, yg, offsets, groups = self._train
        _, pred, _, _ = _core.rankrls_lqo(Xg, yg, offsets, self.alpha_)
        return groups.scatter(np.asarray(pred))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        return tags


_CRITERIA_HINT = "'squared'"


class GreedyRankRLS(LinearPredictMixin, SelectorMixin, BaseEstimator):
    """Greedy RankRLS: forward feature selection by exact leave-query-out error (Algorithm 1).

    At each step, the feature whose addition gives the best exact LQO criterion is added
    (ties to the lowest feature index; selected features are never re-selected). With
    ``criterion="squared"`` (the paper) the criterion is the sum over queries of squared
    query-centred hold-out residuals, lower is better. One step costs O(m n) time; memory is
    three m x n float64 arrays.

    Parameters
    ----------
    n_features_to_select : int, default=10
        Number of features k, 1 <= k <= n_features.
    alpha : float, default=1.0
        Ridge parameter (the paper's lambda), > 0.
    criterion : str, default="squared"
        ``"squared"``: the paper's LQO pairwise squared loss (lower is better). Or a ranking
        measure of :mod:`rankselect.metrics` (``"ndcg@10"``, ``"map"``, ``"p@10"``,
        ``"meanndcg"``, ``"err@10"``, ...): the mean over queries of the measure of the
        exact LQO predictions (each query scored by the model trained without it); higher
        is better and the candidate maximising it is added. Labels must be >= 0.
    convention : {"standard", "letor"}, default="standard"
        Metric convention for a ranking-measure criterion (see :mod:`rankselect.metrics`).
    tol : float or None, default=None
        Early stop: after the first feature, stop before adding a feature whose criterion
        improves on the previous step's by less than ``tol * |previous|`` (relative). The
        selection then has fewer than ``n_features_to_select`` features.
    verbose : bool, default=False
        Print one line per step (feature, criterion) to stderr.

    Attributes
    ----------
    selected_features_ : ndarray of shape (k,)
        Selected features in order (0-based).
    lqo_errors_ : ndarray of shape (k,)
        Criterion value after each step (the LQO squared error, or the mean LQO ranking
        measure for a ranking criterion).
    coef_path_ : ndarray of shape (k, n_features)
        Row ``j``: RankRLS weights on the first ``j + 1`` selected features, zeros elsewhere.
    coef_ : ndarray of shape (n_features,)
        ``coef_path_[-1]``.
    n_features_in_ : int
    """

    def __init__(self, n_features_to_select=10, alpha=1.0, criterion="squared", convention="standard",
                 tol=None, verbose=False):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.criterion = criterion
        self.convention = convention
        self.tol = tol
        self.verbose = verbose

    def fit(self, X, y, qid=None):
        """Select features on ``X`` (m, n), labels ``y`` (m,), query ids ``qid`` (m,)."""
        k = self.n_features_to_select
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise TypeError(f"n_features_to_select must be an integer, got {k!r}")
        check_positive(self.alpha, "alpha")
        if self.tol is not None:
            check_positive(self.tol, "tol", strict=False)
        if not isinstance(self.criterion, str):
            raise TypeError(f"criterion must be a string, got {self.criterion!r}")
        Xg, yg, offsets, _ = _grouped(X, y, qid)
        n = Xg.shape[1]
        if not 1 <= k <= n:
            raise ValueError(f"n_features_to_select must be in [1, n_features={n}], got {k}")
        progress = None
        if self.verbose:
            name = self.criterion

            def progress(step, feature, value):
                print(f"[GreedyRankRLS] step {step + 1}/{k}: feature {feature} ({name} {value:.6g})",
                      file=sys.stderr, flush=True)

        selected, values, path = _core.greedy_rankrls(
            Xg, yg, offsets, int(k), float(self.alpha), self.criterion,
            None if self.tol is None else float(self.tol), progress, str(self.convention),
        )
        self.selected_features_ = np.asarray(selected, dtype=np.intp)
        self.lqo_errors_ = np.asarray(values)
        self.coef_path_ = np.asarray(path)
        self.coef_ = self.coef_path_[-1].copy()
        self.n_features_in_ = n
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "selected_features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

