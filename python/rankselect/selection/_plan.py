"""The per-fit plan: what one ``fit`` selects from, resolved once (issue 40).

Every selector's ``fit`` builds one :class:`FitPlan` from its validated data and parameters
(:meth:`FitPlan.of`), reads its inputs from it, and drops it when the fit ends: a fitted
selector keeps only its public fitted attributes (``feature_groups_``, ``selected_groups_``,
...), never the plan, the data or the resolved costs. The plan holds

- ``data``: the fit's data as the selector validated it (in memory the
  :class:`~rankselect.data.grouping.TrainingData`, whose ``grouped`` is the query grouping; on
  Dask the query shards);
- the **units** a selection takes or drops: every feature, or with ``feature_groups`` and
  ``select_groups=True`` every group (``groups``, a :class:`~rankselect.data.FeatureGroups`
  checked once here, whatever its origin: labels, a mapping or a hand-built object);
- the **costs** (:class:`~rankselect.data.ExtractionCosts`: ``feature_costs`` plus each touched
  group's ``group_costs`` once) and the **budget**, checked once: ``group_costs`` needs
  ``feature_groups``; the costs' sum must be finite; the budget must admit the cheapest unit;
- the **value per unit cost** rule (:func:`value_per_cost`, below), with the selector's
  convention for a candidate that does not improve (``nonpositive``).

The value per unit cost
-----------------------
A budgeted or cost-aware greedy step compares candidates by their gain (an improvement of
the criterion, a penalised importance, an importance) per unit of their (marginal) cost::

    value(gain, cost) = gain / cost      gain > 0, cost > 0
                      = +inf             gain > 0, cost = 0  (a free candidate that improves)
                      = nonpositive rule gain <= 0

Ties go to the larger gain, then to the lowest index (the callers' order). The rule for a
gain that is not positive is the method's convention, one of :data:`NONPOSITIVE`:

- ``"gain"``: the gain itself, whatever the cost (when nothing improves, the least loss wins;
  an improving candidate always beats it): greedy RankRLS's rule in the core
  (``selection::greedy_rls::choice::choose_per_cost``) and :class:`ForwardSelection`'s;
- ``"scaled"``: ``gain * cost`` (a higher cost never helps): GAS and the FSA filters, whose
  penalised importance ``w_j - 2c sum e`` goes negative (Geng et al.'s greedy with costs);
- ``"zero"``: 0 (an importance below 0 counts as 0; then by importance):
  :class:`RecursiveElimination`, which drops the least value first.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional

import numpy as np

from .. import _core
from .._validation import check_budget, fits_budget
from ..data.feature_groups import ExtractionCosts, FeatureGroups, check_extraction_costs, check_feature_groups

__all__ = ["FitPlan", "value_per_cost", "NONPOSITIVE"]

#: the conventions of :func:`value_per_cost` for a gain that is not positive (module docstring)
NONPOSITIVE = ("gain", "scaled", "zero")


def value_per_cost(gain, cost, nonpositive: str = "gain") -> np.ndarray:
    """The value per unit cost of candidates (module docstring): ``gain / cost`` for a positive
    gain (``+inf`` when free), else by the convention ``nonpositive``.

    Parameters
    ----------
    gain : array-like of shape (n,)
    cost : array-like of shape (n,), >= 0
    nonpositive : {"gain", "scaled", "zero"}

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection import value_per_cost
    >>> gain, cost = np.array([0.6, 0.2, -0.1, -0.1]), np.array([2.0, 0.0, 3.0, 1.0])
    >>> value_per_cost(gain, cost)  # greedy RankRLS, ForwardSelection: the gain when none improves
    array([ 0.3,  inf, -0.1, -0.1])
    >>> value_per_cost(gain, cost, "scaled")  # GAS: a higher cost never helps
    array([ 0.3,  inf, -0.3, -0.1])
    """
    if nonpositive not in NONPOSITIVE:
        raise ValueError(f"nonpositive must be one of {NONPOSITIVE}, got {nonpositive!r}")
    g = np.asarray(gain, dtype=np.float64)
    c = np.asarray(cost, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        improving = np.where(c > 0, g / np.where(c > 0, c, 1.0), np.inf)
    other = g if nonpositive == "gain" else g * c if nonpositive == "scaled" else np.zeros_like(g)
    return np.where(g > 0, improving, other)


@dataclass(frozen=True, eq=False)
class FitPlan:
    """What one ``fit`` selects from (module docstring). Build it with :meth:`of`.

    Attributes
    ----------
    n_features : int
    groups : FeatureGroups or None
        The checked ``feature_groups`` (None without).
    by_group : bool
        The units are whole groups (``feature_groups`` with ``select_groups=True``).
    costs : ExtractionCosts
        The cost rule of the fit: ``feature_costs`` (1 per feature when no cost is given, 0
        when only ``group_costs`` are) and the groups' shared costs.
    priced : bool
        Whether ``feature_costs`` or ``group_costs`` were given (the per-cost rules apply).
    budget : float or None
    nonpositive : str
        The selector's convention of :func:`value_per_cost`.
    data : object
        The fit's data (a TrainingData in memory; the shards on Dask).

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> from rankselect.selection import FitPlan
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> gas = rs.GAS(2, feature_groups=[f"g{j // 4}" for j in range(22)], group_costs=[1, 1, 4, 2, 2, 1], budget=5)
    >>> plan = FitPlan.of(gas, None, X.shape[1])
    >>> plan.by_group, plan.n_units, plan.columns([1, 5]).tolist()
    (True, 6, [4, 5, 6, 7, 20, 21])
    >>> plan.marginal([0], [1, 2]), plan.cost(plan.columns([0, 1]))
    (array([1., 4.]), 2.0)
    """

    n_features: int
    groups: Optional[FeatureGroups] = None
    by_group: bool = False
    costs: ExtractionCosts = field(default=None)  # type: ignore[assignment]
    priced: bool = False
    budget: Optional[float] = None
    nonpositive: str = "gain"
    data: Any = None

    def __post_init__(self) -> None:
        if self.costs is None:
            object.__setattr__(self, "costs", ExtractionCosts(np.ones(self.n_features)))

    # ------------------------------------------------------------------ building

    @classmethod
    def of(cls, est, data, n_features: int, *, nonpositive: Optional[str] = None) -> FitPlan:
        """The plan of one ``fit`` of ``est`` on ``data`` (``n_features`` columns), from its
        parameters ``feature_groups``, ``select_groups``, ``feature_costs``, ``group_costs``
        and ``budget`` (those it has; a selector without one does not take it).

        ``nonpositive``: the convention of the value rule (default the selector's
        ``_nonpositive``, else ``"gain"``).
        """
        fg, gc = getattr(est, "feature_groups", None), getattr(est, "group_costs", None)
        groups = None if fg is None else check_feature_groups(fg, n_features)
        by_group = groups is not None and bool(getattr(est, "select_groups", True))
        fc, budget = getattr(est, "feature_costs", None), check_budget(getattr(est, "budget", None))
        costs = check_extraction_costs(fc, groups, gc, n_features)
        priced = fc is not None or gc is not None
        rule = nonpositive if nonpositive is not None else getattr(est, "_nonpositive", "gain")
        plan = cls(n_features, groups, by_group, costs, priced, budget, rule, data)
        plan._check_budget()
        return plan

    def _check_budget(self) -> None:
        """The budget must admit the cheapest unit (a whole group, or a feature with its group's
        cost)."""
        if self.budget is None:
            return
        cheapest = float(self.unit_costs.min()) if self.n_units else 0.0
        if self.by_group:
            unit = "group"
        else:
            unit = "feature (with its group's cost)" if self.costs.group_costs is not None else "feature"
        if not fits_budget(cheapest, self.budget):
            raise ValueError(f"budget={self.budget} is below the cheapest {unit}'s cost ({cheapest}): "
                             "nothing can be selected")

    # ------------------------------------------------------------------ units

    @cached_property
    def units(self) -> list[np.ndarray]:
        """The columns of every unit: each feature alone, or each group's members."""
        if self.by_group:
            assert self.groups is not None
            return self.groups.member_lists()
        return [np.array([j], dtype=np.intp) for j in range(self.n_features)]

    @property
    def n_units(self) -> int:
        return len(self.units)

    def columns(self, units) -> np.ndarray:
        """The columns of a list of units, unit after unit."""
        units = list(units)
        if not units:
            return np.zeros(0, dtype=np.intp)
        return np.concatenate([self.units[int(u)] for u in units]).astype(np.intp)

    def units_of(self, columns) -> list[int]:
        """The distinct units touched by ``columns``, in order of first appearance."""
        if not self.by_group:
            return list(dict.fromkeys(int(j) for j in columns))
        assert self.groups is not None
        return self.groups.groups_of(columns)

    def unit_constant(self, constant: np.ndarray) -> np.ndarray:
        """(n_units,) bool from the features' (n_features,): a unit whose every column is constant
        within every query cannot order two documents of a query (an uninformative unit)."""
        constant = np.asarray(constant, dtype=bool)
        return np.array([bool(constant[cols].all()) for cols in self.units], dtype=bool)

    def n_to_select(self, k) -> int:
        """``n_features_to_select`` as a number of units: a count in ``[1, n_units]`` or a
        fraction in (0, 1) of the units (``max(1, round(f n_units))``)."""
        t = int(k) if isinstance(k, numbers.Integral) else max(1, int(round(float(k) * self.n_units)))
        if not 1 <= t <= self.n_units:
            what = (f"counts groups with select_groups=True: it must be in [1, n_groups = {self.n_units}]"
                    if self.by_group else f"must be in [1, n_features = {self.n_units}]")
            raise ValueError(f"n_features_to_select {what}, got {k}")
        return t

    # ------------------------------------------------------------------ costs

    @cached_property
    def unit_costs(self) -> np.ndarray:
        """(n_units,): the cost of each unit alone (a group's members plus its group cost, the
        core's sum, ``_core.unit_costs``, that greedy RankRLS compares; a feature with its
        group's cost)."""
        if self.by_group:
            assert self.groups is not None
            members = self.groups.member_lists()
            offsets = np.cumsum([0] + [len(m) for m in members]).astype(np.uintp)
            columns = np.concatenate(members).astype(np.uintp)
            c = _core.unit_costs(self.n_features, (offsets, columns), self.costs.feature_costs,
                                 self.costs.group_costs, True)
            assert c is not None  # the feature costs are always given here (1 per feature by default)
            return c
        return self.costs.marginal([])

    def cost(self, columns) -> float:
        """The cost of a set of columns: the features' costs plus each touched group's cost once
        (1 per feature when no cost is given)."""
        return self.costs.total(np.asarray(columns, dtype=np.intp).tolist())

    def marginal(self, selected, candidates) -> np.ndarray:
        """What adding each of the units ``candidates`` to the units ``selected`` adds to the cost."""
        base_cols = self.columns(selected)
        base = self.cost(base_cols)
        return np.array([self.cost(np.concatenate([base_cols, self.units[int(u)]])) - base for u in candidates])

    def saved(self, kept) -> np.ndarray:
        """What removing each of the units ``kept`` from them saves (a group's cost only when
        its last member goes)."""
        kept = list(kept)
        total = self.cost(self.columns(kept))
        return np.array([total - self.cost(self.columns(kept[:a] + kept[a + 1:])) for a in range(len(kept))])

    def fits(self, cost) -> Any:
        """The budget rule (:func:`rankselect.analysis.costs.fits_budget`)."""
        return fits_budget(cost, self.budget)

    def value(self, gain, cost) -> np.ndarray:
        """:func:`value_per_cost` with this selector's convention."""
        return value_per_cost(gain, cost, self.nonpositive)

    def step_costs(self):
        """The costs a greedy search over the units compares: None when no cost is given and
        no budget (the plain rules), the units' fixed costs (n_units,), or, for features with
        shared group costs, the :class:`~rankselect.data.ExtractionCosts` whose marginal cost
        changes as groups are paid. Equal fixed costs without a budget are None: the same
        order as without costs."""
        if not self.priced and self.budget is None:
            return None
        if not self.by_group and self.costs.group_costs is not None:
            return self.costs
        c = self.unit_costs
        if self.budget is None and c.size and np.all(c == c[0]):
            return None
        return c
