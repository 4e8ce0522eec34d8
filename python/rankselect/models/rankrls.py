"""RankRLS (Pahikkala et al. 2010): pairwise regularised least squares with exact
leave-query-out errors.

RankRLS minimises the pairwise squared loss ``sum_q 1/(2 n_q) sum_{i,j in q} ((y_i - y_j) -
(f_i - f_j))^2 + alpha ||w||^2`` (eq. 3), which equals ``||L (y - X w)||^2 + alpha ||w||^2``
with ``L`` the query-wise centring matrix (eq. 4). Its solution (eq. 5) is ridge regression
on query-centred data: ``w = (Xc^T Xc + alpha I)^-1 Xc^T yc``.

Leave-query-out (LQO) cross-validation is exact and needs no refitting (Theorem 3.1):
deleting a query leaves the other queries' centring unchanged.
"""
from __future__ import annotations

import hashlib
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

import numpy as np
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .. import _core
from .._base import RankerMixin, RankingEstimator, warn_if_degenerate
from .._config import check_memory
from .._validation import check_alphas, check_ranking_data
from ..data.grouping import GroupedData, TrainingData
from .linear import LinearPredictMixin

__all__ = ["RankRLS", "RankRLSPath", "group_for_lqo", "check_lqo"]


def check_lqo(data: GroupedData, *, gram: bool = True) -> GroupedData:
    """``data`` when leave-query-out applies (at least two queries); ``gram``: also check
    the memory of RankRLS's solve (greedy RankRLS checks its own caches in the core).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import GroupedData
    >>> from rankselect.models.rankrls import check_lqo
    >>> one_query = GroupedData.from_arrays(np.eye(3), np.array([1., 0., 2.]), np.array([7, 7, 7]))
    >>> try:
    ...     check_lqo(one_query)
    ... except ValueError as exc:
    ...     print("ValueError:", str(exc).split(";")[0])
    ...
    ValueError: qid must hold at least two queries for leave-query-out, got 1 (n_samples=3)
    """
    m, n = data.X.shape
    if gram:
        if n > m:  # the core's dual form (rankrls/dual.rs): X's centred copy and its transpose, K, U, Z
            check_memory(8 * (2 * m * n + 3 * m * m), f"RankRLS on {m} x {n} data (dual kernel matrix {m} x {m})",
                         "use fewer rows (queries)")
        else:  # the grouped and the query-centred copies of X, the Gram matrix and its eigenvectors
            check_memory(8 * (2 * m * n + 3 * n * n), f"RankRLS on {m} x {n} data (Gram matrix {n} x {n})",
                         "use fewer features")
    if data.n_queries < 2:
        raise ValueError(
            f"qid must hold at least two queries for leave-query-out, got {data.n_queries} "
            f"(n_samples={m})"
        )
    return data


def group_for_lqo(X, y, qid, *, gram: bool = True) -> GroupedData:
    """Validate ``(X, y, qid)``, group the rows by query and :func:`check_lqo` them.

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.models.rankrls import group_for_lqo
    >>> data = group_for_lqo(*rs.data.datasets.load_example("train"))
    >>> data.offsets.shape  # 40 queries: 41 offsets
    (41,)
    """
    return check_lqo(GroupedData.from_arrays(*check_ranking_data(X, y, qid)), gram=gram)


@dataclass(frozen=True)
class RankRLSPath:
    """RankRLS models for several ridge parameters, from one eigendecomposition
    (:meth:`RankRLS.path`).

    Attributes
    ----------
    alphas : ndarray of shape (n_alphas,)
        The ridge parameters, in the order given.
    coefs : ndarray of shape (n_alphas, n_features)
        Row ``i``: the RankRLS weights for ``alphas[i]`` (eq. 5).
    lqo_errors : ndarray of shape (n_alphas,)
        Exact leave-query-out error of each model (Theorem 3.1, eq. 7: sum over queries of
        squared query-centred hold-out residuals; lower is better).

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> path = rs.RankRLS().path(X, y, qid, alphas=[0.1, 1.0, 10.0])
    >>> path.coefs.shape
    (3, 22)
    >>> path.lqo_errors.round(2)
    array([199.51, 199.44, 199.21])
    """

    alphas: np.ndarray
    coefs: np.ndarray
    lqo_errors: np.ndarray

    @property
    def best_index(self) -> int:
        """Index of the LQO-best alpha (the first one on ties), as ``RankRLS(alpha=list)`` keeps."""
        return int(np.argmin(self.lqo_errors))


def _alpha_path(data: GroupedData, alphas: np.ndarray) -> RankRLSPath:
    """The core's alpha path (``_core.rankrls_alpha_path``) on grouped data."""
    errors, coefs = _core.rankrls_alpha_path(data.X, data.y, data.offsets, alphas)
    n = data.X.shape[1]
    return RankRLSPath(alphas=np.asarray(alphas, dtype=float),
                       coefs=np.asarray(coefs, dtype=float).reshape(len(alphas), n),
                       lqo_errors=np.asarray(errors, dtype=float))


def _fingerprint(X, y, qid) -> str:
    """A digest of the training data (so that ``lqo_predict`` can check it gets them again)."""
    h = hashlib.blake2b(digest_size=16)
    for a in (X, y, qid):
        a = np.ascontiguousarray(a)
        h.update(str(a.shape).encode())
        h.update(a.data)
    return h.hexdigest()


class RankRLS(RankerMixin, LinearPredictMixin, RankingEstimator):
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
        alpha, in the order given (lower is better).
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
        Column names, when X was a DataFrame with string column names.

    Notes
    -----
    The fitted model keeps only what prediction needs (``coef_``), not the training data:
    :meth:`lqo_predict` takes the training data again. ``score(X, y, qid)`` is the mean
    NDCG@10 (standard convention). Training data without a preference pair or without a
    feature that varies inside a query warn with
    :class:`~rankselect.exceptions.DegenerateDataWarning` (the weights are then zero).

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> model = rs.RankRLS(alpha=[0.1, 1.0, 10.0]).fit(X, y, qid=qid)
    >>> model.alpha_
    10.0
    >>> model.lqo_errors_.round(2)
    array([199.51, 199.44, 199.21])
    >>> round(model.score(X, y, qid=qid), 4)
    0.9101
    """

    coef_: np.ndarray
    alpha_: float
    lqo_errors_: np.ndarray
    n_features_in_: int
    feature_names_in_: np.ndarray

    _parameter_constraints = {"alpha": [Interval(numbers.Real, 0, None, closed="neither"), "array-like"]}

    def __init__(self, alpha: Union[float, Sequence[float], np.ndarray] = 1.0) -> None:
        self.alpha = alpha

    def fit(self, X, y, qid=None):
        """Fit on ``X`` (m, n), labels ``y`` (m,), query ids ``qid`` (m,).

        With a sequence ``alpha``, the model of the LQO-best value on :meth:`path`; with a
        scalar, the direct solve of eq. 5 (a Cholesky factorisation) and its LQO error.
        """
        return self._fit(self._validate_training_data(X, y, qid))

    def _fit(self, train: TrainingData):
        alphas, is_list = check_alphas(self.alpha)
        warn_if_degenerate(self, train.grouped)
        data = check_lqo(train.grouped)
        path = _alpha_path(data, alphas)
        best = path.best_index
        self.lqo_errors_ = path.lqo_errors
        self.alpha_ = float(alphas[best])
        if is_list:
            self.coef_ = path.coefs[best].copy()
        else:
            self.coef_ = np.asarray(_core.rankrls_fit(data.X, data.y, data.offsets, self.alpha_))
        self._train_digest = _fingerprint(train.X, train.y, train.qid)
        return self

    def path(self, X, y, qid=None, alphas=None) -> RankRLSPath:
        """RankRLS weights and exact LQO errors for every alpha, from one eigendecomposition.

        ``Xc^T Xc = V diag(s) V^T`` is factorised once; then for each alpha the weights are
        ``w = V diag(1 / (s + alpha)) V^T Xc^T yc`` (eq. 5) and the exact leave-query-out error
        follows without refitting (Theorem 3.1, eq. 7). Cost: O(m n^2 + n^3) once, then
        O(m n + sum_q n_q^3) per alpha. With more features than rows (``n > m``) the same
        weights and errors come from the dual, ``Xc Xc^T = U diag(s) U^T`` and
        ``w = Xc^T U diag(1 / (s + alpha)) U^T yc``: O(m^2 n + m^3) once (``fit`` with a scalar
        alpha likewise solves ``(Xc Xc^T + alpha I) c = yc``, ``w = Xc^T c``). The estimator
        is not fitted or changed.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        y : array-like of shape (m,)
        qid : array-like of shape (m,)
            At least two queries.
        alphas : float or array-like of shape (n_alphas,), default=None
            Ridge parameters (> 0). Default: the estimator's ``alpha``.

        Returns
        -------
        RankRLSPath
            ``alphas`` (n_alphas,), ``coefs`` (n_alphas, n_features), ``lqo_errors``
            (n_alphas,) and ``best_index`` (the model ``RankRLS(alpha=alphas)`` keeps).
        """
        if alphas is None:
            self._validate_params()
            alphas = self.alpha
        alphas, _ = check_alphas(alphas, "alphas")
        return _alpha_path(group_for_lqo(X, y, qid), alphas)

    def lqo_predict(self, X, y, qid):
        """Exact leave-query-out predictions on the training data, in input row order.

        Entry ``i`` is ``x_i @ w_{-q(i)}``, the score of row ``i`` by the RankRLS model (with
        ``alpha_``) trained on all queries except row ``i``'s own, without refitting
        (Theorem 3.1; primal form, O(m n^2 + sum_q n_q^2 n)). The model does not keep its
        training data (a pickled RankRLS holds only its weights), so pass them again.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        y : array-like of shape (m,)
        qid : array-like of shape (m,)
            The data given to :meth:`fit`, unchanged (checked; ValueError otherwise).

        Returns
        -------
        ndarray of shape (m,)
        """
        check_is_fitted(self, "coef_")
        X = self._validate_X(X, reset=False)
        _, y, qid = check_ranking_data(X, y, qid)
        if _fingerprint(X, y, qid) != self._train_digest:
            raise ValueError("lqo_predict needs the training data: X, y and qid must be those "
                             "given to fit (leave-query-out predictions exist only for them)")
        data = check_lqo(GroupedData.from_arrays(X, y, qid))
        lqo = _core.rankrls_lqo(data.X, data.y, data.offsets, self.alpha_)
        return data.scatter(np.asarray(lqo.predictions))
