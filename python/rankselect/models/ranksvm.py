"""Linear RankSVM (L2-regularised, pairwise squared hinge) by primal truncated Newton."""
from __future__ import annotations

import numbers
import warnings
from typing import Literal, Optional, Union

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import _core
from .._base import RankerMixin, RankingEstimator, warn_if_degenerate
from .._validation import MAX_INT, check_matrix
from ..data.grouping import TrainingData
from .kernel_approximation import Nystroem, RandomFourierFeatures

__all__ = ["RankSVM"]


class RankSVM(RankerMixin, RankingEstimator):
    """RankSVM with the squared hinge loss, trained in the primal by truncated Newton.

    Minimises (Chen et al. 2017, eq. 4; Chapelle & Keerthi 2010)::

        0.5 ||w||^2 + C * sum_{(i, j) in P} max(0, 1 - w·(x_i - x_j))^2

    over the preference pairs ``P = {(i, j) : qid_i = qid_j, y_i > y_j}``, without
    materialising the pairs: Newton directions by conjugate gradient on generalized
    Hessian-vector products, exact line search (Alg. 3 of Chen et al. 2017). The fit runs
    in the Rust core with the GIL released and stops cleanly on Ctrl-C.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the pairwise loss, > 0.
    tol : float, default=1e-6
        Stop when ``||grad|| <= tol * ||grad at w=0||``.
    max_iter : int, default=100
        Maximum number of Newton steps.
    max_cg_iter : int, default=500
        Maximum number of conjugate-gradient iterations per Newton step.
    kernel : {None, "nystroem", "rff"}, default=None
        None: linear RankSVM on X. "nystroem" / "rff": RankNystroem / RankRandomFourier of
        Chen et al. 2017 (Alg. 3): fit an RBF kernel approximation map (:class:`Nystroem`
        or :class:`RandomFourierFeatures`) on the training rows inside ``fit`` and learn the
        linear RankSVM on the mapped features; ``predict`` applies the same map.
    n_components : int, default=100
        Landmarks / random features of the kernel map (ignored when ``kernel=None``).
    gamma : float, default=None
        RBF width ``exp(-gamma ||x - x'||^2)``; None means ``1 / n_features``.
    random_state : int, RandomState instance or None, default=None
        Seed of the kernel map.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The ranking weights ``w``; scores are ``X @ coef_``.
    n_iter_ : int
        Newton steps taken.
    n_cg_iter_ : int
        Conjugate-gradient iterations (Hessian-vector products) in total.
    objective_ : float
        Final value of the objective above.
    n_pairs_ : int
        Number of preference pairs in the training data.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
        Column names, when X was a DataFrame with string column names.
    kernel_map_ : Nystroem or RandomFourierFeatures
        The fitted map (only when ``kernel`` is set); ``coef_`` lives in its output space.

    Notes
    -----
    With ``sklearn.set_config(enable_metadata_routing=True)``, ``qid`` is requested by
    ``fit`` and ``score`` by default, so ``make_pipeline(transformer, RankSVM()).fit(X, y, qid=qid)``
    routes ``qid`` to this estimator. Training data without a preference pair or without a
    feature that varies inside a query warn with
    :class:`~rankselect.exceptions.DegenerateDataWarning` (the model is then all zeros).
    scikit-learn's ``LinearSVC(loss='squared_hinge', fit_intercept=False)`` trained on the
    pair differences in both orientations with ``C / 2`` minimises the same objective.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> model = rs.RankSVM(C=1.0).fit(X, y, qid=qid)
    >>> model.coef_.shape
    (22,)
    >>> round(model.score(X, y, qid=qid), 4)
    0.9106
    >>> rbf = rs.RankSVM(kernel="nystroem", n_components=50, gamma=0.05, random_state=0).fit(X, y, qid=qid)
    >>> rbf.predict(X[:3]).shape
    (3,)
    """

    coef_: np.ndarray
    n_iter_: int
    n_cg_iter_: int
    objective_: float
    n_pairs_: int
    n_features_in_: int
    feature_names_in_: np.ndarray
    kernel_map_: Union[Nystroem, RandomFourierFeatures]

    _parameter_constraints = {
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "max_cg_iter": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "kernel": [StrOptions({"nystroem", "rff"}), None],
        "n_components": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "gamma": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "random_state": ["random_state"],
    }

    def __init__(self, C: float = 1.0, tol: float = 1e-6, max_iter: int = 100, max_cg_iter: int = 500, *,
                 kernel: Optional[Literal["nystroem", "rff"]] = None, n_components: int = 100,
                 gamma: Optional[float] = None, random_state: Union[int, np.random.RandomState, None] = None) -> None:
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.max_cg_iter = max_cg_iter
        self.kernel = kernel
        self.n_components = n_components
        self.gamma = gamma
        self.random_state = random_state

    # Feature map hooks: the linear model uses X itself. A kernel approximation
    # (Nystroem / random Fourier features) plugs in here: fit the map in
    # `_fit_features` and apply it in `_transform_features`.
    def _fit_features(self, X):
        if self.kernel is None:
            return X
        gamma = 1.0 / X.shape[1] if self.gamma is None else self.gamma
        if self.kernel == "nystroem":
            kmap = Nystroem("rbf", gamma=gamma, n_components=self.n_components,
                            random_state=self.random_state)
        elif self.kernel == "rff":
            kmap = RandomFourierFeatures(gamma=gamma, n_components=self.n_components,
                                         random_state=self.random_state)
        else:
            raise ValueError(f"kernel must be None, 'nystroem' or 'rff', got {self.kernel!r}")
        self.kernel_map_ = kmap.fit(X)
        return self.kernel_map_.transform(X)

    def _transform_features(self, X):
        if self.kernel is None:
            return X
        return self.kernel_map_.transform(X)

    def fit(self, X, y, qid=None):
        """Fit the ranker.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        y : array-like of shape (m,)
            Relevance labels (larger is more relevant).
        qid : array-like of shape (m,)
            Query id of every row (rows need not be sorted by query).

        Returns
        -------
        self
        """
        return self._fit(self._validate_training_data(X, y, qid))

    def _fit(self, train: TrainingData):
        has_pair, informative = warn_if_degenerate(self, train.grouped)
        if self.kernel is None:
            data = train.grouped
        else:
            # the map is fitted on the rows in input order (its landmarks / draws follow them),
            # then its features are grouped as the rows were (no second grouping)
            Z = check_matrix(self._fit_features(train.X), "features")
            data = train.grouped.with_features(train.grouped.gather(Z))
        if not (has_pair and informative):
            n_pairs = int(np.sum(_core.query_pair_counts(data.y, data.offsets)))
            result, n_cg = self._constant_loss(data.X.shape[1], n_pairs), 0
        else:
            self._check_C_scale(data)
            fit = _core.ranksvm_fit(
                data.X, data.y, data.offsets, float(self.C), float(self.tol),
                int(self.max_iter), int(self.max_cg_iter))
            result, n_cg, n_pairs = fit.result, fit.n_cg_iter, fit.n_pairs
        self._set_result(result, n_cg, n_pairs)
        return self

    def _check_C_scale(self, data) -> None:
        """ValueError when ``C`` is too large for double precision: the Newton step's
        Hessian-vector products multiply up to three quantities of the size
        ``s = C * n_pairs * (1 + max_pair ||x_i - x_j||^2)`` (``n_pairs <= sum_q m_q^2 / 2``,
        ``||x_i - x_j||^2 <= 4 max_i ||x_i||^2``), so ``s`` must stay below the cube root of
        the largest float (about 5.6e102), else the solver returns zeros with a NaN gradient."""
        sizes = np.diff(np.asarray(data.offsets, dtype=np.float64))
        row_sq = float(np.max(np.einsum("ij,ij->i", data.X, data.X))) if data.X.size else 0.0
        scale = float(self.C) * max(1.0, float(np.sum(sizes * sizes)) / 2) * (1.0 + 4.0 * row_sq)
        limit = np.cbrt(np.finfo(np.float64).max)
        if not scale < limit:
            raise ValueError(f"C={float(self.C):g} is too large for these data: C * n_pairs * (1 + max pair "
                             f"||x_i - x_j||^2) is about {scale:.3g}, which must stay below {limit:.3g} "
                             f"(the Newton steps overflow double precision); use a smaller C or scale X down")

    def _constant_loss(self, n: int, n_pairs: int):
        """The fit when every pair difference is 0 (or there is no pair): the loss does not
        depend on w, the minimiser is w = 0 and each pair costs max(0, 1 - 0)^2 = 1."""
        objective = float(self.C) * n_pairs
        return _core.SolverResult(np.zeros(n), objective, np.array([objective]), 0.0, 0, True)

    def _set_result(self, result, n_cg: int, n_pairs: int) -> None:
        """The fitted attributes from the core's result (a ConvergenceWarning when the
        gradient criterion was not met)."""
        if not result.converged:
            warnings.warn(
                f"RankSVM did not reach tol={self.tol} in {result.n_iter} Newton steps "
                f"(relative gradient norm {result.kkt_residual:.3g}); increase max_iter",
                ConvergenceWarning, stacklevel=3)  # _fit, fit, the user
        self.coef_ = np.asarray(result.coef)
        self.n_iter_ = int(result.n_iter)
        self.n_cg_iter_ = int(n_cg)
        self.objective_ = float(result.objective)
        self.n_pairs_ = int(n_pairs)

    def decision_function(self, X):
        """Ranking scores, shape (m,). Rank documents of a query by decreasing score."""
        check_is_fitted(self, "coef_")
        X = self._validate_X(X, reset=False)
        return self._transform_features(X) @ self.coef_

    def predict(self, X):
        """Ranking scores, shape (m,) (same as :meth:`decision_function`)."""
        return self.decision_function(X)
