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
from typing import Literal, Optional, Union

import numpy as np
import numpy.typing as npt
from sklearn.utils._param_validation import Interval, StrOptions

from .. import _core
from .._base import RankerMixin, warn_if_degenerate
from .._validation import MAX_INT, check_similarity, check_vector
from ..data.grouping import TrainingData
from ..data.uninformative import constant_columns, zero_features
from ..exceptions import warn_once
from ..models.linear import LinearPredictMixin, SparseLinearRankerMixin
from ..models.ranksvm import RankSVM
from ._base import FEATURE_GROUP_CONSTRAINTS, RankingSelector
from ._plan import FitPlan

__all__ = ["FSMRank", "FSMSVM", "pearson_importance", "pearson_similarity"]


def pearson_importance(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``s_j = |Pearson(X[:, j], y)|`` over all rows (0 for a constant column or constant y).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.fsmrank import pearson_importance
    >>> X = np.array([[1., 0.], [2., 1.], [3., 0.]])
    >>> pearson_importance(X, np.array([0., 1., 2.]))
    array([1., 0.])
    """
    Xc = X - X.mean(axis=0)
    yc = y - y.mean()
    num = Xc.T @ yc
    den = np.sqrt((Xc * Xc).sum(axis=0) * (yc @ yc))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(den > 0, np.abs(num) / den, 0.0)
    return np.clip(s, 0.0, 1.0)


def pearson_similarity(X: np.ndarray) -> np.ndarray:
    """``A_ij = |Pearson(X[:, i], X[:, j])|`` over all rows (``A_ii = 1``; 0 against a constant column).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.fsmrank import pearson_similarity
    >>> X = np.array([[1., 3., 0.], [2., 2., 1.], [3., 1., 0.]])
    >>> pearson_similarity(X).round(3)
    array([[1., 1., 0.],
           [1., 1., 0.],
           [0., 0., 1.]])
    """
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


_FSMRANK_CONSTRAINTS = {
    "lambda1": [Interval(numbers.Real, 0, None, closed="left")],
    "lambda2": [Interval(numbers.Real, 0, None, closed="left")],
    "importance": [StrOptions({"pearson"}), "array-like"],
    "similarity": [StrOptions({"pearson"}), "array-like"],
    "max_iter": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
    "tol": [Interval(numbers.Real, 0, None, closed="neither")],
    **FEATURE_GROUP_CONSTRAINTS,
}


class FSMRank(RankerMixin, SparseLinearRankerMixin, RankingSelector):
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
        Symmetric non-negative similarity ``A`` (e.g. absolute Kendall tau values);
        ``"pearson"``: ``|Pearson(x_i, x_j)|``. Signed matrices are taken in absolute value
        (as the doubling to ``[X, -X]`` requires).
    max_iter : int, default=400
    tol : float > 0, default=1e-4
        Relative objective change (Lai et al.'s rule) and relative KKT residual tolerance.
    feature_groups, select_groups : the selectors' groups (``selected_groups_``); FSMRank's
        penalty is per feature: it needs ``select_groups=False`` with groups. (It prices no
        feature: no ``feature_costs``, ``group_costs`` or ``budget``.)

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ``w+ - w-``; 0 for features constant on the training set.
    support_ : ndarray of bool, shape (n_features,)
    sparsity_ratio_ : float
        Non-zero coefficients / features not all-zero on the training rows (as
        :attr:`SparseRankSVM.sparsity_ratio_`; see :mod:`rankselect.data.uninformative`).
    doubled_coef_ : ndarray of shape (2 * n_features,)
        ``[w+, w-] >= 0``, the solution on the doubled features.
    importance_ : ndarray of shape (n_features,)
    similarity_ : ndarray of shape (n_features, n_features)
    constant_features_ : ndarray of int
    n_iter_ : int
    objective_ : float
        Final value of eq. (2).
    objective_history_ : ndarray of shape (n_iter + 1,)
        Objective at ``w0 = 0`` and after each iteration.
    converged_ : bool
    n_pairs_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
        Column names, when X was a DataFrame with string column names.

    Notes
    -----
    Training data without a preference pair or without a feature that varies inside a
    query warn with :class:`~rankselect.exceptions.DegenerateDataWarning`; the model is
    then all zeros (no feature selected, ``n_iter_ = 0``).

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> fsm = rs.FSMRank(lambda1=0.1, lambda2=0.01).fit(X, y, qid=qid)
    >>> fsm.selected_features_
    array([ 3, 11,  7,  4, 16,  9,  2, 14])
    >>> fsm.converged_
    True
    """

    coef_: np.ndarray
    support_: np.ndarray
    sparsity_ratio_: float
    doubled_coef_: np.ndarray
    importance_: np.ndarray
    similarity_: np.ndarray
    constant_features_: np.ndarray
    n_iter_: int
    objective_: float
    objective_history_: np.ndarray
    converged_: bool
    n_pairs_: int
    n_features_in_: int
    feature_names_in_: np.ndarray

    _parameter_constraints = dict(_FSMRANK_CONSTRAINTS)

    def __init__(self, lambda1: float = 0.1, lambda2: float = 0.01,
                 importance: Union[Literal["pearson"], npt.ArrayLike] = "pearson",
                 similarity: Union[Literal["pearson"], npt.ArrayLike] = "pearson", max_iter: int = 400,
                 tol: float = 1e-4, *, feature_groups=None, select_groups: bool = True) -> None:
        self.feature_groups, self.select_groups = feature_groups, select_groups
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
            A = check_similarity(self.similarity, n)
            A = np.abs(0.5 * (A + A.T))
        return s, A

    def fit(self, X, y, qid=None, *, accelerate=True):
        """Fit on ``X`` (m, n), ``y`` (m,), ``qid`` (m,).

        ``accelerate=False`` runs plain projected proximal gradient (benchmarks only).
        """
        return self._fit(self._validate_training_data(X, y, qid), accelerate=accelerate)

    def _fit(self, train: TrainingData, accelerate=True):
        plan = FitPlan.of(self, train, train.n_features)
        if plan.by_group:
            raise ValueError("FSMRank selects features (its L1 penalty is per feature and has no group "
                             "criterion): pass select_groups=False to keep feature_groups for "
                             "selected_groups_, or use FSMSVM or SparseRankSVM(penalty='group_lasso')")
        self._fit_features(train, accelerate)
        self._set_groups(plan)
        return self

    def _fit_features(self, train: TrainingData, accelerate=True):
        X, y = train.X, train.y  # input order: the Pearson measures sum over the rows as given
        lambda1, lambda2 = float(self.lambda1), float(self.lambda2)
        constant = constant_columns(X)
        has_pair, informative = warn_if_degenerate(self, train.grouped)
        if not (has_pair and informative):
            return self._set_zero_model(X.shape[1], constant)
        if constant.any():
            warn_once(
                f"FSMRank: {int(constant.sum())} feature(s) constant over the training set have no "
                f"correlation; their weights are fixed at 0 (0-based columns "
                f"{np.flatnonzero(constant).tolist()})", UserWarning, stacklevel=4)
        keep = np.flatnonzero(~constant)
        s, A = self._measures(X, y, keep)
        data = train.grouped.columns(keep)
        fit = _core.fsmrank(
            data.X, data.y, data.offsets, np.ascontiguousarray(A[np.ix_(keep, keep)]),
            np.ascontiguousarray(s[keep]), lambda1, lambda2, None, int(self.max_iter),
            float(self.tol), bool(accelerate))
        result, coef_k, n_pairs = fit.result, fit.coef, fit.n_pairs
        coef = np.zeros(X.shape[1])
        coef[keep] = coef_k
        w2 = np.asarray(result.coef)
        doubled = np.zeros(2 * X.shape[1])
        doubled[keep] = w2[: keep.size]
        doubled[X.shape[1] + keep] = w2[keep.size:]
        self.doubled_coef_ = doubled
        self.coef_ = coef
        self.support_ = coef != 0
        self.importance_ = s
        self.similarity_ = A
        self.constant_features_ = np.flatnonzero(constant)
        zero = zero_features(X)
        self.sparsity_ratio_ = float(self.support_[~zero].sum() / max(1, (~zero).sum()))
        self.objective_history_ = np.asarray(result.objective_history)
        self.objective_ = float(result.objective)  # FISTA's best iterate: the history's minimum
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.n_pairs_ = int(n_pairs)
        return self

    def _set_zero_model(self, n, constant):
        """The fitted state for degenerate data: the loss is constant, so w = 0."""
        self.doubled_coef_ = np.zeros(2 * n)
        self.coef_ = np.zeros(n)
        self.support_ = np.zeros(n, dtype=bool)
        self.importance_ = np.zeros(n)
        self.similarity_ = np.zeros((n, n))
        self.constant_features_ = np.flatnonzero(constant)
        self.sparsity_ratio_ = 0.0
        self.objective_history_ = np.zeros(1)
        self.objective_ = 0.0
        self.n_iter_ = 0
        self.converged_ = True
        self.n_pairs_ = 0
        return self


class FSMSVM(RankerMixin, LinearPredictMixin, RankingSelector):
    """FSMSVM (Lai et al. Section IV): the two-stage baseline — the top
    ``n_features_to_select`` features by ``|coef_|`` of :class:`FSMRank`, then
    :class:`rankselect.RankSVM` on them.

    Parameters
    ----------
    n_features_to_select : int >= 1, default=10
        Number of features kept (the paper's ``t``; fewer if FSMRank has fewer non-zero
        coefficients).
    lambda1, lambda2, importance, similarity, max_iter, tol : see :class:`FSMRank`.
    C : float > 0, default=1.0
        RankSVM regularisation.
    feature_groups, select_groups : with groups and ``select_groups=True``, the first
        ``n_features_to_select`` groups in the order FSMRank's ``|coef_|`` reaches them, whole.

    Attributes
    ----------
    fsmrank_ : FSMRank
    ranksvm_ : RankSVM or None
        Fitted on ``X[:, selected_features_]`` (None when nothing was selected).
    selected_features_ : ndarray of int
        Chosen features, by decreasing FSMRank ``|coef_|``.
    coef_ : ndarray of shape (n_features,)
        RankSVM weights placed back on all features (0 elsewhere).
    n_iter_ : int
        Iterations of the FSMRank stage (the one ``max_iter`` bounds).
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
        Column names, when X was a DataFrame with string column names.

    Notes
    -----
    Training data without a preference pair or without a feature that varies inside a
    query warn with :class:`~rankselect.exceptions.DegenerateDataWarning` (from the FSMRank
    stage); nothing is then selected and the model is all zeros.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> sel = rs.FSMSVM(n_features_to_select=3).fit(X, y, qid=qid)
    >>> sel.selected_features_
    array([ 3, 11,  7])
    >>> sel.coef_.shape
    (22,)
    """

    fsmrank_: FSMRank
    ranksvm_: Optional[RankSVM]
    selected_features_: np.ndarray
    coef_: np.ndarray
    n_iter_: int
    n_features_in_: int
    feature_names_in_: np.ndarray

    _parameter_constraints = {
        "n_features_to_select": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        **_FSMRANK_CONSTRAINTS,
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(self, n_features_to_select: int = 10, lambda1: float = 0.1, lambda2: float = 0.01,
                 importance: Union[Literal["pearson"], npt.ArrayLike] = "pearson",
                 similarity: Union[Literal["pearson"], npt.ArrayLike] = "pearson", max_iter: int = 400,
                 tol: float = 1e-4, C: float = 1.0, *, feature_groups=None, select_groups: bool = True) -> None:
        self.feature_groups, self.select_groups = feature_groups, select_groups
        self.n_features_to_select = n_features_to_select
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.importance = importance
        self.similarity = similarity
        self.max_iter = max_iter
        self.tol = tol
        self.C = C

    def fit(self, X, y, qid=None):
        """Fit on ``X`` (m, n), ``y`` (m,), ``qid`` (m,)."""
        return self._fit(self._validate_training_data(X, y, qid))

    def _fit(self, train: TrainingData):
        # the two stages are fitted on this fit's validated, grouped data
        fsmrank = FSMRank(lambda1=self.lambda1, lambda2=self.lambda2, importance=self.importance,
                          similarity=self.similarity, max_iter=self.max_iter, tol=self.tol)
        self.fsmrank_ = fsmrank._fit_validated(train)
        self.n_iter_ = self.fsmrank_.n_iter_
        plan = FitPlan.of(self, train, train.n_features)
        if plan.by_group:
            # groups by their strongest member: in the order in which FSMRank's |coef_| first
            # reaches them; the first n_features_to_select groups, all their members
            k = plan.n_to_select(self.n_features_to_select)
            sel = plan.columns(plan.units_of(self.fsmrank_.selected_features_)[:k])
        else:
            sel = self.fsmrank_.selected_features_[: int(self.n_features_to_select)]
        coef = np.zeros(train.n_features)
        if sel.size == 0:
            if self.fsmrank_.n_pairs_ > 0:  # not degenerate data (which FSMRank warned about)
                raise ValueError("FSMRank selected no feature: lower lambda2")
            self.ranksvm_ = None
        else:
            self.ranksvm_ = RankSVM(C=self.C)._fit_validated(train.columns(sel))
            coef[sel] = self.ranksvm_.coef_
        self.selected_features_ = sel
        self.coef_ = coef
        self._set_groups(plan)
        return self
