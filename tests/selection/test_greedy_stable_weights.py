"""The path's weights on ill-conditioned prefixes (issue 46): ``coef_path_`` at tiny alpha on
nearly collinear columns used to lose 5 digits (1.4e-5 relative at condition 9e11; a Cholesky
solve of the normal equations is accurate to about ``cond * eps``). The core now solves such
prefixes by QR on the data. Checked against the weights in exact rational arithmetic (the
float inputs taken exactly: centring, Gram matrix and solve in fractions)."""
from fractions import Fraction

import numpy as np
import pytest

from rankselect import GreedyRankRLS


def exact_weights(X, y, qid, cols, alpha):
    """RankRLS's weights on ``cols`` (eq. 5) in exact rationals: ``(Xc^T Xc + alpha I) w = Xc^T yc``."""
    F = Fraction
    rows = {}
    for i, q in enumerate(qid):
        rows.setdefault(q, []).append(i)

    def centred(v):
        out = [F(0)] * len(v)
        for idx in rows.values():
            mean = sum((F(float(v[i])) for i in idx), F(0)) / len(idx)
            for i in idx:
                out[i] = F(float(v[i])) - mean
        return out

    xc = [centred(X[:, j]) for j in cols]
    yc = centred(y)
    k = len(cols)
    a = [[sum((u * v for u, v in zip(xc[p], xc[q])), F(0)) + (F(alpha) if p == q else 0) for q in range(k)]
         + [sum((u * v for u, v in zip(xc[p], yc)), F(0))] for p in range(k)]
    for c in range(k):  # Gauss-Jordan in exact arithmetic (the matrix is positive definite)
        piv = a[c][c]
        a[c] = [v / piv for v in a[c]]
        for r in range(k):
            if r != c and a[r][c] != 0:
                f = a[r][c]
                a[r] = [v - f * w for v, w in zip(a[r], a[c])]
    return np.array([float(a[p][k]) for p in range(k)])


def near_collinear(seed, delta, scale=10.0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(4), [5, 6, 4, 5])
    X = scale * rng.normal(size=(qid.size, 4))
    X[:, 1] = X[:, 0] + delta * scale * rng.normal(size=qid.size)  # nearly a copy of column 0
    y = np.round(np.clip(0.3 * X[:, 0] + 0.2 * X[:, 2] + rng.normal(size=qid.size) * scale, 0, 30))
    return X, y, qid


def condition(X, qid, cols, alpha):
    Xc = X[:, cols].copy()
    for q in np.unique(qid):
        Xc[qid == q] -= Xc[qid == q].mean(axis=0)
    return np.linalg.cond(Xc.T @ Xc + alpha * np.eye(len(cols)))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("delta", [1e-5, 1e-6])
def test_ill_conditioned_prefixes_keep_their_digits(seed, delta):
    X, y, qid = near_collinear(seed, delta)
    alpha = 1e-8
    model = GreedyRankRLS(4, alpha=alpha).fit(X, y, qid=qid)
    sel = [int(j) for j in model.selected_features_]
    worst_cond = 0.0
    for p in range(1, len(sel) + 1):
        w = model.coef_path_[p - 1]
        ref = exact_weights(X, y, qid, sel[:p], alpha)
        rel = np.linalg.norm(w[sel[:p]] - ref) / np.linalg.norm(ref)
        worst_cond = max(worst_cond, condition(X, qid, sel[:p], alpha))
        assert rel <= 1e-9, (p, rel, condition(X, qid, sel[:p], alpha))
        assert np.all(np.delete(w, sel[:p]) == 0)
    assert worst_cond > 1e9  # the case is the ill-conditioned one


def test_well_conditioned_prefixes_are_unchanged():
    """Below the bound the weights are the Cholesky solve's (RankRLS on the same columns to 1e-12)."""
    from rankselect import RankRLS

    rng = np.random.default_rng(46)
    qid = np.repeat(np.arange(6), 5)
    X = rng.normal(size=(qid.size, 5))
    y = np.round(np.clip(X[:, 0] + rng.normal(size=qid.size), 0, 3))
    model = GreedyRankRLS(3, alpha=0.5).fit(X, y, qid=qid)
    sel = [int(j) for j in model.selected_features_]
    for p in range(1, 4):
        ref = exact_weights(X, y, qid, sel[:p], 0.5)
        np.testing.assert_allclose(model.coef_path_[p - 1][sel[:p]], ref, rtol=1e-12)
        np.testing.assert_allclose(RankRLS(alpha=0.5).fit(X[:, sel[:p]], y, qid=qid).coef_, ref, rtol=1e-10)
