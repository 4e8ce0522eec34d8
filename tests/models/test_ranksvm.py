"""RankSVM (truncated Newton) against scikit-learn's LinearSVC on explicit pair differences."""
from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import rankselect
from rankselect import RankSVM
from rankselect.models.pairwise import squared_hinge


def make_data(seed, n_queries=8, docs=15, n=6):
    rng = np.random.default_rng(seed)
    m = n_queries * docs
    X = rng.normal(size=(m, n))
    w_true = rng.normal(size=n)
    y = np.clip(np.round(X @ w_true + rng.normal(scale=1.0, size=m)), -1, 2) + 1
    qid = rng.permutation(np.repeat(np.arange(100, 100 + n_queries), docs))  # interleaved
    return X, y, qid


def objective(X, y, qid, w, C):
    return 0.5 * w @ w + C * squared_hinge(X, y, qid, w)[0]


def linearsvc_on_pairs(X, y, qid, C):
    """The same problem as LinearSVC: differences in both orientations, C halved.

    LinearSVC minimises 0.5||w||^2 + C' sum_k max(0, 1 - t_k w·z_k)^2; with z = ±(x_i - x_j),
    t = ±1 every pair appears twice with the same loss, so C' = C / 2.
    """
    i, j = rankselect.preference_pairs(y, qid)
    D = X[i] - X[j]
    Z = np.vstack([D, -D])
    t = np.concatenate([np.ones(len(D)), -np.ones(len(D))])
    svc = LinearSVC(penalty="l2", loss="squared_hinge", dual=False, fit_intercept=False,
                    tol=1e-10, C=C / 2, max_iter=100_000)
    svc.fit(Z, t)
    return svc.coef_.ravel()


@pytest.mark.parametrize("seed,C", [(0, 1.0), (1, 0.01), (2, 30.0)])
def test_same_objective_as_linearsvc(seed, C):
    X, y, qid = make_data(seed)
    model = RankSVM(C=C, tol=1e-10).fit(X, y, qid=qid)
    w_svc = linearsvc_on_pairs(X, y, qid, C)
    f_svc = objective(X, y, qid, w_svc, C)
    f_ours = objective(X, y, qid, model.coef_, C)
    assert f_ours == pytest.approx(f_svc, rel=1e-6)
    assert model.objective_ == pytest.approx(f_ours, rel=1e-12)
    np.testing.assert_allclose(model.coef_, w_svc, rtol=1e-4, atol=1e-6 * np.abs(w_svc).max())
    assert model.n_iter_ >= 1
    assert model.n_pairs_ == len(rankselect.preference_pairs(y, qid)[0])


def test_optimality_and_row_order_invariance():
    X, y, qid = make_data(4)
    C = 0.5
    model = RankSVM(C=C, tol=1e-10).fit(X, y, qid=qid)
    _, grad = squared_hinge(X, y, qid, model.coef_)
    np.testing.assert_allclose(model.coef_ + C * grad, 0.0, atol=1e-7)
    order = np.argsort(qid, kind="stable")
    sorted_model = RankSVM(C=C, tol=1e-10).fit(X[order], y[order], qid=qid[order])
    np.testing.assert_allclose(sorted_model.coef_, model.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.predict(X), X @ model.coef_)


def test_metadata_routing_in_a_pipeline():
    X, y, qid = make_data(5)
    X = X * 10 + 3
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(StandardScaler(), RankSVM(C=0.3, tol=1e-10))
        pipe.fit(X, y, qid=qid)
        scores = pipe.predict(X)
    direct = RankSVM(C=0.3, tol=1e-10).fit(StandardScaler().fit_transform(X), y, qid=qid)
    np.testing.assert_allclose(pipe[-1].coef_, direct.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(scores, StandardScaler().fit(X).transform(X) @ direct.coef_)


def test_no_pairs_gives_zero_model():
    X = np.arange(6.0).reshape(3, 2)
    from rankselect.exceptions import DegenerateDataWarning

    with pytest.warns(DegenerateDataWarning, match="no preference pair"):
        model = RankSVM().fit(X, [1, 1, 0], qid=[1, 1, 2])
    assert np.all(model.coef_ == 0.0) and model.objective_ == 0.0


def test_not_converged_warns():
    X, y, qid = make_data(6)
    with pytest.warns(sklearn.exceptions.ConvergenceWarning):
        RankSVM(C=100.0, tol=1e-14, max_iter=1).fit(X, y, qid=qid)


@pytest.mark.parametrize("params,exc,match", [
    ({"C": 0.0}, ValueError, "'C' parameter of RankSVM must be a float in the range \\(0.0, inf\\)"),
    ({"C": -1.0}, ValueError, "'C' parameter"),
    ({"C": np.inf}, ValueError, "'C' parameter"),
    ({"C": "1"}, TypeError, "'C' parameter"),
    ({"tol": -1e-3}, ValueError, "'tol' parameter"),
    ({"max_iter": 0}, ValueError, "'max_iter' parameter"),
    ({"max_iter": 2.5}, TypeError, "'max_iter' parameter .* an int"),
    ({"max_cg_iter": 0}, ValueError, "'max_cg_iter' parameter"),
])
def test_bad_params(params, exc, match):
    X, y, qid = make_data(7, n_queries=2, docs=4, n=2)
    with pytest.raises(exc, match=match):
        RankSVM(**params).fit(X, y, qid=qid)


def test_bad_data():
    X, y, qid = make_data(8, n_queries=2, docs=4, n=2)
    with pytest.raises(ValueError, match="qid is required"):
        RankSVM().fit(X, y)
    with pytest.raises(ValueError, match="qid has 7 entries"):
        RankSVM().fit(X, y, qid=qid[:-1])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        RankSVM().fit(Xn, y, qid=qid)
    with pytest.raises(ValueError, match="y contains NaN"):
        RankSVM().fit(X, np.where(np.arange(8) == 2, np.nan, y), qid=qid)
    with pytest.raises(NotFittedError):
        RankSVM().predict(X)
    model = RankSVM().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="X has 3 features"):
        model.predict(np.ones((2, 3)))
