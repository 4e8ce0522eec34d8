"""Sparse RankSVM (Laporte et al. 2014): ``Ω(w) + C·L(w)`` with ``L`` the pairwise squared hinge,
``L(w) = sum over preference pairs (same query, y_i > y_j) of max(0, 1 - w·(x_i - x_j))^2``
(eq. 7), and ``Ω`` a penalty object of :mod:`rankselect.models.penalties` (or its string
shorthand):

- ``L1()`` (``"l1"``): ``||w||_1``, or with ``weights=beta`` ``sum_j beta_j |w_j|`` (eq. 12), by
  proximal Newton with a working set (``solver="prox-newton"``, the default: newGLMNET-style, a
  few Newton steps on the generalised Hessian) or by FISTA with backtracking
  (``solver="fista"``, the paper's Alg. 1);
- ``Log()``, ``MCP()``, ``Lp()`` (``"log"``, ``"mcp"``, ``"lp"``): ``sum_j g(|w_j|)`` by reweighted
  L1 (Alg. 2, Table II): ``g(u) = log(1 + u/epsilon)``; MCP with ``lambda = 1/C``:
  ``g'(u) = max(1 - u/(gamma·lambda), 0)``; ``lp``: ``g'(u) = p·max(u, epsilon)^(p-1)`` (the
  derivative capped at ``u = epsilon``, so coefficients at zero can re-enter);
- ``GroupLasso()`` (``"group_lasso"``, with ``feature_groups``): ``sum_g sqrt(|g|) ||w_g||_2``
  (Yuan & Lin 2006 eq. (2.1)), and ``SparseGroupLasso(l1_ratio=rho)``
  (``"sparse_group_lasso"``): ``sum_g (rho ||w_g||_1 + (1 - rho) sqrt(|g|) ||w_g||_2)`` (Simon et
  al. 2013 eq. (1)), by FISTA (``solver="fista"``; the prox is soft thresholding by ``t·rho``
  then the block shrink ``w_g <- max(0, 1 - t (1 - rho) sqrt(|g|) / ||w_g||) w_g``): a group
  enters or leaves the model as a block; proximal Newton's inner solver works by coordinates
  and refuses it.

The solvers run in the Rust core with the GIL released (Ctrl-C interrupts them).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Literal, Optional, Union

import numpy as np
import numpy.typing as npt
from sklearn.utils._param_validation import Interval, StrOptions

from .. import _core
from .._base import RankerMixin, warn_if_degenerate
from .._validation import MAX_INT, check_positive, check_vector
from ..data.grouping import GroupedData, TrainingData
from ..data.uninformative import constant_columns, zero_features
from ..models import penalties
from ..models.linear import SparseLinearRankerMixin
from ..models.penalties import L1, Penalty, check_penalty
from ._base import FEATURE_GROUP_CONSTRAINTS, RankingSelector
from ._plan import FitPlan

__all__ = ["SparseRankSVM", "SparsePath", "sparse_path", "PENALTIES", "SOLVERS"]

#: the string shorthands of the penalties (:data:`rankselect.models.penalties.PENALTIES`)
PENALTIES = tuple(penalties.PENALTIES)
SOLVERS = ("prox-newton", "fista")
PenaltyName = Literal["l1", "log", "mcp", "lp", "group_lasso", "sparse_group_lasso"]


@dataclass(frozen=True)
class SparsePath:
    """Models along a regularisation path (increasing ``C`` = decreasing regularisation).

    Attributes
    ----------
    Cs : ndarray of shape (n_Cs,)
    coefs : ndarray of shape (n_Cs, n_features)
    n_selected : ndarray of shape (n_Cs,)
        Number of non-zero coefficients of each model.
    objectives : ndarray of shape (n_Cs,)
        Final objective value of each model.
    n_iter : ndarray of shape (n_Cs,)
        Solver iterations of each model (warm-started from the previous one).
    n_groups_selected : ndarray of shape (n_Cs,) or None
        With ``feature_groups``: the number of groups with a non-zero coefficient.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> path = rs.sparse_path(X, y, qid, Cs=[0.01, 0.05, 0.5])
    >>> path.n_selected
    array([13, 17, 20])
    >>> path.coefs.shape
    (3, 22)
    """

    Cs: np.ndarray
    coefs: np.ndarray
    n_selected: np.ndarray
    objectives: np.ndarray
    n_iter: np.ndarray
    n_groups_selected: Optional[np.ndarray] = None


class SparseRankSVM(RankerMixin, SparseLinearRankerMixin, RankingSelector):
    """Sparse linear RankSVM with a squared pairwise hinge loss (Laporte et al. 2014).

    Parameters
    ----------
    C : float > 0, default=1.0
        Weight of the pairwise loss (eq. 7). Larger C selects more features.
    penalty : Penalty or {"l1", "log", "mcp", "lp", "group_lasso", "sparse_group_lasso"}, default="l1"
        A penalty object of :mod:`rankselect.models.penalties` (``L1(weights=...)``,
        ``Log(epsilon)``, ``MCP(gamma)``, ``Lp(p, epsilon)``, ``GroupLasso()``,
        ``SparseGroupLasso(l1_ratio)``), or the shorthand of one with its default parameters.
        The group penalties need ``feature_groups`` and ``solver="fista"`` (module docstring).
    p, epsilon, mcp_gamma, weights : deprecated
        The parameters of the penalties, now theirs (``Lp(p)``, ``Log(epsilon)``,
        ``Lp(epsilon=...)``, ``MCP(gamma)``, ``L1(weights)``); with a shorthand they still set
        it (``FutureWarning``) until 0.3.0 removes them.
    feature_costs : array-like of shape (n_features,) or None
        Cost of each feature (>= 0): the weighted L1 penalty with ``beta_j = cost_j /
        mean(cost)`` (:mod:`rankselect.analysis.costs`), so equal costs are the plain L1 and a free
        feature is not penalised; with ``L1()`` only (no ``weights``).
    l1_ratio : deprecated
        ``SparseGroupLasso(l1_ratio)``'s parameter (until 0.3.0, with ``FutureWarning``).
    feature_groups : labels per feature, mapping or FeatureGroups, optional
        The groups of the group penalties; with another penalty ``select_groups=False`` is
        required (the groups then only report ``selected_groups_``).
    select_groups : bool, default=True
        With ``feature_groups``: the group penalties drop whole groups (``"group_lasso"``: the
        support is a union of groups; ``"sparse_group_lasso"``: also features inside them).
    max_iter : int, default=5000
        Maximum solver iterations (Newton steps or FISTA steps) per (weighted) L1 solve.
    max_reweightings : int, default=10
        Maximum outer steps of the reweighted scheme (non-convex penalties).
    tol : float > 0, default=1e-6
        Relative KKT residual tolerance of the solver (FISTA also needs the relative objective
        change below it); relative change tolerance of the outer loop.
    solver : {"prox-newton", "fista"}, default="prox-newton"
        Solver of each (weighted) L1 problem. Both reach the same minimiser; proximal Newton
        needs a handful of Newton steps where FISTA (Laporte et al. Alg. 1) needs hundreds to
        thousands of gradient steps (``benches/sparse_bench.py``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    support_ : ndarray of bool, shape (n_features,)
        ``coef_ != 0``.
    sparsity_ratio_ : float
        Non-zero coefficients / features not all-zero on the training rows (Laporte et al.
        Section V-B; the one denominator of every sparsity ratio, see
        :mod:`rankselect.data.uninformative`).
    n_iter_ : int
        Total solver iterations.
    n_reweightings_ : int
        Outer steps (1 for ``l1``).
    objective_ : float
        Final objective: ``sum_j g(|w_j|) + C·L(w)`` (``||w||_1 + C·L(w)`` for l1).
    objective_history_ : ndarray
        Per-iteration objective (l1) or per-outer-step objective (non-convex).
    converged_ : bool
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
        Column names, when X was a DataFrame with string column names.

    Notes
    -----
    Training data without a preference pair or without a feature that varies inside a
    query warn with :class:`~rankselect.exceptions.DegenerateDataWarning`; the model is
    then all zeros (no feature selected).

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> svm = rs.SparseRankSVM(C=0.05, penalty="l1").fit(X, y, qid=qid)
    >>> svm.selected_features_
    array([ 3, 11,  7,  4, 16, 20,  9, 19, 18,  5,  6, 10, 12, 13, 14,  1, 15])
    >>> svm.sparsity_ratio_
    0.7727272727272727
    """

    coef_: np.ndarray
    support_: np.ndarray
    constant_features_: np.ndarray
    sparsity_ratio_: float
    n_iter_: int
    n_reweightings_: int
    objective_: float
    objective_history_: np.ndarray
    converged_: bool
    n_features_in_: int
    feature_names_in_: np.ndarray

    _parameter_constraints = {
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "penalty": [StrOptions(set(PENALTIES)), Penalty],
        # deprecated: the penalty objects' parameters (None: not given)
        "p": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "mcp_gamma": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "weights": ["array-like", None],
        "max_iter": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "max_reweightings": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "solver": [StrOptions(set(SOLVERS))],
        "feature_costs": ["array-like", None],
        "l1_ratio": [Interval(numbers.Real, 0, 1, closed="both"), None],
        **FEATURE_GROUP_CONSTRAINTS,
    }

    def __init__(self, C: float = 1.0, penalty: Union[PenaltyName, Penalty] = "l1", p: Optional[float] = None,
                 epsilon: Optional[float] = None, mcp_gamma: Optional[float] = None,
                 weights: Optional[npt.ArrayLike] = None, max_iter: int = 5000, max_reweightings: int = 10,
                 tol: float = 1e-6, solver: Literal["prox-newton", "fista"] = "prox-newton",
                 feature_costs: Optional[npt.ArrayLike] = None, *, l1_ratio: Optional[float] = None,
                 feature_groups=None, select_groups: bool = True) -> None:
        self.C = C
        self.penalty = penalty
        self.p = p
        self.epsilon = epsilon
        self.mcp_gamma = mcp_gamma
        self.weights = weights
        self.max_iter = max_iter
        self.max_reweightings = max_reweightings
        self.tol = tol
        self.solver = solver
        self.feature_costs = feature_costs
        self.l1_ratio = l1_ratio
        self.feature_groups = feature_groups
        self.select_groups = select_groups

    # -- validation ---------------------------------------------------------------------
    def _check_params(self, plan: FitPlan) -> _core.PenaltySpec:
        """The core's penalty of this fit (its plan: groups and feature costs checked once); the
        other parameters are checked by ``_parameter_constraints``."""
        n_features, groups = plan.n_features, plan.groups
        moved = {"p": self.p, "epsilon": self.epsilon, "mcp_gamma": self.mcp_gamma, "weights": self.weights,
                 "l1_ratio": self.l1_ratio}
        penalty = check_penalty(self.penalty, moved, type(self).__name__)
        given = self.penalty if isinstance(self.penalty, str) else penalty  # as the user wrote it
        if penalty.over_groups:
            if groups is None:
                raise ValueError(f"penalty={given!r} needs feature_groups (the blocks of the penalty)")
            if self.solver != "fista":
                raise ValueError(f"penalty={given!r} is solved by solver=\"fista\" only (proximal "
                                 "Newton's inner solver works coordinate by coordinate)")
            if self.feature_costs is not None:
                raise ValueError(f"penalty={given!r} takes no feature_costs")
            return penalty._spec(n_features, groups.index.astype(np.uintp))
        if plan.by_group:
            raise ValueError(f"penalty={given!r} selects features: use penalty='group_lasso' or "
                             "'sparse_group_lasso' to select whole groups, or select_groups=False")
        if self.feature_costs is not None:
            if not isinstance(penalty, L1) or penalty.weights is not None:
                raise ValueError("feature_costs needs penalty='l1' and no weights (they become the L1 weights)")
            costs = plan.costs.feature_costs  # no budget here: the costs weigh the L1
            if costs.max() == 0:
                raise ValueError("feature_costs are all 0: nothing would be penalised")
            if not np.all(costs == costs[0]):  # equal costs: the plain L1
                penalty = L1(weights=costs / costs.mean())
        return penalty._spec(n_features, None)

    def _prepare(self, X, y, qid) -> GroupedData:
        """The grouped data of :meth:`c_min` and :meth:`path` (validated, warned about)."""
        train = self._validate_training_data(X, y, qid)
        warn_if_degenerate(self, train.grouped)  # this function, c_min / path, the user
        return train.grouped

    def _solve(self, data, C, penalty, w0):
        """``(_core.SolverResult, n_reweightings)`` of the core's sparse RankSVM at ``C``."""
        fit = _core.sparse_ranksvm(data.X, data.y, data.offsets, float(C), penalty, w0, int(self.max_iter),
                                   int(self.max_reweightings), float(self.tol), self.solver)
        return fit.result, fit.n_reweightings

    # -- fit ----------------------------------------------------------------------------
    def fit(self, X, y, qid=None, *, coef_init=None):
        """Fit on ``X`` (m, n), labels ``y`` (m,), query ids ``qid`` (m,).

        ``coef_init`` (n,) warm-starts the solver.
        """
        return self._fit(self._validate_training_data(X, y, qid), coef_init=coef_init)

    def _fit(self, train: TrainingData, coef_init=None):
        n = train.n_features
        plan = FitPlan.of(self, train, n)
        constant = constant_columns(train.X)
        degenerate = not all(warn_if_degenerate(self, train.grouped))
        penalty = self._check_params(plan)
        w0 = None if coef_init is None else check_vector(coef_init, "coef_init", n=n)
        if degenerate:
            # the loss is constant: the minimiser is w = 0 (nothing to solve)
            zero = _core.SolverResult(np.zeros(n), 0.0, np.zeros(1), 0.0, 0, True)
            self._set_fitted(zero, 0, constant, zero_features(train.X), plan)
            return self
        result, n_rew = self._solve(train.grouped, self.C, penalty, w0)
        self._set_fitted(result, n_rew, constant, zero_features(train.X), plan)
        return self

    def _set_fitted(self, result, n_rew, constant, zero, plan: FitPlan):
        coef = np.asarray(result.coef)
        self.coef_ = coef
        self.support_ = coef != 0
        self.constant_features_ = np.flatnonzero(constant)
        # one denominator everywhere: the features not all-zero on the training rows
        self.sparsity_ratio_ = float(self.support_[~zero].sum() / max(1, (~zero).sum()))
        self.n_iter_ = int(result.n_iter)
        self.n_reweightings_ = int(n_rew)
        self.objective_history_ = np.asarray(result.objective_history)
        self.objective_ = float(result.objective)
        self.converged_ = bool(result.converged)
        self._set_groups(plan)


    # -- path ---------------------------------------------------------------------------
    def c_min(self, X, y, qid) -> float:
        """Smallest ``C`` at which the solution is not all zero (KKT at ``w = 0``): ``1 /
        alpha_max`` at ``dL/dw(0)``, e.g. ``max_j |dL/dw_j(0)| / beta_j`` for the weighted L1,
        ``max_g ||dL/dw_g(0)|| / sqrt(|g|)`` for the group lasso; a non-convex penalty's is that
        of its first, plain-L1, step."""
        data = self._prepare(X, y, qid)
        return self._c_min(data, self._check_params(FitPlan.of(self, data, data.X.shape[1])))

    def _c_min(self, data, penalty) -> float:
        return float(_core.sparse_c_min(data.X, data.y, data.offsets, penalty))

    def path(self, X, y, qid=None, Cs=None, n_Cs: int = 10, ratio: float = 1e3) -> SparsePath:
        """Fit the models for increasing ``C`` (decreasing regularisation) with warm starts.

        ``Cs`` defaults to ``n_Cs`` values log-spaced from :meth:`c_min` to ``ratio·c_min``.
        The estimator's own parameters (other than ``C``) are used; it is not refitted.
        """
        if Cs is None:
            check_positive(n_Cs, "n_Cs", integer=True)
            check_positive(ratio, "ratio")
            if ratio < 1:
                raise ValueError(f"ratio must be >= 1 (Cs go from c_min to ratio * c_min), got {ratio!r}")
        data = self._prepare(X, y, qid)
        plan = FitPlan.of(self, data, data.X.shape[1])
        penalty = self._check_params(plan)
        if Cs is None:
            c0 = self._c_min(data, penalty)  # on the data already grouped here
            Cs = c0 * np.logspace(0, np.log10(ratio), int(n_Cs))
        Cs = np.sort(check_vector(Cs, "Cs"))
        if (Cs <= 0).any():
            raise ValueError("Cs must all be > 0")
        coefs, nsel, objs, iters = [], [], [], []
        w = None
        for C in Cs:
            result, _ = self._solve(data, C, penalty, w)
            w = np.asarray(result.coef)
            coefs.append(w.copy())
            nsel.append(int(np.count_nonzero(w)))
            objs.append(float(result.objective))
            iters.append(int(result.n_iter))
        coef_mat, g = np.vstack(coefs), plan.groups
        n_groups = None if g is None else np.array([len(np.unique(g.index[c != 0])) for c in coef_mat])
        return SparsePath(Cs=np.asarray(Cs), coefs=coef_mat, n_selected=np.asarray(nsel),
                          objectives=np.asarray(objs), n_iter=np.asarray(iters), n_groups_selected=n_groups)


def sparse_path(X, y, qid, Cs=None, penalty="l1", **params) -> SparsePath:
    """Regularisation path of :class:`SparseRankSVM`: models for increasing ``C`` (warm starts).

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    qid : array-like of shape (m,)
    Cs : array-like of shape (n_Cs,) or None
        Default: 10 values log-spaced over three decades from the smallest C with a non-zero
        model (:meth:`SparseRankSVM.c_min`).
    penalty : Penalty or {"l1", "log", "mcp", "lp", "group_lasso", "sparse_group_lasso"}
        A penalty of :mod:`rankselect.models.penalties` or its shorthand. The group penalties
        need ``feature_groups=`` and ``solver="fista"`` in ``params``; the path then drops
        whole groups (``n_groups_selected``).
    **params : other :class:`SparseRankSVM` parameters (``n_Cs``, ``ratio`` go to ``path``).

    Returns
    -------
    SparsePath
        ``Cs``, ``coefs`` (n_Cs, n), ``n_selected``, ``objectives``, ``n_iter``.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> path = rs.sparse_path(X, y, qid, penalty="log")
    >>> path.Cs.shape, int(path.n_selected.max())
    ((10,), 16)
    """
    path_kw = {k: params.pop(k) for k in ("n_Cs", "ratio") if k in params}
    est = SparseRankSVM(penalty=penalty, **params)
    return est.path(X, y, qid, Cs=Cs, **path_kw)
