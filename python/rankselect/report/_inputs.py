"""The report's own inputs, checked once for both sources: feature names, the features' own
costs, the feature groups and their costs."""
from __future__ import annotations

from typing import Optional

from ..data.feature_groups import FeatureGroups, check_extraction_costs, check_feature_groups

__all__ = ["Inputs", "check_inputs"]



class Inputs:
    """Checked names (one per feature), costs (or None), groups (or None) and group costs."""

    def __init__(self, names: list[str], costs: Optional[list[float]], groups: Optional[FeatureGroups],
                 group_costs: Optional[list[float]]) -> None:
        self.names, self.costs, self.groups, self.group_costs = names, costs, groups, group_costs


def check_inputs(n: int, *, feature_names=None, feature_costs=None, feature_groups=None, group_costs=None,
                 fallback_names=None) -> Inputs:
    """Names from ``feature_names``, else the groups' own (a layout's), else ``fallback_names``
    (the data's), else the 1-based numbers; costs of shape (n,), finite and >= 0."""
    groups = None if feature_groups is None else check_feature_groups(feature_groups, n)
    source = feature_names
    if source is None and groups is not None and groups.feature_names is not None:
        source = groups.feature_names
    if source is None:
        source = fallback_names
    if source is None:
        names = [str(j + 1) for j in range(n)]
    else:
        if isinstance(source, (str, bytes)):
            raise TypeError("feature_names must be a sequence of names, one per feature, not a string")
        names = [str(s) for s in source]
        if len(names) != n:
            raise ValueError(f"feature_names has {len(names)} names but there are {n} features")
    costs = gc = None
    if feature_costs is not None or group_costs is not None:  # the selectors' cost rule, checked once
        ext = check_extraction_costs(feature_costs, groups, group_costs, n)
        costs = None if feature_costs is None else ext.feature_costs.tolist()
        gc = None if ext.group_costs is None else ext.group_costs.tolist()
    return Inputs(names, costs, groups, gc)
