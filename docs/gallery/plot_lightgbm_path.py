"""
Selection for LightGBM with ``evaluate_path``
=============================================

A selector's order is only as good as the ranker you deploy finds it.
:func:`rankselect.analysis.inspection.evaluate_path` fits a LightGBM ranker on every prefix of an
order and scores it on validation data, so the number of features is chosen with the
model that will use them. Here: the orders of greedy RankRLS, GAS and LightGBM's own
split-gain importance (trained on all features).
"""

import lightgbm as lgb
import matplotlib.pyplot as plt
import numpy as np

import rankselect as rs
from rankselect.analysis.inspection import evaluate_path
from rankselect.data.datasets import load_example

train, vali = load_example("train"), load_example("vali")


def ranker():
    return lgb.LGBMRanker(n_estimators=40, num_leaves=7, min_child_samples=5, verbose=-1)


full = ranker().fit(train.X, train.y, group=np.unique(train.qid, return_counts=True)[1])
orders = {
    "greedy RankRLS": rs.GreedyRankRLS(n_features_to_select=10).fit(*train).selected_features_,
    "GAS": rs.GAS(10, 0.1).fit(*train).selected_features_,
    "LightGBM gain": np.argsort(-full.booster_.feature_importance("gain"))[:10],
}
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for name, order in orders.items():
    curve = evaluate_path(order, ranker(), train, vali, scoring="ndcg@10")
    ax.plot(curve.n_features, curve.scores, marker="o", label=f"{name} (best k={curve.best_n_features})")
    print(f"{name}: order {order.tolist()}, best k {curve.best_n_features}, NDCG@10 {curve.scores.max():.3f}")
ax.set(xlabel="number of features k", ylabel="LightGBM NDCG@10 (validation)")
ax.legend()
plt.show()
