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

- feature families (issue 33): the shared group parameters, whose constraints
  (:data:`GROUP_PARAMETER_CONSTRAINTS`) every selector adds to its own, and their checks:

  - ``feature_groups`` (None, a label per feature, a mapping ``{group: [columns]}`` or a
    :class:`~rankselect.data.FeatureGroups`, e.g.
    :func:`rankselect.data.datasets.feature_layout`);
  - ``select_groups`` (default True): with ``feature_groups``, select whole groups, and
    ``n_features_to_select`` counts groups (:meth:`RankingSelector._n_groups_to_select`);
    False: select features, the groups only price them;
  - ``group_costs`` (None, an array in the order of the groups' names, or a mapping
    ``{group: cost}``): each touched group's extraction cost is paid once, on top of
    ``feature_costs`` (:class:`~rankselect.data.ExtractionCosts`: the cost of a subset and the
    marginal cost of a feature, whose group is paid by its first selected member);
  - fitted: ``feature_groups_`` (the checked groups) and ``selected_groups_`` (the names of the
    groups touched by ``selected_features_``, in order of first selection).

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
from .._validation import check_budget, check_costs, check_costs_and_budget, fits_budget
from ..data.feature_groups import ExtractionCosts, FeatureGroups, check_feature_groups, check_group_costs

__all__ = ["RankingSelector", "GROUP_PARAMETER_CONSTRAINTS"]

#: the constraints of the shared group parameters (``feature_groups``, ``group_costs``,
#: ``select_groups``): a selector adds them to its ``_parameter_constraints``
GROUP_PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "feature_groups": ["array-like", Mapping, FeatureGroups, None],
    "group_costs": ["array-like", Mapping, None],
    "select_groups": ["boolean"],
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

    def _costs_and_budget(self, n_features: int) -> tuple[Optional[np.ndarray], Optional[float]]:
        """``(feature_costs, budget)`` checked (a budget alone: unit costs; the budget must
        admit the cheapest feature); ``(None, None)`` without either. A selector without a
        ``budget`` parameter has none."""
        costs, budget = self.feature_costs, getattr(self, "budget", None)
        if costs is None and budget is None:
            return None, None
        return check_costs_and_budget(costs, budget, n_features)

    # ------------------------------------------------------------------ feature families

    def _feature_groups(self, n_features: int) -> Optional[FeatureGroups]:
        """``feature_groups`` checked against ``n_features`` (None without groups)."""
        fg = getattr(self, "feature_groups", None)
        return None if fg is None else check_feature_groups(fg, n_features)

    def _selects_groups(self) -> bool:
        """Whether this fit selects whole groups (``feature_groups`` given, ``select_groups``)."""
        return getattr(self, "feature_groups", None) is not None and bool(getattr(self, "select_groups", True))

    def _n_groups_to_select(self, groups: FeatureGroups) -> int:
        """``n_features_to_select`` as a number of groups (``select_groups=True``): a count in
        ``[1, n_groups]`` or a fraction of the groups."""
        k = self.n_features_to_select
        t = int(k) if isinstance(k, numbers.Integral) else max(1, int(round(float(k) * groups.n_groups)))
        if not 1 <= t <= groups.n_groups:
            raise ValueError(f"n_features_to_select counts groups with select_groups=True: it must be in "
                             f"[1, n_groups = {groups.n_groups}], got {k}")
        return t

    def _extraction_costs(self, n_features: int) -> tuple[Optional[ExtractionCosts], Optional[float]]:
        """``(costs, budget)`` with the groups' shared costs, checked; ``(None, None)`` without
        ``feature_costs``, ``group_costs`` and ``budget``.

        Without ``feature_costs``, a feature costs 1 (0 when ``group_costs`` are given: then
        the extraction is what costs). The budget must admit the cheapest unit: a whole group
        (``cost of its members + its group cost``) when selecting groups, else a feature with
        its group's cost.
        """
        fc, gc, budget = self.feature_costs, getattr(self, "group_costs", None), getattr(self, "budget", None)
        groups = self._feature_groups(n_features)
        if gc is not None and groups is None:
            raise ValueError("group_costs needs feature_groups (which columns each group's cost covers)")
        if fc is None and gc is None and budget is None:
            return None, None
        if fc is None:
            fc = np.zeros(n_features) if gc is not None else None
        costs = ExtractionCosts(check_costs(fc, n_features), groups,
                                None if gc is None or groups is None else check_group_costs(gc, groups))
        b = check_budget(budget)
        if b is not None:
            if self._selects_groups() and groups is not None:
                cheapest = min(costs.group_total(g) for g in range(groups.n_groups))
                unit = "group"
            else:
                cheapest = float(costs.marginal([]).min())
                unit = "feature (with its group's cost)" if costs.group_costs is not None else "feature"
            if not fits_budget(cheapest, b):
                raise ValueError(f"budget={b} is below the cheapest {unit}'s cost ({cheapest}): "
                                 "nothing can be selected")
        return costs, b

    def _set_selected_groups(self, groups: Optional[FeatureGroups]) -> None:
        """Set ``feature_groups_`` and ``selected_groups_`` (the names of the groups touched
        by ``selected_features_``, in order of first selection) after a fit with groups."""
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
