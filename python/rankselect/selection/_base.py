"""The one base of every selector: :class:`RankingSelector`.

In the spirit of scikit-learn's ``SelectorMixin`` and scikit-matter's ``GreedySelector``,
what every selector shares is written here once:

- ``selected_features_``, the fitted selection (indices in order of selection or of
  importance), from which the support mask is built (``get_support``, ``transform``,
  ``inverse_transform`` and ``get_feature_names_out`` follow from ``SelectorMixin``);
- the check of ``n_features_to_select`` against the data (its type and lower bound are the
  ``_parameter_constraints`` of each selector): a count, or a fraction of the features;
- the check of ``feature_costs`` and ``budget``, and the one budget rule
  (:func:`rankselect.analysis.costs.fits_budget`: a total cost fits when
  ``cost <= budget * (1 + 1e-9)``, the relative tolerance of the core's greedy selection).

The estimator contract (validation once per fit, qid routing, tags) is
:class:`rankselect._base.RankingEstimator`'s.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Optional

import numpy as np
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from .._base import RankingEstimator
from .._validation import check_costs_and_budget

__all__ = ["RankingSelector"]


class RankingSelector(SelectorMixin, RankingEstimator):
    """Base of every rankselect selector (module docstring). Not used directly.

    A subclass's ``fit`` sets ``selected_features_`` (0-based feature indices) and
    ``n_features_in_``; the support mask is ``True`` at ``selected_features_``.

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.selection import RankingSelector
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> sel = rs.GAS(n_features_to_select=3).fit(X, y, qid=qid)
    >>> isinstance(sel, RankingSelector), int(sel.get_support().sum())
    (True, 3)
    >>> sel.get_feature_names_out()  # the input's names (x0, x1, ... for an array)
    array(['x2', 'x3', 'x9'], dtype=object)
    """

    n_features_in_: int

    if TYPE_CHECKING:  # an attribute set by fit, or a property (the sparse rankers' non-zero weights)
        @property
        def selected_features_(self) -> np.ndarray: ...

    def _n_features_to_select(self, n_features: int, n_available: Optional[int] = None) -> int:
        """``n_features_to_select`` as a count, checked against the data.

        An integer ``k``, or a fraction ``f`` in (0, 1) of ``n_features``:
        ``k = max(1, round(f * n_features))``. ``k`` must not exceed ``n_available`` (the
        features the selector can choose from; default ``n_features``).
        """
        k = self.n_features_to_select
        if isinstance(k, numbers.Integral):
            t = int(k)
        else:
            t = max(1, int(round(float(k) * n_features)))
        available = n_features if n_available is None else int(n_available)
        if not t <= available:  # the message of the core's own check (greedy RankRLS)
            bound = f"n_features = {available}" if n_available is None else f"the candidate pool = {available}"
            asked = "" if isinstance(k, numbers.Integral) else f" ({t} features)"
            raise ValueError(f"n_features_to_select must be in [1, {bound}], got {k}{asked}")
        return t

    def _costs_and_budget(self, n_features: int) -> tuple[Optional[np.ndarray], Optional[float]]:
        """``(feature_costs, budget)`` checked (a budget alone: unit costs; the budget must
        admit the cheapest feature); ``(None, None)`` without either. A selector without a
        ``budget`` parameter has none."""
        costs, budget = self.feature_costs, getattr(self, "budget", None)
        if costs is None and budget is None:
            return None, None
        return check_costs_and_budget(costs, budget, n_features)

    def _get_support_mask(self) -> np.ndarray:
        """``True`` at ``selected_features_``, shape (n_features_in_,)."""
        check_is_fitted(self, "selected_features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask
