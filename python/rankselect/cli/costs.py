"""``select --costs costs.csv --budget B``: feature costs for the selectors that take them
(greedy-rankrls, gas, ngas, xgas, hcas, sparse-ranksvm, rfe, forward; see
``rankselect.analysis.costs``). costs.csv holds one cost per feature in column order, or
``feature,cost`` lines with 1-based feature numbers."""
from __future__ import annotations

import argparse
from typing import Any, Optional

import numpy as np

from .._validation import check_budget
from ..analysis.costs import read_costs


def add_cost_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("feature costs")
    g.add_argument("--costs", metavar="COSTS.csv",
                   help="cost of each feature: one per line in column order, or 'feature,cost' lines (1-based)")
    g.add_argument("--budget", type=float, metavar="B",
                   help="greedy-rankrls and the filters (gas, ngas, xgas, hcas): never exceed this total cost "
                        "(default: no budget)")


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
    costs = read_costs(costs_path, n_features) if costs_path else np.ones(n_features)
    update: dict[str, Any] = {"feature_costs": costs if costs_path else None}
    if budget is not None:
        update["budget"] = check_budget(budget)
    est.set_params(**update)
    return costs
