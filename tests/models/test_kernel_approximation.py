"""Nystroem and RandomFourierFeatures against scikit-learn and naive NumPy references."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import pairwise_kernels

from rankselect import Nystroem, RandomFourierFeatures
from rankselect.models.kernel_approximation import kernel_matrix

TOL = 1e-10


def _data(n, d, seed):
    rng = np.random.RandomState(seed)
    return rng.normal(size=(n, d))


def _naive_kernel(X, Y, kernel, gamma, coef0=1.0, degree=3.0):
    if kernel == "rbf":
        d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
        return np.exp(-gamma * d2)
    G = X @ Y.T
    if kernel == "linear":
        return G
    if kernel in ("poly", "polynomial"):
        return (gamma * G + coef0) ** degree
    return np.tanh(gamma * G + coef0)


# ----------------------------------------------------------------- kernel blocks


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
def test_kernel_matrix_matches_sklearn_and_naive(kernel):
    X, Y = _data(200, 9, 0), _data(37, 9, 1)
    got = kernel_matrix(X, Y, kernel=kernel, gamma=0.15)
    params = {"rbf": {"gamma": 0.15}, "linear": {}}.get(kernel, {"gamma": 0.15, "coef0": 1})
    sk = pairwise_kernels(X, Y, metric=kernel, **params)
    np.testing.assert_allclose(got, sk, rtol=1e-10, atol=TOL)
    np.testing.assert_allclose(got, _naive_kernel(X, Y, kernel, 0.15), rtol=1e-10, atol=TOL)


def test_kernel_matrix_default_gamma_and_symmetric_case():
    X = _data(50, 4, 2)
    got = kernel_matrix(X)
    np.testing.assert_allclose(got, _naive_kernel(X, X, "rbf", 1 / 4), atol=TOL)
    assert np.all(np.diag(got) <= 1.0)


# ----------------------------------------------------------------- Nystroem


@pytest.mark.parametrize("kernel,gamma", [("rbf", 0.1), ("rbf", None), ("poly", 0.05), ("linear", None)])
def test_nystroem_equals_sklearn(kernel, gamma):
    X = _data(400, 6, 3)
    Xt = _data(90, 6, 4)
    ours = Nystroem(kernel, gamma=gamma, n_components=40, random_state=7).fit(X)
    sk = SkNystroem(kernel=kernel, gamma=gamma, n_components=40, random_state=7).fit(X)
    np.testing.assert_array_equal(ours.component_indices_, sk.component_indices_)
    np.testing.assert_array_equal(ours.components_, sk.components_)
    if kernel != "linear":  # linear W has rank 6 < 40: its null space basis is arbitrary
        np.testing.assert_allclose(ours.normalization_, sk.normalization_, atol=TOL, rtol=1e-9)
        np.testing.assert_allclose(ours.transform(Xt), sk.transform(Xt), atol=TOL, rtol=1e-9)
    # The kernel approximation itself is basis-free.
    Zo, Zs = ours.transform(Xt), sk.transform(Xt)
    np.testing.assert_allclose(Zo @ Zo.T, Zs @ Zs.T, atol=1e-6 * np.abs(Zs @ Zs.T).max())


def test_nystroem_injected_landmarks_equal_sklearn_transform():
    """Same landmarks and normalization injected into both: the maps agree to 1e-10."""
    X = _data(300, 5, 5)
    sk = SkNystroem(gamma=0.3, n_components=25, random_state=0).fit(X)
    ours = Nystroem(gamma=0.3, n_components=25, random_state=0).fit(X)
    ours.components_ = sk.components_.copy()
    ours.normalization_ = sk.normalization_.copy()
    np.testing.assert_allclose(ours.transform(X), sk.transform(X), atol=TOL)


def test_nystroem_landmarks_reproduce_kernel_on_landmarks():
    X = _data(60, 3, 6)
    ny = Nystroem(gamma=0.5, n_components=20, random_state=1).fit(X)
    Z = ny.transform(ny.components_)
    K = _naive_kernel(ny.components_, ny.components_, "rbf", 0.5)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-8)


def test_nystroem_rank_k_is_eq_16_17():
    """phi(X) phi(Y)^T = C W_k^+ C^T with W_k the best rank-k approximation (eq. 16-17)."""
    X = _data(200, 4, 8)
    ny = Nystroem(gamma=0.4, n_components=30, rank=8, random_state=2).fit(X)
    assert ny.normalization_.shape == (8, 30)
    Z = ny.transform(X)
    assert Z.shape == (200, 8)
    L = ny.components_
    W = _naive_kernel(L, L, "rbf", 0.4)
    C = _naive_kernel(X, L, "rbf", 0.4)
    lam, U = np.linalg.eigh(W)
    top = np.argsort(lam)[::-1][:8]
    Wk_pinv = U[:, top] @ np.diag(1 / lam[top]) @ U[:, top].T
    np.testing.assert_allclose(Z @ Z.T, C @ Wk_pinv @ C.T, atol=1e-8)
    # rank = n_components gives the same approximation as the full map
    full = Nystroem(gamma=0.4, n_components=30, random_state=2).fit(X).transform(X)
    fullk = Nystroem(gamma=0.4, n_components=30, rank=30, random_state=2).fit(X).transform(X)
    np.testing.assert_allclose(full @ full.T, fullk @ fullk.T, atol=1e-7)


def test_nystroem_rank_drops_null_eigenvalues():
    # Duplicate rows make W singular: the pseudo-inverse zeroes those directions (no inf/NaN).
    X = np.repeat(_data(5, 3, 9), 4, axis=0)
    ny = Nystroem(gamma=0.5, n_components=20, rank=20, random_state=0).fit(X)
    Z = ny.transform(X)
    assert np.isfinite(Z).all()
    K = _naive_kernel(X, X, "rbf", 0.5)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-8)


def test_nystroem_too_many_components_warns_like_sklearn():
    X = _data(10, 3, 10)
    with pytest.warns(UserWarning, match="n_components"):
        ny = Nystroem(n_components=50, random_state=0).fit(X)
    assert ny.components_.shape == (10, 3)
    assert ny.transform(X).shape == (10, 10)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 60),
    d=st.integers(1, 8),
    c=st.integers(1, 20),
    gamma=st.floats(0.01, 2.0),
    seed=st.integers(0, 2**31 - 1),
)
def test_nystroem_random_shapes_match_sklearn_with_injected_normalization(n, d, c, gamma, seed):
    X = _data(n, d, seed % 1000)
    Xt = _data(7, d, seed % 1000 + 1)
    c = min(c, n)
    sk = SkNystroem(gamma=gamma, n_components=c, random_state=seed).fit(X)
    ours = Nystroem(gamma=gamma, n_components=c, random_state=seed).fit(X)
    np.testing.assert_array_equal(ours.component_indices_, sk.component_indices_)
    # Transform with the same normalization: exact map comparison.
    inj = clone(ours).fit(X)
    inj.normalization_ = sk.normalization_
    np.testing.assert_allclose(inj.transform(Xt), sk.transform(Xt), atol=TOL * max(1, np.abs(sk.normalization_).max()))
    # Our own normalization: same kernel approximation on well-conditioned directions.
    W = _naive_kernel(ours.components_, ours.components_, "rbf", gamma)
    if np.linalg.cond(W) < 1e6:
        np.testing.assert_allclose(ours.normalization_, sk.normalization_, atol=1e-8)


def test_nystroem_is_deterministic_and_thread_independent():
    X = _data(3000, 5, 11)
    a = Nystroem(gamma=0.2, n_components=64, random_state=3).fit(X).transform(X)
    b = Nystroem(gamma=0.2, n_components=64, random_state=3).fit(X).transform(X)
    np.testing.assert_array_equal(a, b)
    # Row chunks (1024 rows) are computed independently: transforming a slice that starts
    # inside one chunk and crosses into the next gives the same rows.
    ny = Nystroem(gamma=0.2, n_components=64, random_state=3).fit(X)
    np.testing.assert_array_equal(ny.transform(X[1000:1500]), a[1000:1500])
    np.testing.assert_array_equal(ny.transform(X[700:2900]), a[700:2900])


# ----------------------------------------------------------------- random Fourier features


@pytest.mark.parametrize("gamma", [1.0, 0.05, "scale"])
def test_rff_equals_rbfsampler(gamma):
    X = _data(500, 7, 12)
    ours = RandomFourierFeatures(gamma=gamma, n_components=64, random_state=4).fit(X)
    sk = RBFSampler(gamma=gamma, n_components=64, random_state=4).fit(X)
    np.testing.assert_array_equal(ours.random_weights_, sk.random_weights_)
    np.testing.assert_array_equal(ours.random_offset_, sk.random_offset_)
    np.testing.assert_allclose(ours.transform(X), sk.transform(X), atol=TOL)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 300),
    d=st.integers(1, 10),
    m=st.integers(1, 40),
    gamma=st.floats(1e-3, 3.0),
    seed=st.integers(0, 2**31 - 1),
)
def test_rff_random_shapes_equal_naive_formula(n, d, m, gamma, seed):
    X = _data(n, d, seed % 1000)
    rff = RandomFourierFeatures(gamma=gamma, n_components=m, random_state=seed).fit(X)
    want = np.sqrt(2.0 / m) * np.cos(X @ rff.random_weights_ + rff.random_offset_)
    np.testing.assert_allclose(rff.transform(X), want, atol=TOL)


def test_rff_approximates_rbf_kernel():
    X = _data(50, 3, 13) * 0.5
    Z = RandomFourierFeatures(gamma=0.5, n_components=20000, random_state=0).fit_transform(X)
    K = _naive_kernel(X, X, "rbf", 0.5)
    assert np.abs(Z @ Z.T - K).max() < 0.05


def test_injected_rff_weights():
    X = _data(100, 4, 14)
    sk = RBFSampler(gamma=0.7, n_components=30, random_state=9).fit(X)
    ours = RandomFourierFeatures(gamma=0.7, n_components=30).fit(X)
    ours.random_weights_ = sk.random_weights_
    ours.random_offset_ = sk.random_offset_
    np.testing.assert_allclose(ours.transform(X), sk.transform(X), atol=TOL)


# ----------------------------------------------------------------- estimator contract


def test_fit_accepts_and_ignores_y_and_qid():
    X = _data(40, 3, 15)
    y = np.arange(40) % 3
    qid = np.arange(40) // 10
    for est in (Nystroem(n_components=10, random_state=0), RandomFourierFeatures(n_components=10, random_state=0)):
        a = clone(est).fit(X).transform(X)
        b = clone(est).fit(X, y, qid=qid).transform(X)
        c = clone(est).fit_transform(X, y, qid=qid)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
        names = clone(est).fit(X).get_feature_names_out()
        assert len(names) == 10


def test_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        Nystroem().transform(np.zeros((2, 2)))
    with pytest.raises(NotFittedError):
        RandomFourierFeatures().transform(np.zeros((2, 2)))


@pytest.mark.parametrize(
    "est,exc,match",
    [
        (Nystroem(kernel="laplacian"), ValueError, "kernel"),
        (Nystroem(gamma=-1.0), ValueError, "gamma"),
        (Nystroem(gamma="x"), TypeError, "gamma"),
        (Nystroem(n_components=0), ValueError, "n_components"),
        (Nystroem(n_components=2.5), TypeError, "n_components"),
        (Nystroem(n_components=10, rank=11), ValueError, "rank"),
        (Nystroem(n_components=10, rank=0), ValueError, "rank"),
        (Nystroem(n_components=10, rank=1.5), TypeError, "rank"),
        (Nystroem(kernel="poly", degree=-1), ValueError, "degree"),
        (Nystroem(kernel="poly", coef0=np.nan), TypeError, "coef0"),
        (RandomFourierFeatures(gamma=0.0), ValueError, "gamma"),
        (RandomFourierFeatures(gamma="auto"), ValueError, "gamma"),
        (RandomFourierFeatures(gamma=None), TypeError, "gamma"),
        (RandomFourierFeatures(n_components=-3), ValueError, "n_components"),
    ],
)
def test_bad_params(est, exc, match):
    with pytest.raises(exc, match=match):
        est.fit(_data(30, 3, 16))


@pytest.mark.parametrize("est", [Nystroem(n_components=5), RandomFourierFeatures(n_components=5)])
def test_bad_inputs(est):
    with pytest.raises(ValueError, match="X"):
        clone(est).fit(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="X"):
        clone(est).fit(np.zeros(5))
    with pytest.raises(TypeError, match="X"):
        clone(est).fit(np.array([["a", "b"]]))
    fitted = clone(est).fit(_data(20, 3, 17))
    with pytest.raises(ValueError, match="features"):
        fitted.transform(_data(4, 2, 18))
    with pytest.raises(ValueError, match="X"):
        fitted.transform(np.full((2, 3), np.inf))
