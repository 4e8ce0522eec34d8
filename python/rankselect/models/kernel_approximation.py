"""Kernel approximation maps for RankSVM with kernel approximation (Chen et al. 2017, §3.2).

Two scikit-learn transformers whose maps are computed in Rust (row-parallel, deterministic):

- :class:`Nystroem`: uniform landmark sampling and ``phi(x) = N k(x)`` with
  ``k(x) = [k(x, x̂_1), ..., k(x, x̂_c)]`` (eq. 16-18). With ``rank=None``, ``N = W^{-1/2}``
  exactly as scikit-learn's :class:`sklearn.kernel_approximation.Nystroem` (SVD of the
  landmark kernel matrix ``W`` with singular values floored at 1e-12); with ``rank=k``,
  ``N = Σ_k^{-1/2} U_kᵀ`` (k x c), the rank-k pseudo-inverse square root of eq. 17-18.
- :class:`RandomFourierFeatures`: ``z(x) = sqrt(2/D) cos(Ωᵀx + b)`` (eq. 21) with
  ``Ω ~ sqrt(2γ) N(0, 1)`` and ``b ~ U[0, 2π)``, the RBF kernel's Fourier measure; identical
  random draws to :class:`sklearn.kernel_approximation.RBFSampler` for the same
  ``random_state``.

A linear ranker on these features is the paper's RankNystroem / RankRandomFourier::

    RankSVM(kernel="nystroem", n_components=500, gamma=2**-5, C=0.25).fit(X, y, qid=qid)

or, as a pipeline with metadata routing (``sklearn.set_config(enable_metadata_routing=True)``)::

    make_pipeline(Nystroem(gamma=2**-5, n_components=500),
                  RankSVM(C=0.25)).fit(X, y, qid=qid)  # qid requested by default
"""
from __future__ import annotations

import numbers
import warnings
from typing import Literal, Optional, Union

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import _core
from .._base import KernelMapBase
from .._config import check_memory
from .._validation import MAX_INT, check_matrix, check_positive, shown

__all__ = ["Nystroem", "RandomFourierFeatures", "kernel_matrix"]

_KERNELS = ("rbf", "linear", "poly", "polynomial", "sigmoid")


def _kernel_args(kernel, gamma, coef0, degree, n_features):
    """Resolve scikit-learn's kernel defaults: gamma=None -> 1/n_features, coef0=None -> 1,
    degree=None -> 3. Returns (kernel, gamma, coef0, degree) as plain floats."""
    if not isinstance(kernel, str) or kernel not in _KERNELS:
        raise ValueError(f"kernel must be one of {_KERNELS}, got {kernel!r}")
    if gamma is None:
        gamma = 1.0 / max(n_features, 1)
    elif kernel == "rbf":
        check_positive(gamma, "gamma")
    elif isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not np.isfinite(gamma):
        raise TypeError(f"gamma must be a finite number or None, got {shown(gamma)}")
    if coef0 is None:
        coef0 = 1.0
    elif isinstance(coef0, bool) or not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
        raise TypeError(f"coef0 must be a finite number or None, got {shown(coef0)}")
    if degree is None:
        degree = 3.0
    else:
        check_positive(degree, "degree", strict=False)
    return kernel, float(gamma), float(coef0), float(degree)


def kernel_matrix(X, Y=None, *, kernel="rbf", gamma=None, coef0=None, degree=None):
    """Kernel block ``K[i, j] = k(X[i], Y[j])`` computed in Rust.

    Kernels as in :func:`sklearn.metrics.pairwise.pairwise_kernels`: ``"rbf"``
    ``exp(-gamma ||x - y||^2)`` (squared distance ``||x||² + ||y||² - 2 x·y`` clamped at 0),
    ``"linear"`` ``x·y``, ``"poly"`` ``(gamma x·y + coef0)^degree``, ``"sigmoid"``
    ``tanh(gamma x·y + coef0)``; ``gamma=None`` means ``1 / n_features``.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None (``Y = X``)

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.models import kernel_matrix
    >>> kernel_matrix(np.array([[0., 0.], [1., 0.]]), gamma=1.0).round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """
    X = check_matrix(X, "X")
    Y = X if Y is None else check_matrix(Y, "Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(f"Y has {Y.shape[1]} features but X has {X.shape[1]}")
    args = _kernel_args(kernel, gamma, coef0, degree, X.shape[1])
    check_memory(8 * X.shape[0] * Y.shape[0], f"a {X.shape[0]} x {Y.shape[0]} kernel matrix",
                 "pass fewer rows (in blocks) or use Nystroem / RandomFourierFeatures")
    return _core.kernel_matrix(X, Y, *args)


def _check_n_components(n_components):
    if isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral):
        raise TypeError(f"n_components must be an integer, got {n_components!r}")
    if n_components < 1:
        raise ValueError(f"n_components must be >= 1, got {n_components!r}")
    return int(n_components)


class Nystroem(ClassNamePrefixFeaturesOutMixin, TransformerMixin, KernelMapBase):
    """Nyström approximation of a kernel map (Chen et al. 2017, eq. 16-18, Alg. 1).

    Samples ``c = n_components`` landmark rows of the training data uniformly without
    replacement (``RandomState.permutation``, as scikit-learn), builds the landmark kernel
    matrix ``W`` (c x c) and its eigendecomposition ``W = U Σ Uᵀ`` (Rust, faer), and maps
    ``phi(X) = K(X, landmarks) @ normalization_.T``.

    - ``rank=None``: ``normalization_ = U sign(Σ) max(|Σ|, 1e-12)^{-1/2} Uᵀ`` (c x c), equal
      to scikit-learn's ``Nystroem.normalization_``; the output has ``c`` columns.
    - ``rank=k``: ``normalization_ = Σ_k^{-1/2} U_kᵀ`` (k x c) over the ``k`` largest
      eigenvalues (eigenvalues below ``c·eps·σ_1`` give zero rows: pseudo-inverse), so that
      ``phi(x)·phi(z) = k(x)ᵀ W_k⁺ k(z)``; the output has ``k`` columns.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly", "polynomial", "sigmoid"}, default="rbf"
    gamma : float, default=None
        Kernel coefficient; None means ``1 / n_features`` (scikit-learn's default).
    coef0 : float, default=None
        Constant of "poly" / "sigmoid"; None means 1.
    degree : float, default=None
        Degree of "poly"; None means 3.
    n_components : int, default=100
        Number of landmarks ``c`` (capped at ``n_samples`` with a warning, as scikit-learn).
    rank : int, default=None
        Rank ``k <= n_components`` of the pseudo-inverse (eq. 17); None = full (scikit-learn).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    components_ : ndarray of shape (c, n_features)
        The landmark rows.
    component_indices_ : ndarray of shape (c,)
        Their indices in the training data.
    normalization_ : ndarray of shape (c, c) or (rank, c)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> X = np.random.default_rng(0).normal(size=(100, 5))
    >>> phi = rs.Nystroem(n_components=20, gamma=0.2, random_state=0).fit(X)
    >>> phi.transform(X).shape
    (100, 20)
    """

    components_: np.ndarray
    component_indices_: np.ndarray
    normalization_: np.ndarray
    n_features_in_: int

    # fit accepts qid (so that one can call fit(X, y, qid=...)) but does not use it: it is
    # not requested in metadata routing (KernelMapBase), so pipelines route qid only to the ranker.
    _parameter_constraints = {
        "kernel": [StrOptions(set(_KERNELS))],
        "gamma": [Interval(numbers.Real, None, None, closed="neither"), None],
        "coef0": [Interval(numbers.Real, None, None, closed="neither"), None],
        "degree": [Interval(numbers.Real, 0, None, closed="left"), None],
        "n_components": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "rank": [Interval(numbers.Integral, 1, MAX_INT, closed="both"), None],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel: Literal["rbf", "linear", "poly", "polynomial", "sigmoid"] = "rbf", *,
                 gamma: Optional[float] = None, coef0: Optional[float] = None, degree: Optional[float] = None,
                 n_components: int = 100, rank: Optional[int] = None,
                 random_state: Union[int, np.random.RandomState, None] = None) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.n_components = n_components
        self.rank = rank
        self.random_state = random_state

    def fit(self, X, y=None, qid=None):
        """Sample the landmarks and compute ``normalization_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y, qid : ignored (accepted for pipelines of rankers)

        Returns
        -------
        self
        """
        self._validate_params()
        X = self._validate_X(X, reset=True)
        n_samples, n_features = X.shape
        n_components = _check_n_components(self.n_components)
        args = _kernel_args(self.kernel, self.gamma, self.coef0, self.degree, n_features)
        if n_components > n_samples:
            warnings.warn(
                f"n_components={n_components} > n_samples={n_samples}: using all "
                f"{n_samples} rows as landmarks (the full kernel, not an approximation)",
                stacklevel=2,
            )
            n_components = n_samples
        rank = self.rank
        if rank is not None:
            if isinstance(rank, bool) or not isinstance(rank, numbers.Integral):
                raise TypeError(f"rank must be an integer or None, got {rank!r}")
            if not 1 <= rank <= n_components:
                raise ValueError(
                    f"rank must be in [1, n_components={n_components}], got {rank!r}"
                )
            rank = int(rank)
        # W (c x c), its eigenvectors and the normalization: about 4 c x c matrices.
        check_memory(4 * 8 * n_components**2, f"the Nystroem factorisation of {n_components} landmarks",
                     "use fewer n_components (or a rank)")
        rnd = check_random_state(self.random_state)
        inds = rnd.permutation(n_samples)[:n_components].astype(np.int64)
        basis = np.ascontiguousarray(X[inds])
        self.normalization_ = _core.nystroem_normalization(basis, *args, rank)
        self.components_ = basis
        self.component_indices_ = inds
        self._kernel_args = args
        return self

    def transform(self, X):
        """Map ``X`` to ``K(X, components_) @ normalization_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components) or (n_samples, rank)
        """
        check_is_fitted(self, "normalization_")
        X = self._validate_X(X, reset=False)
        c, out = self.normalization_.shape[1], self.normalization_.shape[0]
        check_memory(8 * X.shape[0] * (c + out), f"the Nystroem map of {X.shape[0]} rows to {out} features"
                     f" (kernel block {X.shape[0]} x {c})", "transform fewer rows at a time or use fewer n_components")
        return _core.nystroem_transform(
            X,
            np.ascontiguousarray(self.components_, dtype=np.float64),
            np.ascontiguousarray(self.normalization_, dtype=np.float64),
            *self._kernel_args,
        )

    def fit_transform(self, X, y=None, qid=None):
        """``fit(X).transform(X)``; y and qid are ignored."""
        return self.fit(X, y).transform(X)

    @property
    def _n_features_out(self):
        return self.normalization_.shape[0]


class RandomFourierFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, KernelMapBase):
    """Random Fourier features of the RBF kernel ``exp(-gamma ||x - z||^2)`` (eq. 19-21, Alg. 2).

    ``z(X) = sqrt(2 / D) cos(X @ random_weights_ + random_offset_)`` with
    ``random_weights_ = sqrt(2 gamma) N(0, 1)`` of shape (n_features, D) and
    ``random_offset_ ~ U[0, 2π)`` of shape (D,), drawn with numpy's ``RandomState`` in the
    same order as :class:`sklearn.kernel_approximation.RBFSampler`, so the same
    ``random_state`` gives the same map. The map itself runs in Rust.

    Parameters
    ----------
    gamma : float or "scale", default=1.0
        RBF parameter; "scale" means ``1 / (n_features * X.var())`` (as RBFSampler).
    n_components : int, default=100
        Number of features ``D``.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features, n_components)
    random_offset_ : ndarray of shape (n_components,)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> X = np.random.default_rng(0).normal(size=(100, 5))
    >>> phi = rs.RandomFourierFeatures(n_components=64, gamma=0.2, random_state=0).fit(X)
    >>> phi.transform(X).shape
    (100, 64)
    """

    random_weights_: np.ndarray
    random_offset_: np.ndarray
    n_features_in_: int

    _parameter_constraints = {
        "gamma": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"scale"})],
        "n_components": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "random_state": ["random_state"],
    }

    def __init__(self, gamma: Union[float, Literal["scale"]] = 1.0, *, n_components: int = 100,
                 random_state: Union[int, np.random.RandomState, None] = None) -> None:
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, y=None, qid=None):
        """Draw ``random_weights_`` and ``random_offset_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y, qid : ignored

        Returns
        -------
        self
        """
        self._validate_params()
        X = self._validate_X(X, reset=True)
        n_features = X.shape[1]
        n_components = _check_n_components(self.n_components)
        if isinstance(self.gamma, str):
            if self.gamma != "scale":
                raise ValueError(f"gamma must be a positive number or 'scale', got {self.gamma!r}")
            var = X.var() if X.size else 0.0
            gamma = 1.0 / (n_features * var) if var != 0 else 1.0
        else:
            gamma = float(check_positive(self.gamma, "gamma"))
        check_memory(8 * (n_features + 1) * n_components, f"random weights of shape ({n_features}, {n_components})",
                     "use fewer n_components")
        rnd = check_random_state(self.random_state)
        self.random_weights_ = (2.0 * gamma) ** 0.5 * rnd.normal(size=(n_features, n_components))
        self.random_offset_ = rnd.uniform(0, 2 * np.pi, size=n_components)
        return self

    def transform(self, X):
        """Map ``X`` to ``sqrt(2/D) cos(X @ random_weights_ + random_offset_)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self, "random_weights_")
        X = self._validate_X(X, reset=False)
        D = self.random_weights_.shape[1]
        check_memory(8 * X.shape[0] * D, f"the random Fourier map of {X.shape[0]} rows to {D} features",
                     "transform fewer rows at a time or use fewer n_components")
        return _core.random_fourier_transform(
            X,
            np.ascontiguousarray(self.random_weights_, dtype=np.float64),
            np.ascontiguousarray(self.random_offset_, dtype=np.float64),
        )

    def fit_transform(self, X, y=None, qid=None):
        """``fit(X).transform(X)``; y and qid are ignored."""
        return self.fit(X, y).transform(X)

    @property
    def _n_features_out(self):
        return self.random_weights_.shape[1]
