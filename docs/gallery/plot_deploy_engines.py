"""
From the chosen *k* to the search engine's files
================================================

Choose the number of features with the ranker you deploy, train it on that subset, and
write what each search engine takes: the feature set (one query per feature, computed for
every re-ranked document) and the model, its thresholds written so that the engine scores
every document as LightGBM does (:doc:`/user_guide/deploying`).
"""

import lightgbm as lgb
import matplotlib.pyplot as plt
import numpy as np

import rankselect as rs
from rankselect.analysis.inspection import evaluate_path
from rankselect.data.datasets import load_example

train, vali = load_example("train"), load_example("vali")
order = rs.GreedyRankRLS(n_features_to_select=10).fit(*train).selected_features_


def ranker():
    return lgb.LGBMRanker(n_estimators=40, num_leaves=7, min_child_samples=5, verbose=-1)


curve = evaluate_path(order, ranker(), train, vali, scoring="ndcg@10")
k = curve.best_n_features
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.plot(curve.n_features, curve.scores, marker="o")
ax.axvline(k, color="0.5", ls="--", label=f"deployed: k = {k}, {k} queries per re-ranked document")
ax.set(xlabel="number of features k (greedy RankRLS order)", ylabel="LightGBM NDCG@10 (validation)")
ax.legend()
plt.show()

# %%
# The production ranker on the chosen subset, in selection order:
cols = list(order[:k])
model = ranker().fit(train.X[:, cols], train.y, group=np.unique(train.qid, return_counts=True)[1])

# %%
# One template per feature (here a field match per feature; in practice your queries) and
# the files of every engine. Elasticsearch takes a query object, Solr a ``q`` string, Vespa a
# rank-feature expression: ``templates`` may hold one mapping per engine.
templates = {
    "opensearch": {j + 1: {"match": {f"field_{j + 1}": "{{keywords}}"}} for j in cols},
    "elasticsearch": {j + 1: {"match": {f"field_{j + 1}": "{{keywords}}"}} for j in cols},
    "solr": {j + 1: f"field_{j + 1}:(${{keywords}})" for j in cols},
    "vespa": {j + 1: f"bm25(field_{j + 1})" for j in cols},
}
for engine in ("opensearch", "solr", "elasticsearch", "vespa"):
    out = rs.export_engine(engine, cols, model, templates=templates, n_features=train.n_features)
    sizes = ", ".join(f"{name} ({len(text) / 1000:.1f} kB)" for name, text in out.files.items())
    print(f"{engine}: {sizes}")

# %%
# Vespa's rank profile: one function per feature, the trees in ``models/``:
print(rs.export_engine("vespa", cols, model, templates=templates,
                       n_features=train.n_features).files["rankselect.profile"])
