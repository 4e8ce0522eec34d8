"""Implicit pairwise squared hinge (loss, gradient, Hessian-vector product) against an
explicit-pair NumPy reference."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankselect import _core
from rankselect.data import QueryGroups
from rankselect.models.pairwise import squared_hinge, squared_hinge_hessp


def reference(X, y, qid, w, v=None):
    """Explicit pairs, NumPy: value, gradient and (optionally) 2 X^T A^T D A X v."""
    m = len(y)
    same = qid[:, None] == qid[None, :]
    pref = same & (y[:, None] > y[None, :])
    i, j = np.nonzero(pref)
    s = X @ w
    active = (s[i] - s[j]) < 1.0
    margin = np.where(active, 1.0 - (s[i] - s[j]), 0.0)
    value = float(np.sum(margin**2))
    A = np.zeros((len(i), m))
    A[np.arange(len(i)), i] = 1.0
    A[np.arange(len(i)), j] = -1.0
    grad = -2.0 * X.T @ (A.T @ margin)
    if v is None:
        return value, grad
    D = active.astype(float)
    hv = 2.0 * X.T @ (A.T @ (D * (A @ (X @ v))))
    return value, grad, hv


def assert_close(a, b):
    scale = 1.0 + np.max(np.abs(b)) if np.size(b) else 1.0
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * scale)


@st.composite
def problems(draw, integer):
    m = draw(st.integers(1, 30))
    n = draw(st.integers(1, 4))
    n_q = draw(st.integers(1, 6))
    qid = np.array(draw(st.lists(st.integers(0, n_q - 1), min_size=m, max_size=m)))
    y = np.array(draw(st.lists(st.sampled_from([0, 1, 2, 4]), min_size=m, max_size=m)), float)
    if draw(st.booleans()):  # some query with all-equal labels
        y[qid == qid[0]] = 1.0
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if integer:
        # small integers: many exact ties in scores and margins exactly 0 (s_i - s_j = 1)
        X = rng.integers(-2, 3, size=(m, n)).astype(float)
        w = rng.integers(-1, 2, size=n).astype(float)
        v = rng.integers(-2, 3, size=n).astype(float)
        if m > 1 and draw(st.booleans()):
            X[1] = X[0]  # duplicated documents
    else:
        X = rng.normal(size=(m, n)) * draw(st.sampled_from([0.1, 1.0, 10.0]))
        w = rng.normal(size=n)
        v = rng.normal(size=n)
    return X, y, qid, w, v


@settings(max_examples=120, deadline=None)
@given(problems(integer=False))
def test_implicit_equals_explicit_random(p):
    X, y, qid, w, v = p
    value, grad = squared_hinge(X, y, qid, w)
    rv, rg, rh = reference(X, y, qid, w, v)
    assert_close(value, rv)
    assert_close(grad, rg)
    assert_close(squared_hinge_hessp(X, y, qid, w, v), rh)


@settings(max_examples=120, deadline=None)
@given(problems(integer=True))
def test_implicit_equals_explicit_ties(p):
    X, y, qid, w, v = p
    value, grad = squared_hinge(X, y, qid, w)
    rv, rg, rh = reference(X, y, qid, w, v)
    assert_close(value, rv)
    assert_close(grad, rg)
    assert_close(squared_hinge_hessp(X, y, qid, w, v), rh)


def test_hessp_matrix_and_explicit_rust_kernel():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 3, size=40).astype(float)
    qid = rng.integers(0, 5, size=40)
    w = rng.normal(size=3)
    V = rng.normal(size=(3, 2))
    H = squared_hinge_hessp(X, y, qid, w, np.eye(3))
    np.testing.assert_allclose(H, H.T, atol=1e-10)
    assert np.all(np.linalg.eigvalsh(H) > -1e-10)
    assert_close(squared_hinge_hessp(X, y, qid, w, V), H @ V)
    # the explicit-pair Rust kernel agrees too
    g = QueryGroups.from_qid(qid)
    pairs = _core.preference_pairs(g.gather(y), g.offsets.astype(np.uintp))
    ev, eg = _core.explicit_squared_hinge_value_grad(
        np.ascontiguousarray(g.gather(X)), g.offsets.astype(np.uintp), pairs.i, pairs.j, pairs.pair_offsets, w)
    value, grad = squared_hinge(X, y, qid, w)
    assert_close(value, ev)
    assert_close(grad, eg)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 4))
    y = rng.integers(0, 4, size=30)
    qid = np.repeat([1, 2, 3], 10)
    w = rng.normal(size=4)
    _, grad = squared_hinge(X, y, qid, w)
    eps = 1e-6
    fd = [(squared_hinge(X, y, qid, w + eps * e)[0] - squared_hinge(X, y, qid, w - eps * e)[0]) / (2 * eps)
          for e in np.eye(4)]
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


def test_degenerate_queries():
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    # single-document queries and all-equal labels: no pairs, zero loss
    value, grad = squared_hinge(X, [3, 1, 1, 1], [0, 1, 2, 2], [1.0])
    assert value == 0.0 and np.all(grad == 0.0)
    assert np.all(squared_hinge_hessp(X, [3, 1, 1, 1], [0, 1, 2, 2], [1.0], [1.0]) == 0.0)


def test_bad_inputs():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match="w must have shape"):
        squared_hinge(X, [1, 0, 1], [1, 1, 1], [1.0])
    with pytest.raises(ValueError, match="y has 2 entries"):
        squared_hinge(X, [1, 0], [1, 1, 1], [1.0, 1.0])
    with pytest.raises(ValueError, match="X contains NaN"):
        squared_hinge(np.full((3, 2), np.nan), [1, 0, 1], [1, 1, 1], [1.0, 1.0])
    with pytest.raises(ValueError, match="w contains NaN"):
        squared_hinge(X, [1, 0, 1], [1, 1, 1], [np.nan, 1.0])
    with pytest.raises(ValueError, match="v must have shape"):
        squared_hinge_hessp(X, [1, 0, 1], [1, 1, 1], [1.0, 1.0], [1.0])
    with pytest.raises(ValueError, match="qid"):
        squared_hinge(X, [1, 0, 1], [1, 1], [1.0, 1.0])
