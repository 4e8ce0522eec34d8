"""Greedy RankRLS is exact at every alpha (issue 38): on random problems with the hard cases
(alpha log-uniform from 1e-8 to 1e4, duplicated and nearly collinear columns, exact
combinations, columns constant within queries or non-zero in one query, singleton queries,
wide data, columns of very different scales), every reported leave-query-out value is the
exact criterion of its subset to 1e-8 relative, and every step's choice is the best candidate
by the exact criterion (to the same tolerance), for features and for groups. The exact
criterion is ``_greedy_exact.lqo_exact`` (a ridge fit per held-out query), itself checked
against exact rational arithmetic."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankselect as rs
from _greedy_exact import (
    informative_units,
    lqo_exact,
    lqo_fraction,
    random_problem,
    random_units,
    ridge_svd,
    wide_problem,
)

RTOL = 1e-8

seeds = st.integers(0, 2**63 - 1)
alphas = st.floats(-8.0, 4.0).map(lambda e: 10.0**e)  # log-uniform


def _labels(units, n):
    labels = np.empty(n, dtype=object)
    for g, u in enumerate(units):
        labels[u] = f"g{g:03d}"
    return list(labels)


def check_path(X, y, qid, units, order, scores, alpha):
    """Each reported value is the exact criterion of its prefix; each step's unit is the best
    candidate by the exact criterion; the path stops early only when no candidate is left."""
    yc = np.concatenate([y[qid == q] - y[qid == q].mean() for q in dict.fromkeys(qid.tolist())])
    atol = 1e-12 * float(yc @ yc)  # values that are 0 up to rounding
    ok = informative_units(X, qid, units)
    cols: list = []
    for step, u in enumerate(order):
        cand = [v for v in range(len(units)) if v not in order[:step] and ok[v]]
        exact = {v: lqo_exact(X, y, qid, cols + list(units[v]), alpha) for v in cand}
        best = min(exact.values())
        assert exact[u] <= best + RTOL * abs(best) + atol, (step, u, exact[u], best)
        assert abs(scores[step] - exact[u]) <= RTOL * abs(exact[u]) + atol, (step, scores[step], exact[u])
        cols += list(units[u])
    rest = [v for v in range(len(units)) if v not in order and ok[v]]
    return rest


@given(seeds, alphas, st.data())
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_features_exact_at_every_alpha(seed, alpha, data):
    X, y, qid = random_problem(np.random.default_rng(seed))
    n = X.shape[1]
    k = data.draw(st.integers(1, min(n, 5)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = rs.GreedyRankRLS(k, alpha=alpha).fit(X, y, qid=qid)
    order = sel.selected_features_.tolist()
    rest = check_path(X, y, qid, [[j] for j in range(n)], order, sel.lqo_scores_, alpha)
    assert len(order) == k or (not rest and sel.stop_reason_ == "uninformative")
    # the weights of every prefix are ridge on it: their predictions to 1e-7 of the largest
    Xc = X - np.array([X[qid == q].mean(axis=0) for q in qid])
    for step in range(len(order)):
        w = ridge_svd(Xc[:, order[:step + 1]], y - np.array([y[qid == q].mean() for q in qid]), alpha)
        pred, ours = Xc[:, order[:step + 1]] @ w, Xc @ sel.coef_path_[step]
        np.testing.assert_allclose(ours, pred, rtol=0, atol=1e-7 * max(np.abs(pred).max(), 1e-300))


@given(seeds, alphas, st.data())
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_groups_exact_at_every_alpha(seed, alpha, data):
    rng = np.random.default_rng(seed)
    X, y, qid = random_problem(rng)
    n = X.shape[1]
    units = random_units(rng, n)
    k = data.draw(st.integers(1, min(len(units), 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = rs.GreedyRankRLS(k, alpha=alpha, feature_groups=_labels(units, n)).fit(X, y, qid=qid)
    order = [int(g[1:]) for g in sel.selected_groups_]
    assert sel.selected_features_.tolist() == [c for u in order for c in units[u]]
    assert sel.lqo_scores_.shape == (len(order),) and sel.coef_path_.shape == (len(order), n)
    rest = check_path(X, y, qid, units, order, sel.lqo_scores_, alpha)
    assert len(order) == k or (not rest and sel.stop_reason_ == "uninformative")


@given(seeds, alphas, st.booleans())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_wide_data_exact_at_every_alpha(seed, alpha, groups):
    """Wide data (2 to 4 times more columns than rows: the run keeps M by unit blocks and
    computes the exact values of wide sets on their row-space coordinates) gives the
    brute-force forward selection's values and choices, for features and for groups."""
    rng = np.random.default_rng(seed)
    X, y, qid = wide_problem(rng)
    n = X.shape[1]
    units = random_units(rng, n) if groups else [[j] for j in range(n)]
    k = int(rng.integers(1, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = rs.GreedyRankRLS(k, alpha=alpha, feature_groups=_labels(units, n) if groups else None).fit(X, y, qid=qid)
    order = [int(g[1:]) for g in sel.selected_groups_] if groups else sel.selected_features_.tolist()
    rest = check_path(X, y, qid, units, order, sel.lqo_scores_, alpha)
    assert len(order) == k or (not rest and sel.stop_reason_ == "uninformative")


@given(seeds, alphas)
@settings(max_examples=40, deadline=None)
def test_reference_is_exact_rational_arithmetic(seed, alpha):
    rng = np.random.default_rng(seed)
    X, y, qid = random_problem(rng)
    if X.shape[0] > 14:
        X, y, qid = X[:14], y[:14], qid[:14]
    t = int(rng.integers(1, min(X.shape[1], 4) + 1))
    cols = sorted(rng.choice(X.shape[1], t, replace=False).tolist())
    exact = float(lqo_fraction(X, y, qid, cols, alpha))
    assert lqo_exact(X, y, qid, cols, alpha) == pytest.approx(exact, rel=1e-10, abs=1e-300)


def test_issue_example_group_at_tiny_alpha():
    """The kind of problem of the issue (7 rows, 23 columns, alpha 4.7e-8): group greedy
    picked another group than the exact criterion when its values decided."""
    rng = np.random.default_rng(38)
    found = 0
    for _ in range(40):
        X, y, qid = random_problem(rng, wide=True)
        units = random_units(rng, X.shape[1])
        sel = rs.GreedyRankRLS(min(3, len(units)), alpha=4.7e-8,
                               feature_groups=_labels(units, X.shape[1])).fit(X, y, qid=qid)
        order = [int(g[1:]) for g in sel.selected_groups_]
        check_path(X, y, qid, units, order, sel.lqo_scores_, 4.7e-8)
        found += 1
    assert found == 40
