"""FSMRank (Lai et al. 2013): joint feature selection and ranking, and the FSMSVM baseline.

FSMRank solves eq. (2) on the doubled features ``[X, -X]`` with ``w = [w+, w-] >= 0``::

    lambda1/2 · wᵀ Ā w + lambda2 · Σ_i w_i / s̄_i + (1/|P|) · L(w+ - w-)

with ``L`` the pairwise squared hinge, ``s = |Pearson(feature, y)|`` (importance) and
``A = |Pearson(feature, feature)|`` (similarity), both over all training documents (queries
ignored, Section III-B). Absolute measures do not change when a feature is negated, so the
doubled measures are ``s̄ = [s, s]`` and ``Ā = [[A, A], [A, A]]``. Solved by Alg. 1
(accelerated projected gradient with Nemirovski's line search, closed-form projection, ``L0``
from Theorem 1) in the Rust core. ``coef_ = w+ - w-``.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._validation import check_matrix, check_positive, check_ranking_data, check_vector
from ._linear import LinearPredictMixin, SparseLinearRankerMixin
from .groups import GroupedData
from .uninformative import zero_features
from .sparse import _constant_columns


def _check_nonneg(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return float(value)


def pearson_importance(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``s_j = |Pearson(X[:, j], y)|`` over all rows (0 for a constant column or constant y)."""
    Xc = X - X.mean(axis=0)
    yc = y - y.mean()
    num = Xc.T @ yc
    den = np.sqrt((Xc * Xc).sum(axis=0) * (yc @ yc))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(den > 0, np.abs(num) / den, 0.0)
    return np.clip(s, 0.0, 1.0)


def pearson_similarity(X: np.ndarray) -> np.ndarray:
    """``A_ij = |Pearson(X[:, i], X[:, j])|`` over all rows (``A_ii = 1``; 0 against a constant column)."""
    Xc = X - X.mean(axis=0)
    norms = np.sqrt((Xc * Xc).sum(axis=0))
    safe = np.where(norms > 0, norms, 1.0)
    Z = Xc / safe
    A = np.abs(Z.T @ Z)
    A[norms == 0, :] = 0.0
    A[:, norms == 0] = 0.0
    np.fill_diagonal(A, 1.0)
    A = np.clip(0.5 * (A + A.T), 0.0, 1.0)
    return A


class FSMRank(SparseLinearRankerMixin, SelectorMixin, BaseEstimator):
    """FSMRank: feature selection for ranking by importance/similarity-regularised RankSVM.

    Parameters
    ----------
    lambda1 : float >= 0, default=0.1
        Weight of the similarity (redundancy) term ``wᵀ Ā w / 2``.
    lambda2 : float >= 0, default=0.01
        Weight of the importance-weighted L1 term ``Σ w_i / s_i``.
    importance : "pearson" or array-like of shape (n_features,)
        Non-negative importance ``s`` (e.g. GAS importance); ``"pearson"``: ``|Pearson(x_j, y)|``.
    similarity : "pearson" or array-like of shape (n_features, n_features)
        Symmetric non-negative similarity ``A`` (e.g. a |Kendall tau| matrix);
        ``"pearson"``: ``|Pearson(x_i, x_j)|``. Signed matrices are taken in absolute value
        (as the doubling to ``[X, -X]`` requires).
    max_iter : int, default=400
    tol : float > 0, default=1e-4
        Relative objective change (Lai et al.'s rule) and relative KKT residual tolerance.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ``w+ - w-``; 0 for features constant on the training set.
    support_ : ndarray of bool, shape (n_features,)
    sparsity_ratio_ : float
        Non-zero coefficients / features not all-zero on the training rows (as
        :attr:`SparseRankSVM.sparsity_ratio_`; see :mod:`rankselect.uninformative`).
    doubled_coef_ : ndarray of shape (2 * n_features,)
        ``[w+, w-] >= 0``, the solution on the doubled features.
    importance_ : ndarray of shape (n_features,)
    similarity_ : ndarray of shape (n_features, n_features)
    constant_features_ : ndarray of int
    n_iter_ : int
    objective_ : float
        Final value of eq. (2).
    objective_history_ : ndarray of shape (n_iter_ + 1,)
        Objective at ``w0 = 0`` and after each iteration.
    converged_ : bool
    n_pairs_ : int
    """

    __metadata_request__fit = {"qid": True}

    def __init__(self, lambda1=0.1, lambda2=0.01, importance="pearson", similarity="pearson",
                 max_iter=400, tol=1e-4):
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.importance = importance
        self.similarity = similarity
        self.max_iter = max_iter
        self.tol = tol

    def _measures(self, X, y, keep):
        n = X.shape[1]
        if isinstance(self.importance, str):
            if self.importance != "pearson":
                raise ValueError(f"importance must be 'pearson' or an array, got {self.importance!r}")
            s = np.zeros(n)
            s[keep] = pearson_importance(X[:, keep], y)
        else:
            s = check_vector(self.importance, "importance")
            if s.shape[0] != n:
                raise ValueError(f"importance has {s.shape[0]} entries but X has {n} features")
            if (s < 0).any():
                raise ValueError("importance must be >= 0")
        if isinstance(self.similarity, str):
            if self.similarity != "pearson":
                raise ValueError(f"similarity must be 'pearson' or an array, got {self.similarity!r}")
            A = np.zeros((n, n))
            A[np.ix_(keep, keep)] = pearson_similarity(X[:, keep])
        else:
            A = check_matrix(self.similarity, "similarity")
            if A.shape != (n, n):
                raise ValueError(f"similarity must have shape ({n}, {n}), got {A.shape}")
            if not np.allclose(A, A.T, rtol=1e-10, atol=1e-12):
                raise ValueError("similarity must be symmetric")
            A = np.abs(0.5 * (A + A.T))
        return s, A

    def fit(self, X, y, qid=None, *, accelerate=True):
        """Fit on ``X`` (m, n), ``y`` (m,), ``qid`` (m,).

        ``accelerate=False`` runs plain projected proximal gradient (benchmarks only).
        """
        X, y, qid = check_ranking_data(X, y, qid)
        lambda1 = _check_nonneg(self.lambda1, "lambda1")
        lambda2 = _check_nonneg(self.lambda2, "lambda2")
        check_positive(self.max_iter, "max_iter", integer=True)
        check_positive(self.tol, "tol")
        constant = _constant_columns(X)
        if constant.all():
            raise ValueError("X: every feature is constant over the training set; FSMRank needs "
                             "at least one feature with a correlation")
        if constant.any():
            warnings.warn(
                f"FSMRank: {int(constant.sum())} feature(s) constant over the training set have no "
                f"correlation; their weights are fixed at 0 (0-based columns "
                f"{np.flatnonzero(constant).tolist()})", UserWarning, stacklevel=2)
        keep = np.flatnonzero(~constant)
        s, A = self._measures(X, y, keep)
        data = GroupedData.from_arrays(X, y, qid).columns(keep)
        coef_k, w2, n_iter, hist, conv, n_pairs = _core.fsmrank(
            data.X, data.y, data.offsets, np.ascontiguousarray(A[np.ix_(keep, keep)]),
            np.ascontiguousarray(s[keep]), lambda1, lambda2, None, int(self.max_iter),
            float(self.tol), bool(accelerate))
        coef = np.zeros(X.shape[1])
        coef[keep] = coef_k
        w2 = np.asarray(w2)
        doubled = np.zeros(2 * X.shape[1])
        doubled[keep] = w2[: keep.size]
        doubled[X.shape[1] + keep] = w2[keep.size:]
        self.doubled_coef_ = doubled
        self.coef_ = coef
        self.support_ = coef != 0
        self.n_features_in_ = X.shape[1]
        self.importance_ = s
        self.similarity_ = A
        self.constant_features_ = np.flatnonzero(constant)
        zero = zero_features(X)
        self.sparsity_ratio_ = float(self.support_[~zero].sum() / max(1, (~zero).sum()))
        hist = np.asarray(hist)
        self.objective_history_ = hist
        self.objective_ = float(hist.min())
        self.n_iter_ = int(n_iter)
        self.converged_ = bool(conv)
        self.n_pairs_ = int(n_pairs)
        return self



class FSMSVM(SelectorMixin, BaseEstimator):
    """FSMSVM (Lai et al. Section IV): the two-stage baseline — the top ``t`` features by
    ``|coef_|`` of :class:`FSMRank`, then :class:`rankselect.RankSVM` on them.

    Parameters
    ----------
    t : int >= 1
        Number of features kept (fewer if FSMRank has fewer non-zero coefficients).
    lambda1, lambda2, importance, similarity, max_iter, tol : see :class:`FSMRank`.
    C : float > 0, default=1.0
        RankSVM regularisation.

    Attributes
    ----------
    fsmrank_ : FSMRank
    ranksvm_ : RankSVM
        Fitted on ``X[:, selected_features_]``.
    selected_features_ : ndarray of int
        Chosen features, by decreasing FSMRank ``|coef_|``.
    coef_ : ndarray of shape (n_features,)
        RankSVM weights placed back on all features (0 elsewhere).
    """

    __metadata_request__fit = {"qid": True}

    def __init__(self, t=10, lambda1=0.1, lambda2=0.01, importance="pearson", similarity="pearson",
                 max_iter=400, tol=1e-4, C=1.0):
        self.t = t
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.importance = importance
        self.similarity = similarity
        self.max_iter = max_iter
        self.tol = tol
        self.C = C

    def fit(self, X, y, qid=None):
        from .ranksvm import RankSVM

        check_positive(self.t, "t", integer=True)
        check_positive(self.C, "C")
        X, y, qid = check_ranking_data(X, y, qid)
        self.fsmrank_ = FSMRank(lambda1=self.lambda1, lambda2=self.lambda2, importance=self.importance,
                                similarity=self.similarity, max_iter=self.max_iter,
                                tol=self.tol).fit(X, y, qid=qid)
        sel = self.fsmrank_.selected_features_[: int(self.t)]
        if sel.size == 0:
            raise ValueError("FSMRank selected no feature: lower lambda2")
        self.selected_features_ = sel
        self.ranksvm_ = RankSVM(C=self.C).fit(X[:, sel], y, qid=qid)
        coef = np.zeros(X.shape[1])
        coef[sel] = self.ranksvm_.coef_
        self.coef_ = coef
        self.n_features_in_ = X.shape[1]
        return self

    predict = LinearPredictMixin.predict

    def _get_support_mask(self):
        check_is_fitted(self, "coef_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask
