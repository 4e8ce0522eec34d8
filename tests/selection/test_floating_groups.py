"""Floating search over groups (issue 38): SFFS over units, a removal being the exact downdate of
a whole group, equals a brute-force SFFS over groups whose every value is the exact LQO
criterion (``_greedy_exact.sffs_units``), at every alpha."""
from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import rankselect as rs
from _greedy_exact import lqo_exact, random_problem, random_units, sffs_units


def _labels(units, n):
    labels = np.empty(n, dtype=object)
    for g, u in enumerate(units):
        labels[u] = f"g{g:03d}"
    return list(labels)


def _correlated_problem(seed, n_queries, n):
    """Correlated columns (removals happen): the problem of tests/selection/test_floating.py."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, n))
    X[:, 1] = X[:, 0] + 0.3 * rng.normal(size=qid.size)
    y = np.floor(X[:, 0] - X[:, 1] + X[:, 2] + rng.normal(size=qid.size)).clip(0, 3)
    return X, y, qid, rng


@given(st.integers(0, 2**31 - 1), st.floats(-8.0, 4.0).map(lambda e: 10.0**e), st.booleans())
@settings(max_examples=120, deadline=None)
def test_floating_groups_match_brute_force_sffs(seed, alpha, hard):
    if hard:
        rng = np.random.default_rng(seed)
        X, y, qid = random_problem(rng)
    else:
        X, y, qid, rng = _correlated_problem(seed, 3 + seed % 5, 6 + seed % 4)
    n = X.shape[1]
    labels = _labels(random_units(rng, n), n)
    # the groups in the estimator's order (first appearance): ties go to the lowest of them
    groups = rs.data.check_feature_groups(labels, n)
    units = [m.tolist() for m in groups.member_lists()]
    if len(units) < 2:
        return
    k = len(units) - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rs.GreedyRankRLS(k, alpha=alpha, floating=True, feature_groups=labels).fit(X, y, qid=qid)
    subsets, values = sffs_units(X, y, qid, units, k, alpha)
    cols = [[c for u in s for c in units[u]] for s in subsets]
    assert [s.tolist() for s in model.best_subsets_] == cols
    yc = np.concatenate([y[qid == q] - y[qid == q].mean() for q in dict.fromkeys(qid.tolist())])
    np.testing.assert_allclose(model.lqo_scores_, values, rtol=1e-8, atol=1e-12 * float(yc @ yc))
    # every step is a group added or removed, with the exact criterion of the subset after it
    cur: list = []
    for name, added, v in model.floating_steps_:
        u = groups.names.index(name)
        cur = cur + [u] if added else [g for g in cur if g != u]
        exact = lqo_exact(X, y, qid, [c for g in cur for c in units[g]], alpha)
        assert abs(v - exact) <= 1e-8 * abs(exact) + 1e-12 * float(yc @ yc)


def test_floating_groups_removes_a_group():
    removed = 0
    for seed in range(30):
        X, y, qid, rng = _correlated_problem(seed, 8, 8)
        units = random_units(rng, 8)
        if len(units) < 3:
            continue
        model = rs.GreedyRankRLS(len(units) - 1, alpha=0.1, floating=True,
                                 feature_groups=_labels(units, 8)).fit(X, y, qid=qid)
        removed += sum(not a for _, a, _ in model.floating_steps_)
        assert model.selected_groups_.size and model.coef_path_.shape == (len(model.best_subsets_), 8)
    assert removed > 0
