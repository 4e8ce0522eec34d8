"""The report's own inputs, checked once for both sources: feature names, the features' own
costs, the feature groups and their costs."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..data.feature_groups import FeatureGroups, check_feature_groups, check_group_costs

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
    costs = None
    if feature_costs is not None:
        c = np.asarray(feature_costs, dtype=np.float64).reshape(-1)
        if c.shape != (n,):
            raise ValueError(f"feature_costs has {c.size} values but there are {n} features")
        if not np.all(np.isfinite(c)) or (c < 0).any():
            raise ValueError("feature_costs must be finite and >= 0")
        costs = c.tolist()
    gc = None
    if group_costs is not None:
        if groups is None:
            raise ValueError("group_costs needs feature_groups (the groups whose costs they are)")
        gc = check_group_costs(group_costs, groups).tolist()
    return Inputs(names, costs, groups, gc)
