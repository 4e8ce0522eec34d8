"""
A statistical comparison of methods
===================================

Compare rankers the way IR papers do: per-query scores on the test split, a paired
randomization test against a baseline, Holm's correction across methods and effect sizes
with confidence intervals (:func:`rankselect.analysis.stats.compare`).
"""

import matplotlib.pyplot as plt

import rankselect as rs
from rankselect import metrics
from rankselect.analysis import stats
from rankselect.data.datasets import load_example

train, test = load_example("train"), load_example("test")
models = {
    "RankRLS (all)": rs.RankRLS(alpha=1.0),
    "greedy RankRLS k=5": rs.GreedyRankRLS(n_features_to_select=5),
    "GAS k=5 + RankRLS": None,
    "sparse RankSVM": rs.SparseRankSVM(C=0.05),
    "FSMRank": rs.FSMRank(),
}
per_query = {}
for name, model in models.items():
    if model is None:  # a filter: rank with RankRLS on its features
        gas = rs.GAS(5, 0.1).fit(*train)
        model = rs.RankRLS(alpha=1.0).fit(gas.transform(train.X), train.y, qid=train.qid)
        scores = model.predict(gas.transform(test.X))
    else:
        scores = model.fit(*train).predict(test.X)
    per_query[name] = metrics.ndcg(test.y, scores, test.qid, k=10, per_query=True)

result = stats.compare(per_query, baseline="RankRLS (all)", test="randomization", random_state=0)
print(result.to_markdown())

# %%
# Mean ``NDCG@10`` per method with 95% confidence intervals over the test queries.
names = list(per_query)
means, lows, highs = [], [], []
for name in names:
    mean = per_query[name].mean()
    low, high = stats.mean_confidence_interval(per_query[name])
    means.append(mean)
    lows.append(mean - low)
    highs.append(high - mean)
fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
ax.barh(names, means, xerr=[lows, highs], color="C0", capsize=3)
ax.set(xlabel="NDCG@10 (test), 95% CI over queries", xlim=(min(means) - 0.1, 1.0))
ax.invert_yaxis()
plt.show()
