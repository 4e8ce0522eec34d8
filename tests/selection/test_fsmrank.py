"""FSMRank: objective vs a high-precision L-BFGS-B solve of eq. (2), the O(1/t^2) envelope
(Theorem 2), constant features, plugged-in measures, the selector API and bad input."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from _pairwise_problems import make_problem, pair_diffs
from rankselect import FSMRank


def doubled(X, y):
    """Reference s, A of eq. (2) on [X, -X] computed directly on the doubled columns."""
    H = np.hstack([X, -X])
    C = np.corrcoef(np.column_stack([H, y]), rowvar=False)
    return np.abs(C[:-1, -1]), np.abs(C[:-1, :-1])


def psi(w, Z, A2, s2, l1, l2):
    d = Z.shape[1]
    u = w[:d] - w[d:]
    r = np.maximum(0.0, 1.0 - Z @ u)
    P = len(Z)
    val = 0.5 * l1 * w @ A2 @ w + l2 * np.sum(w / s2) + (r @ r) / P
    gu = -2.0 * Z.T @ r / P
    grad = l1 * A2 @ w + l2 / s2 + np.r_[gu, -gu]
    return val, grad


def lbfgsb(Z, A2, s2, l1, l2):
    d2 = A2.shape[0]
    res = minimize(psi, np.zeros(d2), args=(Z, A2, s2, l1, l2), jac=True, method="L-BFGS-B",
                   bounds=[(0, None)] * d2,
                   options=dict(ftol=1e-15, gtol=1e-12, maxiter=100_000, maxcor=30))
    return res.fun


@pytest.mark.parametrize("seed,l1,l2", [(0, 0.1, 0.01), (1, 1.0, 0.001), (2, 0.01, 0.05), (3, 0.0, 0.02)])
def test_objective_matches_lbfgsb(seed, l1, l2):
    X, y, qid = make_problem(seed, n=6)
    Z = pair_diffs(X, y, qid)
    s2, A2 = doubled(X, y)
    est = FSMRank(lambda1=l1, lambda2=l2, max_iter=100_000, tol=1e-12).fit(X, y, qid=qid)
    w2 = est.doubled_coef_
    assert np.all(w2 >= 0)
    np.testing.assert_allclose(w2[:6] - w2[6:], est.coef_)
    assert est.objective_ == pytest.approx(psi(w2, Z, A2, s2, l1, l2)[0], rel=1e-9)
    ref = lbfgsb(Z, A2, s2, l1, l2)
    assert est.objective_ == pytest.approx(ref, rel=1e-6)
    assert est.objective_ <= ref * (1 + 1e-7)


def test_theorem2_envelope():
    X, y, qid = make_problem(11, n=8)
    Z = pair_diffs(X, y, qid)
    s2, A2 = doubled(X, y)
    l1, l2 = 0.1, 0.005
    est = FSMRank(lambda1=l1, lambda2=l2, max_iter=3000, tol=1e-14).fit(X, y, qid=qid)
    h = est.objective_history_
    best = lbfgsb(Z, A2, s2, l1, l2)
    w_star = est.doubled_coef_
    # L0 of Theorem 1 for our datafit: 4/|P| sum ||z_p||^2 + lambda1 max row sum of A2
    L0 = 4.0 / len(Z) * np.sum(Z * Z) + l1 * A2.sum(axis=1).max()
    t = np.arange(1, len(h))
    # line search: L <= 2 L_f <= 2 L0, so psi(w_t) - psi* <= 2 (2 L0) ||w*||^2 / (t+1)^2
    envelope = 4.0 * L0 * (w_star @ w_star) / (t + 1) ** 2
    gap = h[1:] - best
    assert np.all(gap <= envelope + 1e-9), np.max(gap - envelope)
    assert gap[-1] <= 1e-6 * abs(best)


def test_constant_features_warn_once_and_stay_zero():
    X, y, qid = make_problem(12, n=5)
    X = np.hstack([np.zeros((len(X), 1)), X, np.full((len(X), 1), 2.5)])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est = FSMRank().fit(X, y, qid=qid)
    msgs = [w for w in rec if "constant" in str(w.message)]
    assert len(msgs) == 1
    assert est.coef_[0] == 0 and est.coef_[6] == 0
    np.testing.assert_array_equal(est.constant_features_, [0, 6])
    # one denominator: the features not all-zero on the training rows (6 of 7 here)
    assert est.sparsity_ratio_ == pytest.approx(est.support_.sum() / 6)
    # same model as without the constant columns
    ref = FSMRank().fit(X[:, 1:6], y, qid=qid)
    np.testing.assert_allclose(est.coef_[1:6], ref.coef_, atol=1e-12)


def test_arrays_for_measures_and_doubling():
    X, y, qid = make_problem(13, n=5)
    Z = pair_diffs(X, y, qid)
    rng = np.random.default_rng(0)
    s = rng.uniform(0.1, 1.0, size=5)
    M = rng.uniform(-1, 1, size=(5, 5))
    K = (M + M.T) / 2
    np.fill_diagonal(K, 1.0)
    est = FSMRank(lambda1=0.2, lambda2=0.01, importance=s, similarity=K, tol=1e-12,
                  max_iter=50_000).fit(X, y, qid=qid)
    A = np.abs(K)
    A2 = np.block([[A, A], [A, A]])
    s2 = np.r_[s, s]
    assert est.objective_ == pytest.approx(lbfgsb(Z, A2, s2, 0.2, 0.01), rel=1e-6)
    # the Pearson defaults equal the measures computed directly on [X, -X]
    e2 = FSMRank().fit(X, y, qid=qid)
    sd, Ad = doubled(X, y)
    np.testing.assert_allclose(np.r_[e2.importance_, e2.importance_], sd, atol=1e-12)
    np.testing.assert_allclose(np.block([[e2.similarity_] * 2] * 2), Ad, atol=1e-12)


def test_selector_api_and_accelerated_beats_plain():
    X, y, qid = make_problem(14, n=8)
    est = FSMRank(lambda2=0.02).fit(X, y, qid=qid)
    np.testing.assert_array_equal(est.get_support(), est.coef_ != 0)
    assert est.transform(X).shape[1] == est.support_.sum()
    np.testing.assert_allclose(est.predict(X), X @ est.coef_)
    fast = FSMRank(lambda2=0.02, max_iter=60, tol=1e-15).fit(X, y, qid=qid)
    slow = FSMRank(lambda2=0.02, max_iter=60, tol=1e-15).fit(X, y, qid=qid, accelerate=False)
    assert fast.objective_ <= slow.objective_ + 1e-12


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), l1=st.floats(0.0, 2.0), l2=st.floats(1e-4, 0.05))
def test_random_problems_hypothesis(seed, l1, l2):
    X, y, qid = make_problem(seed, m=40, n=4, n_queries=4)
    Z = pair_diffs(X, y, qid)
    if len(Z) == 0:
        return
    s2, A2 = doubled(X, y)
    est = FSMRank(lambda1=l1, lambda2=l2, tol=1e-11, max_iter=50_000).fit(X, y, qid=qid)
    assert est.objective_ <= lbfgsb(Z, A2, s2, l1, l2) * (1 + 1e-6)


@pytest.mark.parametrize("params,name", [
    (dict(lambda1=-0.1), "lambda1"), (dict(lambda2=-1.0), "lambda2"), (dict(max_iter=0), "max_iter"),
    (dict(tol=-1.0), "tol"), (dict(importance="gas"), "importance"), (dict(similarity=np.eye(3)), "similarity"),
    (dict(importance=np.ones(3)), "importance"), (dict(importance=-np.ones(8)), "importance"),
])
def test_bad_params(params, name):
    X, y, qid = make_problem(15)
    with pytest.raises(ValueError, match=name):
        FSMRank(**params).fit(X, y, qid=qid)


def test_similarity_checked_as_gas_checks_it():
    """FSMRank and GAS check a user similarity matrix with one rule (shape, finite, symmetric)."""
    from rankselect import GAS

    X, y, qid = make_problem(15)
    n = X.shape[1]
    skew = np.eye(n)
    skew[0, 1] = 0.5
    nan = np.eye(n)
    nan[1, 2] = nan[2, 1] = np.nan
    for bad, match in [(np.eye(n - 1), r"similarity must have shape \(8, 8\) to match X"),
                       (skew, "similarity must be a symmetric matrix"), (nan, "similarity contains NaN")]:
        for est in (FSMRank(similarity=bad), GAS(n_features_to_select=2, similarity=bad)):
            with pytest.raises(ValueError, match=match):
                est.fit(X, y, qid=qid)


def test_all_constant_features():
    from rankselect.exceptions import DegenerateDataWarning

    X, y, qid = make_problem(16)
    with pytest.warns(DegenerateDataWarning, match="no informative feature"):
        est = FSMRank().fit(np.ones_like(X), y, qid=qid)
    assert not est.coef_.any() and est.n_iter_ == 0


def test_fsmsvm_top_t_then_ranksvm():
    from rankselect import FSMSVM, RankSVM

    X, y, qid = make_problem(17, n=8)
    est = FSMSVM(n_features_to_select=3, lambda2=0.001).fit(X, y, qid=qid)
    fsm = FSMRank(lambda2=0.001).fit(X, y, qid=qid)
    np.testing.assert_array_equal(est.selected_features_, fsm.selected_features_[:3])
    ref = RankSVM().fit(X[:, est.selected_features_], y, qid=qid)
    np.testing.assert_allclose(est.coef_[est.selected_features_], ref.coef_)
    assert est.get_support().sum() == 3
    np.testing.assert_allclose(est.predict(X), X @ est.coef_)
    with pytest.raises(ValueError, match="n_features_to_select"):
        FSMSVM(n_features_to_select=0).fit(X, y, qid=qid)
