"""Floating greedy RankRLS (SFFS with the exact LQO criterion) against a brute-force SFFS
that computes every criterion value from scratch (delete the query, re-centre, solve)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _rankrls_reference import center, constant_within_queries, lqo, ridge
from rankselect import GreedyRankRLS

TIE = 1e-8  # the core's REL_TIE


def brute_sffs(X, y, qid, k, alpha):
    """SFFS (Pudil et al. 1994) as documented in GreedyRankRLS(floating=True): the best new
    addition, then removals while the smaller subset beats the best of its size by more than
    a relative 1e-8; no subset twice; ties (within a relative 1e-8) to the lowest index.
    Returns the best subset and criterion per size."""
    n = X.shape[1]
    const = constant_within_queries(X, qid)

    def crit(s):
        return lqo(X[:, list(s)], y, qid, alpha)[0]

    def lowest_near_min(cands):  # ties within a relative 1e-8 go to the lowest index
        m = min(v for v, _ in cands)
        return min((t for t in cands if t[0] - m <= TIE * max(abs(m), abs(t[0]))), key=lambda t: t[1])

    best: dict = {}
    visited = set()
    cur: list = []
    while len(cur) < k:
        cands = [(crit(cur + [j]), j) for j in range(n)
                 if j not in cur and not const[j] and frozenset(cur + [j]) not in visited]
        if not cands:
            break
        v, b = lowest_near_min(cands)
        cur = cur + [b]
        visited.add(frozenset(cur))
        if len(cur) not in best or v < best[len(cur)][0]:
            best[len(cur)] = (v, list(cur))
        while len(cur) > 1:
            v, j = lowest_near_min([(crit([f for f in cur if f != j]), j) for j in sorted(cur)])
            smaller = [f for f in cur if f != j]
            b = best[len(smaller)][0]
            if not (b - v > TIE * max(abs(b), abs(v))) or frozenset(smaller) in visited:
                break
            visited.add(frozenset(smaller))
            cur = smaller
            best[len(cur)] = (v, list(cur))
    sizes = sorted(best)
    return [best[s][1] for s in sizes], np.array([best[s][0] for s in sizes])


def _problem(seed, n_queries, n):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, n))
    # correlated features make removals happen
    X[:, 1] = X[:, 0] + 0.3 * rng.normal(size=qid.size)
    y = np.floor(X[:, 0] - X[:, 1] + X[:, 2] + rng.normal(size=qid.size)).clip(0, 3)
    return X, y, qid


@given(st.integers(0, 2**31 - 1), st.integers(3, 7), st.integers(3, 7),
       st.sampled_from([0.01, 0.3, 3.0]))
@settings(max_examples=25, deadline=None)
def test_matches_brute_force_sffs(seed, n_queries, n, alpha):
    X, y, qid = _problem(seed, n_queries, n)
    k = n - 1
    model = GreedyRankRLS(k, alpha=alpha, floating=True).fit(X, y, qid=qid)
    subsets, values = brute_sffs(X, y, qid, k, alpha)
    assert [s.tolist() for s in model.best_subsets_] == subsets
    np.testing.assert_allclose(model.lqo_scores_, values, rtol=1e-8, atol=1e-10)
    # (no subset at all when no feature varies within a query: one document per query)
    assert model.selected_features_.tolist() == (subsets[-1] if subsets else [])
    for row, s in enumerate(subsets):
        w = np.zeros(n)
        w[s] = ridge(center(X[:, s], qid), center(y, qid), alpha)
        np.testing.assert_allclose(model.coef_path_[row], w, rtol=1e-8, atol=1e-10)
    # the steps replay to the final subsets; every step's criterion is the subset's
    cur: list = []
    seen = set()
    for f, added, v in model.floating_steps_:
        cur = cur + [f] if added else [g for g in cur if g != f]
        assert frozenset(cur) not in seen
        seen.add(frozenset(cur))
        np.testing.assert_allclose(v, lqo(X[:, cur], y, qid, alpha)[0], rtol=1e-8, atol=1e-10)


def test_floating_removes_on_some_problem_and_never_worse_than_greedy():
    removed = 0
    for seed in range(12):
        X, y, qid = _problem(seed, 8, 7)
        fl = GreedyRankRLS(6, alpha=0.1, floating=True).fit(X, y, qid=qid)
        gr = GreedyRankRLS(6, alpha=0.1).fit(X, y, qid=qid)
        removed += sum(not a for _, a, _ in fl.floating_steps_)
        # size 1 is the same single best feature; SFFS keeps the best subset of every size
        # it visits, and it visits the greedy's first subset
        assert fl.lqo_scores_[0] == pytest.approx(gr.lqo_scores_[0], rel=1e-10)
    assert removed > 0


def test_floating_refusals():
    X, y, qid = _problem(0, 6, 4)
    with pytest.raises(ValueError, match="feature_costs or budget"):
        GreedyRankRLS(2, floating=True, budget=3.0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="min_improvement"):
        GreedyRankRLS(2, floating=True, min_improvement=0.1).fit(X, y, qid=qid)


def test_floating_on_dask_refused():
    pytest.importorskip("distributed")
    from rankselect.dask import GreedyRankRLS as DaskGreedy

    with pytest.raises(ValueError, match="Dask"):
        DaskGreedy(2, floating=True).fit(None, None, None)


def test_floating_constant_feature_stops_uninformative():
    X, y, qid = _problem(1, 6, 4)
    X[:, 3] = 2.0
    model = GreedyRankRLS(4, floating=True).fit(X, y, qid=qid)
    assert model.stop_reason_ == "uninformative" and 3 not in model.selected_features_
    assert len(model.best_subsets_) == 3
