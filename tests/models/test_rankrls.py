"""RankRLS: direct solve, exact leave-query-out predictions, alpha paths, bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _rankrls_reference import center, load_mq2008, lqo, ridge
from rankselect import RankRLS, RankRLSPath


def make(seed, sizes, n, shuffle=False):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    X = rng.normal(size=(len(qid), n))
    y = rng.integers(0, 3, size=len(qid)).astype(float)
    if shuffle:
        p = rng.permutation(len(qid))
        X, y, qid = X[p], y[p], qid[p]
    return X, y, qid


problems = st.tuples(
    st.integers(0, 2**32 - 1),
    st.lists(st.integers(1, 6), min_size=2, max_size=6),
    st.integers(1, 5),
    st.booleans(),
    st.floats(0.01, 100.0),
)


@settings(max_examples=40, deadline=None)
@given(problems)
def test_fit_and_lqo_match_brute_force(p):
    seed, sizes, n, shuffle, alpha = p
    X, y, qid = make(seed, sizes, n, shuffle)
    model = RankRLS(alpha=alpha).fit(X, y, qid=qid)
    w = ridge(center(X, qid), center(y, qid), alpha)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.predict(X), X @ w, rtol=1e-9, atol=1e-12)
    err, pred = lqo(X, y, qid, alpha)
    np.testing.assert_allclose(model.lqo_predict(X, y, qid), pred, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.lqo_errors_[0], err, rtol=1e-9, atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(problems)
def test_alpha_list_gives_lqo_error_per_alpha(p):
    seed, sizes, n, shuffle, _ = p
    X, y, qid = make(seed, sizes, n, shuffle)
    alphas = [0.05, 1.0, 30.0]
    model = RankRLS(alpha=alphas).fit(X, y, qid=qid)
    ref = [lqo(X, y, qid, a)[0] for a in alphas]
    np.testing.assert_allclose(model.lqo_errors_, ref, rtol=1e-8, atol=1e-12)
    best = alphas[int(np.argmin(model.lqo_errors_))]
    assert model.alpha_ == best
    np.testing.assert_allclose(model.coef_, ridge(center(X, qid), center(y, qid), best), rtol=1e-8, atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(problems)
def test_path_equals_one_fit_per_alpha(p):
    seed, sizes, n, shuffle, _ = p
    X, y, qid = make(seed, sizes, n, shuffle)
    alphas = [30.0, 0.05, 1.0, 0.05]  # any order, repeats allowed
    path = RankRLS().path(X, y, qid, alphas=alphas)
    assert isinstance(path, RankRLSPath)
    np.testing.assert_array_equal(path.alphas, alphas)
    assert path.coefs.shape == (len(alphas), n) and path.lqo_errors.shape == (len(alphas),)
    for a, coef, err in zip(alphas, path.coefs, path.lqo_errors):
        single = RankRLS(alpha=a).fit(X, y, qid=qid)
        np.testing.assert_allclose(coef, single.coef_, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(err, single.lqo_errors_[0], rtol=1e-8, atol=1e-12)
    # RankRLS(alpha=list) keeps the LQO-best model of the same path, exactly
    model = RankRLS(alpha=alphas).fit(X, y, qid=qid)
    np.testing.assert_array_equal(model.lqo_errors_, path.lqo_errors)
    assert model.alpha_ == alphas[path.best_index]
    np.testing.assert_array_equal(model.coef_, path.coefs[path.best_index])


def test_path_defaults_to_the_estimators_alpha_and_does_not_fit():
    X, y, qid = make(3, [4, 5, 3], 4)
    est = RankRLS(alpha=[0.5, 2.0])
    path = est.path(X, y, qid)
    np.testing.assert_array_equal(path.alphas, [0.5, 2.0])
    assert not hasattr(est, "coef_")
    scalar = RankRLS(alpha=0.5).path(X, y, qid)
    assert scalar.coefs.shape == (1, 4)
    with pytest.raises(ValueError, match="alphas"):
        est.path(X, y, qid, alphas=[1.0, 0.0])
    with pytest.raises(ValueError, match="alphas"):
        est.path(X, y, qid, alphas=[])
    with pytest.raises(ValueError, match="two queries"):
        est.path(X, y, np.zeros(len(y), dtype=int))


def test_single_document_and_equal_label_queries():
    X, y, qid = make(5, [1, 4, 1, 5, 3], 3)
    y[qid == qid[1]] = 2.0  # all-equal labels
    model = RankRLS(alpha=0.5).fit(X, y, qid=qid)
    err, pred = lqo(X, y, qid, 0.5)
    np.testing.assert_allclose(model.lqo_predict(X, y, qid), pred, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.lqo_errors_[0], err, rtol=1e-9)


@pytest.mark.parametrize(
    "kwargs, X, y, qid, exc, word",
    [
        ({"alpha": 0.0}, None, None, None, ValueError, "alpha"),
        ({"alpha": -1.0}, None, None, None, ValueError, "alpha"),
        ({"alpha": [1.0, -2.0]}, None, None, None, ValueError, "alpha"),
        ({}, "nan", None, None, ValueError, "X"),
        ({}, None, "short", None, ValueError, "y"),
        ({}, None, None, "one", ValueError, "qid"),
        ({}, None, None, "short", ValueError, "qid"),
    ],
)
def test_bad_input(kwargs, X, y, qid, exc, word):
    X0, y0, q0 = make(1, [3, 4], 2)
    if X == "nan":
        X0[2, 1] = np.nan
    if y == "short":
        y0 = y0[:-1]
    if qid == "one":
        q0 = np.zeros_like(q0)
    if qid == "short":
        q0 = q0[:-1]
    with pytest.raises(exc, match=word):
        RankRLS(**kwargs).fit(X0, y0, qid=q0)


def test_mq2008_direct_solve():
    X, y, qid = load_mq2008(1)
    model = RankRLS(alpha=1.0).fit(X, y, qid=qid)
    w = ridge(center(X, qid), center(y, qid), 1.0)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-8, atol=1e-10 * np.abs(w).max())
