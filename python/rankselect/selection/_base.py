"""The one base of every selector: :class:`RankingSelector`.

In the spirit of scikit-learn's ``SelectorMixin`` and scikit-matter's ``GreedySelector``,
what every selector shares is written here once:

- ``selected_features_``, the fitted selection (indices in order of selection or of
  importance), from which the support mask is built (``get_support``, ``transform``,
  ``inverse_transform`` and ``get_feature_names_out`` follow from ``SelectorMixin``);
- the check of ``n_features_to_select`` against the data (its type and lower bound are the
  ``_parameter_constraints`` of each selector): a count, or a fraction of the features;
- feature families (issue 33): the shared group parameters, whose constraints every selector
  adds to its own:

  - ``feature_groups`` (None, a label per feature, a mapping ``{group: [columns]}`` or a
    :class:`~rankselect.data.FeatureGroups`, e.g.
    :func:`rankselect.data.datasets.feature_layout`);
  - ``select_groups`` (default True): with ``feature_groups``, select whole groups, and
    ``n_features_to_select`` counts groups; False: select features, the groups only name them
    (and price them);
  - ``group_costs`` (in :data:`GROUP_PARAMETER_CONSTRAINTS`, not in
    :data:`FEATURE_GROUP_CONSTRAINTS`: only the selectors that price their units take it -
    greedy RankRLS, the filters, the ranker-in-the-loop selectors): each touched
    group's extraction cost, paid once, on top of ``feature_costs``
    (:class:`~rankselect.data.ExtractionCosts`);
  - fitted: ``feature_groups_`` (the checked groups) and ``selected_groups_`` (the names of the
    groups touched by ``selected_features_``, in order of first selection).

What one fit resolves from these parameters and its data - the units, the costs, the budget,
the value per unit cost - is its :class:`~rankselect.selection.FitPlan`
(:mod:`~rankselect.selection._plan`), built once at the start of ``fit`` and dropped at its end.

The estimator contract (validation once per fit, qid routing, tags) is
:class:`rankselect._base.RankingEstimator`'s.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

import numpy as np
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from .._base import RankingEstimator
from ..data.feature_groups import FeatureGroups
from ._plan import FitPlan

__all__ = ["RankingSelector", "GROUP_PARAMETER_CONSTRAINTS", "FEATURE_GROUP_CONSTRAINTS"]

#: the constraints of the group parameters that name groups (``feature_groups``,
#: ``select_groups``): every selector adds them (or :data:`GROUP_PARAMETER_CONSTRAINTS`) to its
#: ``_parameter_constraints``
FEATURE_GROUP_CONSTRAINTS: dict[str, list[Any]] = {
    "feature_groups": ["array-like", Mapping, FeatureGroups, None],
    "select_groups": ["boolean"],
}

#: the constraints of all the group parameters, ``group_costs`` included: the selectors that
#: price their units (a parameter a selector cannot use is not in its signature)
GROUP_PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    **FEATURE_GROUP_CONSTRAINTS,
    "group_costs": ["array-like", Mapping, None],
}


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

    # ------------------------------------------------------------------ fitted groups

    def _set_groups(self, plan: FitPlan) -> None:
        """Set ``feature_groups_`` and ``selected_groups_`` (the names of the groups touched by
        ``selected_features_``, in order of first selection) after a fit with groups."""
        groups = plan.groups
        if groups is None:
            return
        self.feature_groups_ = groups
        names = [groups.names[g] for g in groups.groups_of(self.selected_features_)]
        self.selected_groups_ = np.array(names, dtype=object)

    def _get_support_mask(self) -> np.ndarray:
        """``True`` at ``selected_features_``, shape (n_features_in_,)."""
        check_is_fitted(self, "selected_features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask
