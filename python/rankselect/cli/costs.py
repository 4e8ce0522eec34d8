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
from typing import Any, Optional

import numpy as np

from .._validation import check_budget
from ..analysis.costs import read_costs
from ..data.datasets.layouts import feature_layout
from ..data.feature_groups import ExtractionCosts, FeatureGroups, read_feature_groups


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
                   help="a built-in layout as the feature families, e.g. letor4:stream or mslr:measure")
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
    est.set_params(feature_groups=groups, group_costs=gc, select_groups=bool(args.select_groups))
    return groups


def read_groups(path: Optional[str], layout: Optional[str], n_features: int
                ) -> tuple[FeatureGroups, Optional[np.ndarray]]:
    """The groups (and group costs) of ``--groups FILE`` or ``--layout NAME:BY``."""
    if path is not None:
        return read_feature_groups(path, n_features)
    name, _, by = str(layout).partition(":")
    groups = feature_layout(name, by=by or "stream")
    if groups.n_features != n_features:
        raise ValueError(f"--layout {layout} describes {groups.n_features} features but the data has {n_features}")
    return groups, None


def cost_summary(costs: Optional[np.ndarray], groups: Optional[FeatureGroups], est, selected: list) -> dict:
    """Both cost levels of a selection: the features' own costs and the total with each
    touched group's cost once (:class:`~rankselect.data.ExtractionCosts`)."""
    gc = None if groups is None else est.get_params().get("group_costs")
    if costs is None and gc is None:
        return {}
    fc = costs if costs is not None else np.zeros(len(groups.index) if groups is not None else 0)
    from ..data.feature_groups import check_group_costs
    ext = ExtractionCosts(np.asarray(fc, dtype=float), groups, None if gc is None or groups is None
                          else check_group_costs(gc, groups))
    out: dict = {"feature_cost": float(np.asarray(fc, dtype=float)[selected].sum()) if selected else 0.0,
                 "total_cost": ext.total(selected)}
    if groups is not None:
        out["groups_paid"] = [groups.names[g] for g in groups.groups_of(selected)]
    return out


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
    costs = read_costs(costs_path, n_features) if costs_path else default
    update: dict[str, Any] = {"feature_costs": costs if costs_path else None}
    if budget is not None:
        update["budget"] = check_budget(budget)
    est.set_params(**update)
    return costs
