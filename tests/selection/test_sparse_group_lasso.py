"""Sparse RankSVM with the group-lasso and sparse-group-lasso penalties (issue 33):
``sum_g (rho ||w_g||_1 + (1 - rho) sqrt(|g|) ||w_g||_2) + C·L(w)`` by FISTA."""
import numpy as np
import pytest

import rankselect as rs
from rankselect.models.penalties import GroupLasso, SparseGroupLasso


def problem(seed=0, n_groups=5, size=3, planted=(0, 2)):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 9, 20)
    qid = np.repeat(np.arange(sizes.size), sizes)
    n = n_groups * size
    X = rng.normal(size=(qid.size, n))
    labels = np.repeat(np.arange(n_groups), size)
    w = np.zeros(n)
    for g in planted:
        w[labels == g] = rng.uniform(0.5, 1.5, size)
    y = np.digitize(X @ w + 0.2 * rng.normal(size=qid.size), [-1.0, 1.0]).astype(float)
    return X, y, qid, labels


def loss_grad(X, y, qid, w, C):
    """Gradient of C·L(w), L the squared pairwise hinge over the preference pairs (NumPy)."""
    g = np.zeros(X.shape[1])
    for q in np.unique(qid):
        r = np.flatnonzero(qid == q)
        for i in r:
            for j in r:
                if y[i] > y[j]:
                    d = X[i] - X[j]
                    g -= 2.0 * max(0.0, 1.0 - w @ d) * d
    return C * g


def fit(X, y, qid, labels, **kw):
    kw = {"C": 0.05, "penalty": "group_lasso", "solver": "fista", "tol": 1e-10, "max_iter": 50_000, **kw}
    return rs.SparseRankSVM(feature_groups=labels, **kw).fit(X, y, qid=qid)


@pytest.mark.parametrize("rho", [0.0, 0.4])
def test_kkt_at_the_solution(rho):
    X, y, qid, labels = problem()
    penalty = GroupLasso() if rho == 0 else SparseGroupLasso(l1_ratio=rho)
    svm = fit(X, y, qid, labels, penalty=penalty)
    w, grad = svm.coef_, loss_grad(X, y, qid, svm.coef_, 0.05)
    assert svm.converged_
    zero_groups = 0
    for g in np.unique(labels):
        m = labels == g
        lam = (1 - rho) * np.sqrt(m.sum())
        if not w[m].any():  # ||S(grad_g, rho)|| <= (1 - rho) sqrt(|g|)
            zero_groups += 1
            assert np.linalg.norm(np.maximum(np.abs(grad[m]) - rho, 0)) <= lam * (1 + 1e-6)
        else:  # grad_j + rho sign(w_j) + lam w_j / ||w_g|| = 0 on the non-zero members
            nz = m & (w != 0)
            r = grad[nz] + rho * np.sign(w[nz]) + lam * w[nz] / np.linalg.norm(w[m])
            np.testing.assert_allclose(r, 0, atol=1e-5 * max(1.0, np.abs(grad).max()))
            assert (np.abs(grad[m & (w == 0)]) <= rho + 1e-6).all()
    assert 0 < zero_groups < 5


def test_groups_of_one_are_the_l1_penalty():
    X, y, qid, _ = problem(1)
    singles = np.arange(X.shape[1])
    a = fit(X, y, qid, singles)
    b = rs.SparseRankSVM(C=0.05, solver="fista", tol=1e-10, max_iter=50_000).fit(X, y, qid=qid)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-7)
    c0 = rs.SparseRankSVM(penalty="group_lasso", feature_groups=singles, solver="fista").c_min(X, y, qid)
    assert c0 == pytest.approx(rs.SparseRankSVM().c_min(X, y, qid), rel=1e-12)


def test_planted_groups_enter_whole_and_the_others_drop():
    X, y, qid, labels = problem(2, planted=(1, 3))
    svm = fit(X, y, qid, labels, C=0.02)
    kept = set(labels[svm.support_])
    assert kept <= {1, 3} and kept
    for g in kept:
        assert svm.support_[labels == g].all()
    assert set(svm.selected_groups_) == {str(g) for g in kept}


def test_path_drops_whole_groups():
    X, y, qid, labels = problem(3)
    est = rs.SparseRankSVM(penalty="group_lasso", feature_groups=labels, solver="fista", tol=1e-9,
                           max_iter=20_000)
    c0 = est.c_min(X, y, qid)
    assert not fit(X, y, qid, labels, C=0.99 * c0).coef_.any()
    assert fit(X, y, qid, labels, C=1.2 * c0).coef_.any()
    path = rs.sparse_path(X, y, qid, Cs=c0 * np.array([0.9, 1.5, 5, 50]), penalty="group_lasso",
                          feature_groups=labels, solver="fista", tol=1e-9, max_iter=20_000)
    for coef, k in zip(path.coefs, path.n_groups_selected):
        nonzero = [g for g in range(5) if coef[labels == g].any()]
        assert len(nonzero) == k
        for g in nonzero:
            assert (coef[labels == g] != 0).all()
    assert path.n_groups_selected[0] == 0 and path.n_groups_selected[-1] > 1


def test_clear_errors():
    X, y, qid, labels = problem(4)
    with pytest.raises(ValueError, match="needs feature_groups"):
        rs.SparseRankSVM(penalty="group_lasso", solver="fista").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match='solver="fista"'):
        rs.SparseRankSVM(penalty="group_lasso", feature_groups=labels).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="select_groups=False"):
        rs.SparseRankSVM(feature_groups=labels).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="weights"):
        rs.SparseRankSVM(penalty="group_lasso", feature_groups=labels, solver="fista",
                         weights=np.ones(X.shape[1])).fit(X, y, qid=qid)
