"""Group greedy RankRLS (issue 33): whole groups by the exact LQO criterion (a rank-b update
per group) equal a forward selection over groups that refits RankRLS for every candidate;
size-1 groups equal the plain greedy; shared group costs are paid once."""
import numpy as np
import pytest

import rankselect as rs
from _rankrls_reference import group_greedy


def _problem(seed, n=12, n_queries=9):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 8, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(len(qid), n))
    y = X[:, :4] @ rng.normal(size=4) + 0.5 * rng.normal(size=len(qid))
    return X, np.round(y, 1), qid


def _random_groups(rng, n):
    cols = rng.permutation(n)
    labels = np.empty(n, dtype=object)
    g = i = 0
    while i < n:
        b = int(rng.integers(1, 5))
        labels[cols[i:i + b]] = f"g{g}" if g < 5 else "g5"
        i += b
        g += 1
    return list(labels)


@pytest.mark.parametrize("seed", range(8))
def test_group_greedy_equals_refitting_forward_selection(seed):
    rng = np.random.default_rng(100 + seed)
    X, y, qid = _problem(seed)
    labels = _random_groups(rng, X.shape[1])
    groups = rs.data.check_feature_groups(labels, X.shape[1])
    k = min(3, groups.n_groups)
    sel = rs.GreedyRankRLS(n_features_to_select=k, alpha=0.8, feature_groups=labels).fit(X, y, qid=qid)
    order, errs, path = group_greedy(X, y, qid, groups.member_lists(), k, 0.8)
    assert [groups.group_id(g) for g in sel.selected_groups_] == order
    np.testing.assert_allclose(sel.lqo_scores_, errs, rtol=1e-8)
    np.testing.assert_allclose(sel.coef_path_, path, rtol=1e-8, atol=1e-10)
    assert sel.selected_features_.tolist() == groups.columns(order).tolist()


def test_singleton_groups_equal_the_plain_greedy():
    X, y, qid = _problem(3)
    plain = rs.GreedyRankRLS(n_features_to_select=5).fit(X, y, qid=qid)
    single = rs.GreedyRankRLS(n_features_to_select=5, feature_groups=list(range(12))).fit(X, y, qid=qid)
    assert single.selected_features_.tolist() == plain.selected_features_.tolist()
    np.testing.assert_allclose(single.lqo_scores_, plain.lqo_scores_, rtol=1e-12)
    np.testing.assert_allclose(single.coef_path_, plain.coef_path_, rtol=1e-12, atol=1e-14)


def test_group_budget_refuses_a_group_beyond_it():
    X, y, qid = _problem(5)
    labels = ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3
    sel = rs.GreedyRankRLS(n_features_to_select=4, feature_groups=labels, group_costs=[2.0, 2.0, 2.0, 2.0],
                           budget=5.0).fit(X, y, qid=qid)
    assert len(sel.selected_groups_) == 2 and sel.stop_reason_ == "budget"
    np.testing.assert_allclose(sel.cost_path_, [2.0, 4.0])


def test_feature_level_group_cost_paid_once():
    # the budget admits the group's cost once, not twice: two members of one group fit
    X, y, qid = _problem(6, n=4)
    labels = ["a", "a", "b", "b"]
    sel = rs.GreedyRankRLS(n_features_to_select=4, feature_groups=labels, select_groups=False,
                           group_costs={"a": 1.0, "b": 5.0}, budget=1.5).fit(X, y, qid=qid)
    assert sorted(sel.selected_features_.tolist()) == [0, 1]
    np.testing.assert_allclose(sel.cost_path_, [1.0, 1.0])
    assert list(sel.selected_groups_) == ["a"]


def test_errors():
    X, y, qid = _problem(1, n=4)
    with pytest.raises(ValueError, match="floating"):
        rs.GreedyRankRLS(n_features_to_select=1, feature_groups=[0, 0, 1, 1], floating=True,
                         group_costs=[1, 2]).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="group_costs needs feature_groups"):  # was silently ignored
        rs.GreedyRankRLS(n_features_to_select=1, group_costs=[1.0, 2.0], budget=3.0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="n_groups"):
        rs.GreedyRankRLS(n_features_to_select=3, feature_groups=[0, 0, 1, 1]).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="group_costs has 3"):
        rs.GreedyRankRLS(n_features_to_select=1, feature_groups=[0, 0, 1, 1], group_costs=[1, 2, 3]).fit(X, y, qid=qid)
