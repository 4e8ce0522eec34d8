"""Small random ranking problems and their explicit preference pairs, shared by the tests of
the sparse rankers (tests/selection/test_sparse_ranksvm.py, tests/selection/test_fsmrank.py)."""
import numpy as np


def make_problem(seed, m=80, n=8, n_queries=8, levels=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    w_true = np.zeros(n)
    w_true[: max(1, n // 3)] = rng.normal(size=max(1, n // 3))
    s = X @ w_true + 0.5 * rng.normal(size=m)
    y = np.digitize(s, np.quantile(s, np.linspace(0, 1, levels + 1)[1:-1])).astype(float)
    qid = rng.integers(0, n_queries, size=m)
    return X, y, qid


def pair_diffs(X, y, qid):
    """Explicit x_i - x_j for every preference pair (same query, y_i > y_j)."""
    Z = []
    for q in np.unique(qid):
        idx = np.flatnonzero(qid == q)
        for i in idx:
            for j in idx:
                if y[i] > y[j]:
                    Z.append(X[i] - X[j])
    return np.asarray(Z)
