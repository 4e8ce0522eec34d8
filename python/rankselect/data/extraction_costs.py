"""The one cost rule with feature groups: :class:`ExtractionCosts` (re-exported by
:mod:`rankselect.data.feature_groups`, its public home).

A subset ``S`` costs ``c(S) = sum_{j in S} c_j + sum_{g : S meets g} C_g``: the features' own
costs plus each touched group's extraction cost, paid once by its first selected member.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import numpy as np

if TYPE_CHECKING:
    from .feature_groups import FeatureGroups

__all__ = ["ExtractionCosts"]


@dataclass(frozen=True, eq=False)
class ExtractionCosts:
    """Feature costs with shared group (extraction) costs: the one cost rule with groups.

    ``total(S) = sum_{j in S} feature_costs[j] + sum_{g touched by S} group_costs[g]``;
    ``marginal(j, S)`` is what adding ``j`` to ``S`` adds to it.

    Parameters
    ----------
    feature_costs : ndarray of shape (n_features,)
    groups : FeatureGroups or None
    group_costs : ndarray of shape (n_groups,) or None

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import ExtractionCosts, check_feature_groups
    >>> g = check_feature_groups(["body", "title", "body"], n_features=3)
    >>> c = ExtractionCosts(np.ones(3), g, np.array([10.0, 2.0]))
    >>> c.marginal([]).tolist(), c.marginal([0]).tolist()  # the first body feature pays for body
    ([11.0, 3.0, 11.0], [1.0, 3.0, 1.0])
    >>> c.total([0, 2]), c.group_total(0)
    (12.0, 12.0)
    """

    feature_costs: np.ndarray
    groups: Optional[FeatureGroups] = None
    group_costs: Optional[np.ndarray] = None

    def paid(self, selected: Iterable[int]) -> np.ndarray:
        """Boolean (n_groups,): the groups already paid for by ``selected``."""
        assert self.groups is not None
        out = np.zeros(self.groups.n_groups, dtype=bool)
        sel = np.asarray(list(selected), dtype=np.intp)
        out[self.groups.index[sel]] = True
        return out

    def marginal(self, selected: Iterable[int]) -> np.ndarray:
        """(n_features,): the cost that adding each column to ``selected`` adds."""
        c = np.array(self.feature_costs, dtype=float)
        if self.groups is not None and self.group_costs is not None:
            unpaid = ~self.paid(selected)
            c += np.where(unpaid[self.groups.index], self.group_costs[self.groups.index], 0.0)
        return c

    def total(self, selected: Iterable[int]) -> float:
        """The cost of the subset ``selected`` (each touched group's cost once)."""
        sel = list(selected)
        t = float(self.feature_costs[np.asarray(sel, dtype=np.intp)].sum()) if sel else 0.0
        if self.groups is not None and self.group_costs is not None and sel:
            t += float(self.group_costs[self.paid(sel)].sum())
        return t

    def group_total(self, g: int) -> float:
        """The cost of selecting the whole group ``g``: its extraction cost plus its members'."""
        assert self.groups is not None
        own = float(self.feature_costs[self.groups.members(g)].sum())
        return own + (float(self.group_costs[g]) if self.group_costs is not None else 0.0)
