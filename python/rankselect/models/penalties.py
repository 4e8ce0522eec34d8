"""Penalties of the sparse linear rankers, as objects (as skglm's): ``SparseRankSVM(penalty=MCP(gamma=3.0))``.

A penalty is the ``Ω`` of ``Ω(w) + C·L(w)`` (Laporte et al. 2014, eq. 7), one class with its own
parameters:

- :class:`L1` ``(weights=None)``: ``sum_j beta_j |w_j|`` (``beta = weights``, all 1 by default;
  eq. 12), by proximal Newton or FISTA;
- :class:`Log` ``(epsilon=0.1)``: ``sum_j log(1 + |w_j| / epsilon)``, by reweighted L1 (Alg. 2,
  Table II), as the two below;
- :class:`MCP` ``(gamma=2.0)``: the minimax concave penalty with ``lambda = 1/C``;
- :class:`Lp` ``(p=0.5, epsilon=0.1)``: ``sum_j |w_j|^p``, the derivative capped at ``epsilon``;
- :class:`GroupLasso` ``()``: ``sum_g sqrt(|g|) ||w_g||_2`` (Yuan & Lin 2006, eq. 2.1), by FISTA;
- :class:`SparseGroupLasso` ``(l1_ratio=0.5)``: ``sum_g (rho ||w_g||_1 + (1 - rho) sqrt(|g|)
  ||w_g||_2)``, ``rho = l1_ratio`` (Simon et al. 2013, eq. 1), by FISTA.

The group penalties take their groups from the ranker's ``feature_groups``. A string is the
shorthand of a penalty with its default parameters (:data:`PENALTIES`: ``"l1"`` is ``L1()``,
``"mcp"`` is ``MCP()``, ...). The parameters are checked once, when the ranker is fitted
(``_parameter_constraints``, as scikit-learn's estimators); penalties pickle, print as they
were built, and go in parameter grids: ``{"penalty": ["l1", MCP(gamma=3.0)]}``, or
``{"penalty__gamma": [1.5, 3.0]}`` for a ranker built with ``penalty=MCP()``. The Rust core
takes one ``_core.PenaltySpec`` per fit (``rankselect_core::solvers::penalty::PenaltySpec``, the
one dispatch to the solvers).

Examples
--------
>>> import rankselect as rs
>>> from rankselect.models.penalties import MCP
>>> X, y, qid = rs.data.datasets.load_example("train")
>>> svm = rs.SparseRankSVM(C=0.05, penalty=MCP(gamma=3.0)).fit(X, y, qid=qid)
>>> svm
SparseRankSVM(C=0.05, penalty=MCP(gamma=3.0))
>>> len(svm.selected_features_)
17
"""
from __future__ import annotations

import numbers
import warnings
from typing import ClassVar, Optional

import numpy as np
import numpy.typing as npt
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval

from .. import _core
from .._validation import check_vector
from ..exceptions import REMOVED_IN

__all__ = ["Penalty", "L1", "Log", "MCP", "Lp", "GroupLasso", "SparseGroupLasso", "PENALTIES", "check_penalty"]

_POSITIVE = [Interval(numbers.Real, 0, None, closed="neither")]


class Penalty(BaseEstimator):
    """A penalty ``Ω`` of ``Ω(w) + C·L(w)``: the base of the penalty classes.

    Attributes
    ----------
    name : str
        The string shorthand of the penalty with its default parameters.
    over_groups : bool
        Whether ``Ω`` acts on the ranker's ``feature_groups`` (then it needs them).
    separable : bool
        Whether ``Ω`` is a sum over the coefficients: proximal Newton solves only those;
        FISTA solves every penalty.

    Examples
    --------
    >>> from rankselect.models.penalties import GroupLasso, Penalty
    >>> pen = GroupLasso()
    >>> isinstance(pen, Penalty), pen.name, pen.over_groups, pen.separable
    (True, 'group_lasso', True, False)
    """

    name: ClassVar[str]
    over_groups: ClassVar[bool] = False
    separable: ClassVar[bool] = True
    _parameter_constraints: ClassVar[dict] = {}

    def _spec(self, n_features: int, labels: Optional[np.ndarray]) -> _core.PenaltySpec:
        """The core's penalty for ``n_features`` features (``labels``: the group of each
        feature, for a penalty over groups)."""
        raise NotImplementedError


class L1(Penalty):
    """The (weighted) L1 norm ``sum_j beta_j |w_j|`` (Laporte et al. eqs. 7 and 12).

    Parameters
    ----------
    weights : array-like of shape (n_features,) or None, default=None
        ``beta >= 0`` (``np.inf`` pins a coefficient at 0); all 1 when None.

    Examples
    --------
    >>> from rankselect.models.penalties import L1
    >>> L1(weights=[1.0, 2.0])
    L1(weights=[1.0, 2.0])
    """

    name = "l1"
    _parameter_constraints: ClassVar[dict] = {"weights": ["array-like", None]}

    def __init__(self, weights: Optional[npt.ArrayLike] = None) -> None:
        self.weights = weights

    def _spec(self, n_features, labels):
        if self.weights is None:
            return _core.PenaltySpec.l1()
        weights = check_vector(self.weights, "weights", allow_nan=True)
        if weights.shape[0] != n_features:
            raise ValueError(f"weights has {weights.shape[0]} entries but X has {n_features} features")
        if np.isnan(weights).any() or (weights < 0).any():
            raise ValueError("weights must be >= 0 (np.inf pins a coefficient at 0)")
        return _core.PenaltySpec.l1(np.ascontiguousarray(weights, dtype=np.float64))


class Log(Penalty):
    """``sum_j log(1 + |w_j| / epsilon)`` (Laporte et al. Table II), by reweighted L1.

    Parameters
    ----------
    epsilon : float > 0, default=0.1

    Examples
    --------
    >>> from rankselect.models.penalties import Log
    >>> Log(epsilon=0.01)
    Log(epsilon=0.01)
    """

    name = "log"
    _parameter_constraints: ClassVar[dict] = {"epsilon": _POSITIVE}

    def __init__(self, epsilon: float = 0.1) -> None:
        self.epsilon = epsilon

    def _spec(self, n_features, labels):
        return _core.PenaltySpec.log(float(self.epsilon))


class MCP(Penalty):
    """The minimax concave penalty in Laporte et al.'s Table II normalisation, by reweighted L1:
    ``g(u) = u - u^2 / (2 gamma lambda)`` for ``u <= gamma lambda``, ``gamma lambda / 2`` beyond,
    with ``lambda = 1/C`` (so MCP is the L1 norm while every ``|w_j|`` is small against
    ``gamma / C``).

    Parameters
    ----------
    gamma : float > 0, default=2.0
        MCP's concavity parameter (``SparseRankSVM``'s former ``mcp_gamma``).

    Examples
    --------
    >>> from rankselect.models.penalties import MCP
    >>> MCP(gamma=3.0)
    MCP(gamma=3.0)
    """

    name = "mcp"
    _parameter_constraints: ClassVar[dict] = {"gamma": _POSITIVE}

    def __init__(self, gamma: float = 2.0) -> None:
        self.gamma = gamma

    def _spec(self, n_features, labels):
        return _core.PenaltySpec.mcp(float(self.gamma))


class Lp(Penalty):
    """``sum_j |w_j|^p``, ``0 < p < 1``, by reweighted L1 with the derivative capped at
    ``epsilon``: ``g'(u) = p max(u, epsilon)^(p - 1)`` (so a coefficient at 0 can re-enter).

    Parameters
    ----------
    p : float in (0, 1), default=0.5
    epsilon : float > 0, default=0.1

    Examples
    --------
    >>> from rankselect.models.penalties import Lp
    >>> Lp(p=0.3)
    Lp(p=0.3)
    """

    name = "lp"
    _parameter_constraints: ClassVar[dict] = {"p": [Interval(numbers.Real, 0, 1, closed="neither")],
                                              "epsilon": _POSITIVE}

    def __init__(self, p: float = 0.5, epsilon: float = 0.1) -> None:
        self.p = p
        self.epsilon = epsilon

    def _spec(self, n_features, labels):
        return _core.PenaltySpec.lp(float(self.p), float(self.epsilon))


class GroupLasso(Penalty):
    """The group lasso ``sum_g sqrt(|g|) ||w_g||_2`` over the ranker's ``feature_groups`` (Yuan
    & Lin 2006, eq. 2.1), by FISTA: a group enters or leaves the model as a block.

    Examples
    --------
    >>> from rankselect.models.penalties import GroupLasso
    >>> GroupLasso()
    GroupLasso()
    """

    name = "group_lasso"
    over_groups = True
    separable = False

    def _spec(self, n_features, labels):
        return _core.PenaltySpec.group_lasso(labels, 0.0)


class SparseGroupLasso(Penalty):
    """The sparse-group lasso ``sum_g (rho ||w_g||_1 + (1 - rho) sqrt(|g|) ||w_g||_2)`` over the
    ranker's ``feature_groups``, ``rho = l1_ratio`` (Simon et al. 2013, eq. 1), by FISTA: the
    prox is soft thresholding by ``t rho``, then the block shrink
    ``w_g <- max(0, 1 - t (1 - rho) sqrt(|g|) / ||w_g||) w_g``; whole groups leave the model,
    and features inside the groups kept.

    Parameters
    ----------
    l1_ratio : float in [0, 1], default=0.5
        ``rho``; 0 is the group lasso, 1 the L1 norm.

    Examples
    --------
    >>> from rankselect.models.penalties import SparseGroupLasso
    >>> SparseGroupLasso(l1_ratio=0.2)
    SparseGroupLasso(l1_ratio=0.2)
    """

    name = "sparse_group_lasso"
    over_groups = True
    separable = False
    _parameter_constraints: ClassVar[dict] = {"l1_ratio": [Interval(numbers.Real, 0, 1, closed="both")]}

    def __init__(self, l1_ratio: float = 0.5) -> None:
        self.l1_ratio = l1_ratio

    def _spec(self, n_features, labels):
        return _core.PenaltySpec.group_lasso(labels, float(self.l1_ratio))


#: the string shorthands: name -> the penalty class (its default parameters)
PENALTIES: dict[str, type[Penalty]] = {cls.name: cls for cls in (L1, Log, MCP, Lp, GroupLasso, SparseGroupLasso)}

#: the parameters a ranker took beside ``penalty=`` before the penalty objects (deprecated):
#: the ranker's name -> the penalty's
_MOVED = {"weights": "weights", "p": "p", "epsilon": "epsilon", "mcp_gamma": "gamma", "l1_ratio": "l1_ratio"}


def check_penalty(penalty, moved: Optional[dict] = None, owner: str = "SparseRankSVM") -> Penalty:
    """The penalty object of ``penalty`` (an object, or a shorthand of :data:`PENALTIES`), its
    parameters checked.

    ``moved``: the deprecated parameters of ``owner`` that went into the penalty objects
    (``p``, ``epsilon``, ``mcp_gamma``, ``weights``, ``l1_ratio``) with their values (None: not
    given). With a shorthand each given one warns (``FutureWarning``) and sets the penalty's
    parameter; one the penalty does not have, or one beside a penalty object, is a ValueError.

    Examples
    --------
    >>> from rankselect.models.penalties import check_penalty
    >>> check_penalty("mcp")
    MCP()
    """
    given = {k: v for k, v in (moved or {}).items() if v is not None}
    if isinstance(penalty, Penalty):
        if given:
            names = ", ".join(sorted(given))
            raise ValueError(f"{names} of {owner} beside penalty={penalty!r}: set the penalty's own parameters "
                             f"instead, e.g. {type(penalty).__name__}(...)")
        pen = penalty
    else:
        cls = PENALTIES[penalty]  # a str among PENALTIES (the owner's _parameter_constraints)
        params = {}
        for old, value in given.items():
            new = _MOVED[old]
            if new not in cls().get_params():
                raise ValueError(f"{old} is not a parameter of penalty={penalty!r}; {cls.__name__} takes "
                                 f"{sorted(cls().get_params()) or 'no parameter'}")
            params[new] = value
        if params:
            shown = ", ".join(f"{k}={'...' if k == 'weights' else repr(v)}" for k, v in params.items())
            warnings.warn(f"{', '.join(given)} of {owner} is deprecated and removed in {REMOVED_IN}: pass "
                          f"penalty={cls.__name__}({shown})", FutureWarning, stacklevel=4)
        pen = cls(**params)
    pen._validate_params()
    return pen
