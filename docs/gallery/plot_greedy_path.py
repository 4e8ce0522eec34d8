"""
Greedy RankRLS: the path, and k chosen on validation
====================================================

Greedy RankRLS (Pahikkala et al. 2010) adds one feature at a time, the one with the best
exact leave-query-out (LQO) error, and keeps the model of every prefix in ``coef_path_``.
The LQO error on the training data and the ``NDCG@10`` of each prefix on the validation data
tell how many features to keep, with no refit.
"""

# %%
# The path on the shipped example
# -------------------------------
# 22 features: a few informative ones, redundant copies and noise.
import matplotlib.pyplot as plt
import numpy as np

import rankselect as rs
from rankselect.data.datasets import example_truth, load_example

train, vali = load_example("train"), load_example("vali")
sel = rs.GreedyRankRLS(n_features_to_select=12, alpha=1.0).fit(*train)
vali_ndcg = [rs.metrics.ndcg(vali.y, vali.X @ w, vali.qid, k=10) for w in sel.coef_path_]
best_k = int(np.argmax(vali_ndcg)) + 1
informative = set(example_truth().informative.tolist())
print("selection order:", sel.selected_features_)
print("informative features:", sorted(informative))
print("k chosen on validation:", best_k)

# %%
# The LQO criterion falls while informative features are added (filled markers) and
# flattens once only copies and noise are left; validation ``NDCG@10`` peaks at ``best_k``.
ks = np.arange(1, len(sel.selected_features_) + 1)
filled = np.array([f in informative for f in sel.selected_features_])
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
ax1.plot(ks, sel.lqo_scores_, color="C0")
ax1.scatter(ks[filled], sel.lqo_scores_[filled], color="C0", label="informative")
ax1.scatter(ks[~filled], sel.lqo_scores_[~filled], facecolor="white", edgecolor="C0", label="other")
ax1.set(xlabel="number of features k", ylabel="LQO squared error (train)", title="greedy path")
ax1.legend()
ax2.plot(ks, vali_ndcg, marker="o", color="C1")
ax2.axvline(best_k, color="grey", linestyle="--")
ax2.set(xlabel="number of features k", ylabel="NDCG@10 (validation)", title=f"k = {best_k} chosen")
plt.show()

# %%
# On MQ2008 (LETOR 4.0), when the shared data is there
# ----------------------------------------------------
# The same on Fold 1 of MQ2008 (46 features, 9 630 training rows), scored with LETOR's
# conventions, as in the paper's tables. Skipped when the data is absent.
from pathlib import Path

try:
    GALLERY = Path(__file__).resolve().parent
except NameError:  # sphinx-gallery runs the script in its own folder, without __file__
    GALLERY = Path.cwd()
MQ2008 = GALLERY.parents[1].parent / "shared" / "data" / "MQ2008" / "Fold1"
if (MQ2008 / "train.txt").exists():
    mq_train = rs.load_letor(MQ2008 / "train.txt")
    mq_vali = rs.load_letor(MQ2008 / "vali.txt", n_features=mq_train.n_features)
    mq = rs.GreedyRankRLS(n_features_to_select=20, alpha=1.0).fit(*mq_train)
    mq_map = [rs.metrics.mean_average_precision(mq_vali.y, mq_vali.X @ w, mq_vali.qid, convention="letor")
              for w in mq.coef_path_]
    print("MQ2008 Fold1, first features (1-based):", (mq.selected_features_[:5] + 1).tolist())
    fig, ax = plt.subplots(figsize=(5, 3.5), layout="constrained")
    ax.plot(np.arange(1, 21), mq_map, marker="o")
    ax.set(xlabel="number of features k", ylabel="MAP (validation, LETOR)", title="MQ2008 Fold1")
    plt.show()
else:
    print(f"MQ2008 not found at {MQ2008}: skipped")
