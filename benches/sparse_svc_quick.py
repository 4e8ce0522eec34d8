"""Single-run L1 sparse RankSVM vs LinearSVC on MQ2008 Fold1 at fixed tolerances (see RESULTS.md)."""
import sys
import time

import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))
from sklearn.svm import LinearSVC
from sparse_bench import l1_obj, load, pair_diffs

from rankselect import SparseRankSVM

X, y, qid = load(1, "train")
t = time.perf_counter()
Z = pair_diffs(X, y, qid)
tp = time.perf_counter() - t
C = 0.01
Xp = np.vstack([Z, -Z])
yp = np.r_[np.ones(len(Z)), -np.ones(len(Z))]
print(f"MQ2008 Fold1 train: {len(X)} rows, {len(Z)} pairs, C={C}, pair construction {tp:.2f}s")
res = {}
for tol in [1e-4, 1e-6, 1e-8]:
    t = time.perf_counter()
    e = SparseRankSVM(C=C, tol=tol, max_iter=100000).fit(X, y, qid=qid)
    dt = time.perf_counter() - t
    res[("ours", tol)] = (dt, l1_obj(Z, e.coef_, C), e.n_iter_, int(e.support_.sum()))
    print("rankselect", tol, res[("ours", tol)], flush=True)
for tol in [1e-2, 1e-4]:
    t = time.perf_counter()
    s = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, fit_intercept=False, tol=tol, C=C / 2,
                  max_iter=100000).fit(Xp, yp)
    dt = time.perf_counter() - t
    print("LinearSVC", tol, dt, l1_obj(Z, s.coef_.ravel(), C), int(np.count_nonzero(s.coef_)), flush=True)
