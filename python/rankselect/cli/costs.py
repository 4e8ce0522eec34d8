"""``select --costs costs.csv --budget B``: feature costs for the selectors that take them
(greedy-rankrls, gas, ngas, xgas, hcas, sparse-ranksvm, rfe, forward; see
``rankselect.analysis.costs``). costs.csv holds one cost per feature in column order, or
``feature,cost`` lines with 1-based feature numbers.

``--groups groups.csv`` (``feature,group[,cost]`` lines, :func:`rankselect.data.read_feature_groups`)
or ``--layout letor4:stream`` (:func:`rankselect.data.datasets.feature_layout`) give the feature
families; ``--select-groups`` (default) selects whole groups (``-k`` counts groups),
``--no-select-groups`` selects features, each group's cost paid once by its first member."""
from __future__ import annotations

import argparse
from decimal import Decimal
from typing import Any, Optional

import numpy as np

from .._validation import check_budget
from ..analysis.costs import read_costs
from ..data.datasets.layouts import GROUPINGS, LAYOUTS, feature_layout
from ..data.feature_groups import FeatureGroups, check_group_costs, read_feature_groups
from .common import reading
from .select_result import Costs


def add_cost_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("feature costs")
    g.add_argument("--costs", metavar="COSTS.csv",
                   help="cost of each feature: one per line in column order, or 'feature,cost' lines (1-based)")
    g.add_argument("--budget", type=float, metavar="B",
                   help="greedy-rankrls and the filters (gas, ngas, xgas, hcas): never exceed this total cost "
                        "(default: no budget)")
    g.add_argument("--groups", metavar="GROUPS.csv",
                   help="feature families: 'feature,group[,cost]' lines (1-based features; cost: the group's "
                        "extraction cost, paid once)")
    g.add_argument("--layout", metavar="NAME:BY",
                   help=f"a built-in layout as the feature families: NAME {' or '.join(LAYOUTS)}, BY "
                        f"{' or '.join(GROUPINGS)} (default {GROUPINGS[0]}), e.g. letor4:stream or mslr:measure")
    g.add_argument("--select-groups", action=argparse.BooleanOptionalAction, default=True,
                   help="with --groups/--layout: select whole groups (-k counts groups; default) or features")


def apply_groups(est, args: argparse.Namespace, n_features: int) -> Optional[FeatureGroups]:
    """Set ``feature_groups`` / ``group_costs`` / ``select_groups`` on the estimator from
    ``--groups`` or ``--layout``; returns the groups (None without either)."""
    path, layout = getattr(args, "groups", None), getattr(args, "layout", None)
    if path is None and layout is None:
        return None
    if path is not None and layout is not None:
        raise ValueError("give --groups or --layout, not both")
    if "feature_groups" not in est.get_params():
        raise ValueError(f"method {args.method} does not take feature groups (--groups/--layout)")
    groups, gc = read_groups(path, layout, n_features)
    update: dict[str, Any] = {"feature_groups": groups, "select_groups": bool(args.select_groups)}
    if "group_costs" in est.get_params():
        update["group_costs"] = gc
    elif gc is not None:  # a method that prices nothing takes no group cost (issue 40)
        raise ValueError(f"method {args.method} uses no costs: the group costs of --groups {path} would have no "
                         "effect (drop the file's cost column, or use a method that takes costs)")
    est.set_params(**update)
    return groups


def read_groups(path: Optional[str], layout: Optional[str], n_features: int
                ) -> tuple[FeatureGroups, Optional[np.ndarray]]:
    """The groups (and group costs) of ``--groups FILE`` or ``--layout NAME:BY`` (a ValueError
    names the option)."""
    if path is not None:
        with reading("--groups", path):
            return read_feature_groups(path, n_features)
    groups = layout_groups(str(layout))
    if groups.n_features != n_features:
        raise ValueError(f"--layout {layout} describes {groups.n_features} features but the data has {n_features}")
    return groups, None


def layout_groups(layout: str) -> FeatureGroups:
    """The groups of ``--layout NAME[:BY]`` (a ValueError names the option and the choices).

    Examples
    --------
    >>> from rankselect.cli.costs import layout_groups
    >>> layout_groups("letor4:measure").n_groups
    14
    """
    name, _, by = layout.partition(":")
    by = by or GROUPINGS[0]
    if by not in GROUPINGS:
        raise ValueError(f"--layout {layout}: unknown grouping {by!r}; give NAME:{' or NAME:'.join(GROUPINGS)}")
    try:
        return feature_layout(name, by=by)
    except ValueError as exc:
        raise ValueError(f"--layout {layout}: {exc}") from None


def exact_sum(values) -> float:
    """The sum of ``values`` as written in decimal (each float's shortest repr), rounded once:
    costs ``0.1, 0.2`` total ``0.3``, where the float sum (and ``math.fsum``, the exact sum of
    the binary values) is ``0.30000000000000004``.

    Examples
    --------
    >>> from rankselect.cli.costs import exact_sum
    >>> exact_sum([0.7, 2.1, 2.137]), 0.7 + 2.1 + 2.137
    (4.937, 4.936999999999999)
    """
    return float(sum((Decimal(repr(float(v))) for v in values), Decimal(0)))


def cost_summary(costs: Optional[np.ndarray], groups: Optional[FeatureGroups], est, selected: list,
                 args: argparse.Namespace) -> Optional[Costs]:
    """The cost of a selection (None without costs): the total with each touched group's cost
    once (the rule of :class:`~rankselect.data.ExtractionCosts`) and, with groups, the
    features' own costs, each an :func:`exact_sum`."""
    gc = None if groups is None else est.get_params().get("group_costs")
    if costs is None and gc is None:
        return None
    budget, file = getattr(args, "budget", None), getattr(args, "costs", None)
    own = [] if costs is None else [float(costs[j]) for j in selected]
    if groups is None:
        return Costs(total=exact_sum(own), file=file, budget=budget)
    paid = groups.groups_of(selected)
    shared = [] if gc is None else [float(c) for c in check_group_costs(gc, groups)[paid]]
    return Costs(total=exact_sum(own + shared), file=file, budget=budget, features=exact_sum(own),
                 groups_paid=[groups.names[g] for g in paid])


def apply_costs(est, args: argparse.Namespace, n_features: int) -> Optional[np.ndarray]:
    """Set ``feature_costs`` / ``budget`` on the estimator from ``--costs`` / ``--budget``;
    returns the costs (None without ``--costs`` and ``--budget``)."""
    costs_path, budget = getattr(args, "costs", None), getattr(args, "budget", None)
    if costs_path is None and budget is None:
        return None
    params = est.get_params()
    if "feature_costs" not in params or (budget is not None and "budget" not in params):
        what = "a budget" if "feature_costs" in params else "feature costs"
        raise ValueError(f"method {args.method} does not take {what} (--costs: greedy-rankrls, "
                         "gas, ngas, xgas, hcas, sparse-ranksvm, rfe, forward; --budget: the same but sparse-ranksvm)")
    groups = est.get_params().get("feature_groups")
    default = np.zeros(n_features) if groups is not None and est.get_params().get("group_costs") is not None \
        else np.ones(n_features)
    if costs_path:
        with reading("--costs", costs_path):
            costs = read_costs(costs_path, n_features)
    else:
        costs = default
    update: dict[str, Any] = {"feature_costs": costs if costs_path else None}
    if budget is not None:
        update["budget"] = check_budget(budget)
    est.set_params(**update)
    return costs
