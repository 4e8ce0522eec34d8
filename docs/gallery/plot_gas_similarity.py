"""
GAS: importance, redundancy and the similarity heat map
=======================================================

GAS (Geng et al. 2007) picks features of high importance that are not similar to the ones
already picked. The similarity is Kendall's tau between the rankings two features produce,
averaged over queries (:func:`rankselect.kendall_similarity`); the heat map shows the
blocks of redundant features, and how ``c`` trades importance against redundancy.
"""

# %%
# Importance and similarity on the shipped example
# ------------------------------------------------
import matplotlib.pyplot as plt
import numpy as np

import rankselect as rs
from rankselect.data.datasets import example_truth, load_example
from rankselect.plotting import plot_similarity

train = load_example("train")
truth = example_truth()
imp = rs.feature_importance(*train, measure="ndcg@10")
sim = rs.kendall_similarity(train.X, train.qid, variant="tau_b")
print("informative:", truth.informative, "redundant copies:", truth.redundant)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained",
                               gridspec_kw={"width_ratios": [1.2, 1]})
plot_similarity(np.abs(sim), ax=ax1, title="|Kendall tau-b| between features", vmin=0, vmax=1)
ax2.bar(np.arange(1, train.n_features + 1), imp.importance, color="C0")
ax2.set(xlabel="feature (1-based)", ylabel="NDCG@10 alone", title="importance")
plt.show()

# %%
# The trade-off ``c``
# -------------------
# With ``c = 0`` GAS ranks by importance alone and takes the copies of the best feature;
# a larger ``c`` spreads the selection over different signals. Precomputed importance
# and similarity make the sweep cheap.
redundant = set(truth.redundant.tolist())
cs = [0.0, 0.05, 0.1, 0.3, 1.0]
n_copies = []
for c in cs:
    gas = rs.GAS(6, c, importance=imp, similarity=sim).fit(*train)
    n_copies.append(sum(f in redundant for f in gas.selected_features_))
    print(f"c={c}: {gas.selected_features_}")
fig, ax = plt.subplots(figsize=(5, 3.2), layout="constrained")
ax.plot(cs, n_copies, marker="o")
ax.set(xlabel="c", ylabel="redundant copies among 6 selected", xscale="symlog", xlim=(0, 1.1))
plt.show()
