"""
Sparse RankSVM: the regularisation path
=======================================

:func:`rankselect.sparse_path` fits sparse RankSVM (Laporte et al. 2014) for a grid of
``C`` with warm starts, from the smallest ``C`` with a non-zero model. The coefficients
enter one by one; a non-convex penalty (log) keeps fewer of them at the same quality.
"""

import matplotlib.pyplot as plt

import rankselect as rs
from rankselect.data.datasets import load_example

train, vali = load_example("train"), load_example("vali")
paths = {penalty: rs.sparse_path(*train, penalty=penalty) for penalty in ("l1", "log")}
l1 = paths["l1"]
print("C:", l1.Cs.round(4))
print("features (l1): ", l1.n_selected)
print("features (log):", paths["log"].n_selected)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
ax1.plot(l1.Cs, l1.coefs)
ax1.set(xscale="log", xlabel="C", ylabel="coefficient", title="L1 path: coefficients")
for penalty, path in paths.items():
    ndcg = [rs.metrics.ndcg(vali.y, vali.X @ w, vali.qid, k=10) for w in path.coefs]
    ax2.plot(path.n_selected, ndcg, marker="o", label=penalty)
ax2.set(xlabel="number of non-zero coefficients", ylabel="NDCG@10 (validation)", title="quality against size")
ax2.legend(title="penalty")
plt.show()
