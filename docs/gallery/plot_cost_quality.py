"""
Feature costs: the cost-quality front
=====================================

When features cost latency, a selector should buy quality per unit cost. Greedy RankRLS
with ``feature_costs`` adds the feature of largest exact leave-query-out improvement per
unit cost; :func:`rankselect.analysis.costs.cost_quality_path` scores every prefix on validation
data and :func:`rankselect.plotting.plot_cost_quality` draws each path with its Pareto
front.
"""

import matplotlib.pyplot as plt
import numpy as np

import rankselect as rs
from rankselect.analysis.costs import cost_quality_path
from rankselect.data.datasets import load_example
from rankselect.plotting import plot_cost_quality

train, vali = load_example("train"), load_example("vali")
costs = np.random.default_rng(0).uniform(0.1, 3.0, train.n_features)  # e.g. ms per feature

blind = rs.GreedyRankRLS(n_features_to_select=12).fit(*train)
aware = rs.GreedyRankRLS(n_features_to_select=12, feature_costs=costs).fit(*train)
gas = rs.GAS(12, 0.1, feature_costs=costs).fit(*train)
paths = {
    "greedy RankRLS, cost-blind": cost_quality_path(blind, vali, costs),
    "greedy RankRLS, cost-aware": cost_quality_path(aware, vali, costs),
    "GAS, cost-aware (+ RankRLS)": cost_quality_path(gas, vali, costs, train=train),
}
for name, path in paths.items():
    front = path.pareto
    print(f"{name}: front costs {path.total_cost[front].round(2)}")

fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
plot_cost_quality(paths, ax=ax, title="NDCG@10 (validation) against total feature cost")
plt.show()
