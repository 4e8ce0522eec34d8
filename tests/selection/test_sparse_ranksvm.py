"""SparseRankSVM: L1 by proximal Newton and by FISTA vs scikit-learn LinearSVC on explicit
pairs, KKT, the reweighted non-convex penalties, the path, the selector API and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import LinearSVC

from _pairwise_problems import make_problem, pair_diffs
from rankselect import SparseRankSVM, sparse_path
from rankselect.models.penalties import L1, MCP, Log, Lp


def loss_grad(Z, w):
    r = np.maximum(0.0, 1.0 - Z @ w)
    return float(r @ r), -2.0 * Z.T @ r


def l1_objective(Z, w, C, beta=None):
    beta = np.ones_like(w) if beta is None else beta
    return float(np.sum(beta * np.abs(w)) + C * loss_grad(Z, w)[0])


def linearsvc_solution(Z, C):
    # both orientations: each pair appears as (z, +1) and (-z, -1), doubling the loss -> C/2
    Xp = np.vstack([Z, -Z])
    yp = np.r_[np.ones(len(Z)), -np.ones(len(Z))]
    svc = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, fit_intercept=False,
                    tol=1e-10, C=C / 2, max_iter=100_000)
    svc.fit(Xp, yp)
    return svc.coef_.ravel()


def assert_kkt(Z, w, C, beta=None, atol=1e-5):
    beta = np.ones_like(w) if beta is None else beta
    g = C * loss_grad(Z, w)[1]
    nz = w != 0
    assert np.all(np.abs(g[nz] + beta[nz] * np.sign(w[nz])) <= atol * max(1, np.abs(g).max()))
    assert np.all(np.abs(g[~nz]) <= beta[~nz] + atol * max(1, np.abs(g).max()))


SOLVERS = ["prox-newton", "fista"]


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed,C", [(0, 0.05), (1, 0.5), (2, 5.0)])
def test_l1_matches_linearsvc_and_kkt(seed, C, solver):
    X, y, qid = make_problem(seed)
    Z = pair_diffs(X, y, qid)
    est = SparseRankSVM(C=C, tol=1e-12, max_iter=200_000, solver=solver).fit(X, y, qid=qid)
    ours = l1_objective(Z, est.coef_, C)
    assert ours == pytest.approx(est.objective_, rel=1e-9)
    ref = l1_objective(Z, linearsvc_solution(Z, C), C)
    assert ours == pytest.approx(ref, rel=1e-6)
    assert ours <= ref * (1 + 1e-6)
    assert_kkt(Z, est.coef_, C)


@pytest.mark.parametrize("solver", SOLVERS)
def test_weighted_l1_kkt_and_inf_weight(solver):
    X, y, qid = make_problem(3)
    Z = pair_diffs(X, y, qid)
    beta = np.array([0.5, 2.0, 1.0, np.inf, 0.1, 1.0, 3.0, 0.0])
    est = SparseRankSVM(C=0.5, penalty=L1(weights=beta), tol=1e-12, max_iter=200_000, solver=solver).fit(X, y, qid=qid)
    assert est.coef_[3] == 0.0
    fin = np.isfinite(beta)
    assert_kkt(Z[:, fin], est.coef_[fin], 0.5, beta[fin])
    # weighted L1 == plain L1 on rescaled features (w_j = u_j / beta_j) where 0 < beta < inf
    keep = fin & (beta > 0)
    Xs = X[:, keep] / beta[keep]
    plain = SparseRankSVM(C=0.5, tol=1e-12, max_iter=200_000)
    # the beta=0 feature is unpenalised: check objective instead of coefficients
    assert est.objective_ == pytest.approx(l1_objective(Z[:, fin], est.coef_[fin], 0.5, beta[fin]), rel=1e-9)
    assert plain.fit(Xs, y, qid=qid).objective_ >= est.objective_ - 1e-9


def nonconvex_g(penalty, u, C, p=0.5, eps=0.1, gamma=2.0):
    if penalty == "log":
        return np.log1p(u / eps)
    if penalty == "mcp":
        t = gamma / C
        return np.where(u <= t, u - u * u / (2 * t), t / 2)
    if penalty == "lp":
        return np.where(u <= eps, p * eps ** (p - 1) * u, u ** p - (1 - p) * eps ** p)
    raise AssertionError


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("penalty", ["log", "mcp", "lp"])
def test_reweighting_never_increases_nonconvex_objective(penalty, solver):
    X, y, qid = make_problem(4, n=10)
    Z = pair_diffs(X, y, qid)
    C = 0.3
    est = SparseRankSVM(C=C, penalty=penalty, tol=1e-10, max_iter=50_000, max_reweightings=8, solver=solver)
    est.fit(X, y, qid=qid)
    h = est.objective_history_
    assert len(h) >= 2
    assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1])), h
    ref = np.sum(nonconvex_g(penalty, np.abs(est.coef_), C)) + C * loss_grad(Z, est.coef_)[0]
    assert est.objective_ == pytest.approx(ref, rel=1e-9)


def test_nonconvex_sparser_than_l1_and_mcp_like_l1_for_small_weights():
    X, y, qid = make_problem(5, m=150, n=12)
    C = 0.2
    l1 = SparseRankSVM(C=C, tol=1e-9).fit(X, y, qid=qid)
    log = SparseRankSVM(C=C, penalty="log", tol=1e-9).fit(X, y, qid=qid)
    assert log.support_.sum() <= l1.support_.sum()
    # MCP with gamma·lambda = gamma/C huge: weights 1 - |w|/(gamma/C) ~ 1 -> l1 solution
    mcp = SparseRankSVM(C=C, penalty=MCP(gamma=1e9), tol=1e-10, max_iter=50_000).fit(X, y, qid=qid)
    l1b = SparseRankSVM(C=C, tol=1e-10, max_iter=50_000).fit(X, y, qid=qid)
    np.testing.assert_allclose(mcp.coef_, l1b.coef_, atol=1e-5)


def test_selector_predict_sparsity_and_row_order():
    X, y, qid = make_problem(6)
    X = np.hstack([X, np.zeros((len(X), 1)), np.full((len(X), 1), 3.0)])  # two constant columns
    est = SparseRankSVM(C=0.1).fit(X, y, qid=qid)
    assert est.coef_.shape == (10,)
    assert est.coef_[8] == 0 and est.coef_[9] == 0
    # one denominator: the features not all-zero on the training rows (9 of 10 here)
    assert est.sparsity_ratio_ == pytest.approx(est.support_.sum() / 9)
    np.testing.assert_array_equal(est.get_support(), est.coef_ != 0)
    assert est.transform(X).shape == (len(X), est.support_.sum())
    np.testing.assert_allclose(est.predict(X), X @ est.coef_)
    sel = est.selected_features_
    assert np.all(np.diff(np.abs(est.coef_[sel])) <= 0)
    # shuffling rows (qid not contiguous) gives the same model
    perm = np.random.default_rng(0).permutation(len(X))
    est2 = SparseRankSVM(C=0.1).fit(X[perm], y[perm], qid=qid[perm])
    np.testing.assert_allclose(est2.coef_, est.coef_, atol=1e-6)


def test_path_warm_starts_and_counts():
    X, y, qid = make_problem(7, n=10)
    est = SparseRankSVM(tol=1e-9)
    c0 = est.c_min(X, y, qid)
    below = SparseRankSVM(C=0.9 * c0).fit(X, y, qid=qid)
    assert not below.support_.any()
    path = sparse_path(X, y, qid, n_Cs=6, tol=1e-9)
    assert path.coefs.shape == (6, 10)
    assert path.Cs[0] == pytest.approx(c0)
    np.testing.assert_array_equal(path.n_selected, np.count_nonzero(path.coefs, axis=1))
    assert path.n_selected[-1] >= path.n_selected[0]
    for C, obj in zip(path.Cs, path.objectives):
        cold = SparseRankSVM(C=C, tol=1e-9).fit(X, y, qid=qid)
        assert obj == pytest.approx(cold.objective_, rel=1e-5)
    Cs = [0.01, 0.1, 1.0]
    p2 = SparseRankSVM(penalty="log").path(X, y, qid, Cs=Cs)
    assert p2.coefs.shape == (3, 10)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 6), C=st.floats(0.01, 3.0),
       solver=st.sampled_from(SOLVERS))
def test_l1_random_problems_hypothesis(seed, n, C, solver):
    X, y, qid = make_problem(seed, m=30, n=n, n_queries=4)
    Z = pair_diffs(X, y, qid)
    if len(Z) == 0:
        return
    est = SparseRankSVM(C=C, tol=1e-11, max_iter=100_000, solver=solver).fit(X, y, qid=qid)
    assert_kkt(Z, est.coef_, C, atol=1e-4)
    ref = l1_objective(Z, linearsvc_solution(Z, C), C)
    assert est.objective_ <= ref * (1 + 1e-6) + 1e-12


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 12), logC=st.floats(-2, 1.5),
       penalty=st.sampled_from(["l1", "log", "lp"]))
def test_solvers_agree_hypothesis(seed, n, logC, penalty):
    """Proximal Newton and FISTA reach the same objective (the same minimiser for l1), also
    at weak regularisation where the problem is ill-conditioned (correlated features)."""
    X, y, qid = make_problem(seed, m=60, n=n, n_queries=5)
    X[:, -1] = X[:, 0] + 0.1 * X[:, -1]  # two correlated features
    C = 10.0 ** logC
    kw = dict(C=C, penalty=penalty, tol=1e-9, max_iter=100_000, max_reweightings=3)
    newton = SparseRankSVM(solver="prox-newton", **kw).fit(X, y, qid=qid)
    fista = SparseRankSVM(solver="fista", **kw).fit(X, y, qid=qid)
    if penalty == "l1":
        assert newton.objective_ == pytest.approx(fista.objective_, rel=1e-6, abs=1e-9)
    else:
        # non-convex: the same first (l1) step, then possibly different local minima;
        # both never increase the objective after it
        for est in (newton, fista):
            h = est.objective_history_
            assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1]))


def test_newton_fewer_iterations_on_ill_conditioned_path():
    X, y, qid = make_problem(8, m=100, n=10)
    X[:, 1] = X[:, 0] + 1e-3 * X[:, 1]
    newton = SparseRankSVM(C=10.0, tol=1e-8, solver="prox-newton").fit(X, y, qid=qid)
    fista = SparseRankSVM(C=10.0, tol=1e-8, solver="fista", max_iter=5_000).fit(X, y, qid=qid)
    assert newton.converged_
    assert newton.n_iter_ < 30 < fista.n_iter_
    assert newton.objective_ <= fista.objective_ * (1 + 1e-7)


@pytest.mark.parametrize("params,name", [
    (dict(C=0), "C"), (dict(C=-1.0), "C"), (dict(penalty="lp", p=1.0), "p"), (dict(solver="cd"), "solver"),
    (dict(penalty="lp", p=0.0), "p"), (dict(penalty="lp", p=1.5), "p"),
    (dict(penalty="nope"), "penalty"), (dict(epsilon=0), "epsilon"), (dict(mcp_gamma=-1), "mcp_gamma"),
    (dict(tol=0), "tol"), (dict(weights=[1.0, -1.0, 1, 1, 1, 1, 1, 1]), "weights"),
    (dict(weights=[1.0, 1.0]), "weights"), (dict(penalty="log", weights=np.ones(8)), "weights"),
    (dict(penalty=Lp(p=1.0)), "'p' parameter of Lp"), (dict(penalty=Lp(p=0.0)), "'p' parameter of Lp"),
    (dict(penalty=Log(epsilon=0)), "'epsilon' parameter of Log"), (dict(penalty=MCP(gamma=-1)), "'gamma' parameter"),
    (dict(penalty=L1(weights=[1.0, -1.0, 1, 1, 1, 1, 1, 1])), "weights"),
    (dict(penalty=L1(weights=[1.0, 1.0])), "weights"),
    (dict(penalty=L1(weights=[[1.0]])), "weights"), (dict(penalty=MCP(), mcp_gamma=3.0), "beside penalty=MCP"),
    (dict(penalty=L1), "penalty"),
])
def test_bad_params(params, name):
    X, y, qid = make_problem(8)
    with pytest.raises(ValueError, match=name):
        SparseRankSVM(**params).fit(X, y, qid=qid)


def test_bad_data():
    from rankselect.exceptions import DegenerateDataWarning

    X, y, qid = make_problem(9)
    with pytest.warns(DegenerateDataWarning, match="no informative feature"):
        assert not SparseRankSVM().fit(np.ones_like(X), y, qid=qid).coef_.any()
    with pytest.raises(ValueError, match="qid"):
        SparseRankSVM().fit(X, y)
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="X"):
        SparseRankSVM().fit(Xn, y, qid=qid)
    with pytest.raises(ValueError, match="y"):
        SparseRankSVM().fit(X, y[:-1], qid=qid)
    # no preference pair: the minimiser is w = 0; say so (as RankSVM does)
    with pytest.warns(DegenerateDataWarning, match="no preference pair"):
        est = SparseRankSVM().fit(X, np.zeros_like(y), qid=qid)
    assert not est.coef_.any()


def test_cli_methods_registered(tmp_path, monkeypatch, capsys):
    from rankselect.cli import app, select
    from rankselect.methods import METHODS

    parser = app._build_parser()
    args = parser.parse_args(["select", "--method", "sparse-ranksvm", "--penalty", "log", "--C", "0.5", "T"])
    est = METHODS["sparse-ranksvm"].build(**select._given_params(args, METHODS["sparse-ranksvm"]))
    assert isinstance(est, SparseRankSVM) and est.penalty == "log" and est.C == 0.5
    assert est.solver == "prox-newton"
    args = parser.parse_args(["select", "--method", "sparse-ranksvm", "--solver", "fista", "T"])
    assert METHODS["sparse-ranksvm"].build(**select._given_params(args, METHODS["sparse-ranksvm"])).solver == "fista"
    args = parser.parse_args(["select", "--method", "fsmrank", "--lambda1", "0.2", "--lambda2", "0.03", "T"])
    from rankselect import FSMRank
    est = METHODS["fsmrank"].build(**select._given_params(args, METHODS["fsmrank"]))
    assert isinstance(est, FSMRank) and est.lambda1 == 0.2 and est.lambda2 == 0.03
    X, y, qid = make_problem(20)
    est.fit(X, y, qid=qid)
    scores = METHODS["fsmrank"].step_scores(est)
    assert scores == sorted(scores, reverse=True)
    assert len(scores) == len(est.selected_features_) == est.support_.sum()
