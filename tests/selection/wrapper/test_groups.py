"""RecursiveElimination and ForwardSelection over feature groups (issue 33): whole groups
added / eliminated, the path in group steps, group costs paid once, query-aware folds."""
from __future__ import annotations

import numpy as np
import pytest

import rankselect as rs
from rankselect import metrics
from rankselect.data import ExtractionCosts, check_feature_groups

GROUPS = [f"g{j // 4}" for j in range(22)]  # 6 groups: five of 4 columns, one of 2


@pytest.fixture(scope="module")
def data():
    return rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")


def _score(tr, va, cols):
    """Validation NDCG@10 of RankRLS refitted on ``cols`` (the brute-force reference)."""
    model = rs.RankRLS(alpha=1.0).fit(tr.X[:, cols], tr.y, qid=tr.qid)
    return float(metrics.compute("ndcg@10", va.y, model.predict(va.X[:, cols]), va.qid, per_query=True).mean())


def _selector(cls, va, **kw):
    kw.setdefault("validation", (va.X, va.y, va.qid))
    return cls(rs.RankRLS(alpha=1.0), feature_groups=GROUPS, random_state=0, **kw)


def test_forward_over_groups_adds_the_group_of_the_best_refitted_score(data):
    tr, va = data
    groups = check_feature_groups(GROUPS, 22)
    sel = _selector(rs.ForwardSelection, va, n_features_to_select=3).fit(tr.X, tr.y, tr.qid)
    chosen: list[int] = []
    for step in range(3):  # brute force: refit RankRLS for every candidate group
        rest = [g for g in range(groups.n_groups) if g not in chosen]
        scores = [_score(tr, va, groups.columns(chosen + [g])) for g in rest]
        chosen.append(rest[int(np.argmax(scores))])
        assert sel.path_.scores[step] == pytest.approx(max(scores), rel=1e-10)
    assert sel.selected_groups_.tolist() == [groups.names[g] for g in chosen]
    np.testing.assert_array_equal(sel.selected_features_, groups.columns(chosen))
    np.testing.assert_array_equal(sel.path_.n_groups, [1, 2, 3])
    assert [list(g) for g in sel.path_.groups] == [sel.selected_groups_[:k].tolist() for k in (1, 2, 3)]
    np.testing.assert_array_equal(sel.path_.added[1], groups.members(chosen[1]))
    assert sel.transform(va.X).shape[1] == groups.columns(chosen).size


def test_elimination_over_groups_removes_the_least_important_group(data):
    tr, va = data
    groups = check_feature_groups(GROUPS, 22)
    sel = _selector(rs.RecursiveElimination, va, n_features_to_select=2, importance="refit").fit(tr.X, tr.y, tr.qid)
    kept = list(range(groups.n_groups))
    for step in range(1, len(sel.path_)):  # brute force: the group whose removal loses least goes
        scores = [_score(tr, va, groups.columns([g for g in kept if g != h])) for h in kept]
        gone = kept[int(np.argmax(scores))]
        np.testing.assert_array_equal(sel.path_.removed[step], groups.members(gone))
        kept.remove(gone)
    assert sorted(sel.selected_groups_.tolist()) == sorted(groups.names[g] for g in kept)
    np.testing.assert_array_equal(sel.path_.n_groups, [6, 5, 4, 3, 2])
    assert set(sel.selected_features_) == set(groups.columns(kept).tolist())
    # ranking: whole groups share a rank
    for g in range(groups.n_groups):
        assert np.unique(sel.ranking_[groups.members(g)]).size == 1


def test_elimination_by_joint_permutation_is_deterministic_and_the_same_for_any_n_jobs(data):
    tr, va = data
    kw = dict(n_features_to_select=3, n_repeats=2, validation=None, cv=3)
    a = _selector(rs.RecursiveElimination, va, **kw).fit(tr.X, tr.y, tr.qid)
    b = _selector(rs.RecursiveElimination, va, n_jobs=2, **kw).fit(tr.X, tr.y, tr.qid)
    np.testing.assert_array_equal(a.selected_features_, b.selected_features_)
    assert a.selected_groups_.size == 3
    for removed in a.path_.removed[1:]:  # whole groups leave
        assert len({GROUPS[j] for j in removed}) == 1 and removed.size == GROUPS.count(GROUPS[removed[0]])


def test_group_costs_are_paid_once_and_budgets_hold(data):
    tr, va = data
    groups = check_feature_groups(GROUPS, 22)
    gc = {"g0": 5.0, "g1": 1.0, "g2": 3.0, "g3": 2.0, "g4": 4.0, "g5": 0.5}
    fc = np.full(22, 0.25)
    rule = ExtractionCosts(fc, groups, np.array([gc[n] for n in groups.names]))
    for cls in (rs.ForwardSelection, rs.RecursiveElimination):
        sel = _selector(cls, va, feature_costs=fc, group_costs=gc, budget=6.0).fit(tr.X, tr.y, tr.qid)
        for cols, cost in zip(sel.path_.features, sel.path_.cost):
            assert cost == pytest.approx(rule.total(cols))
        assert rule.total(sel.selected_features_) <= 6.0
        assert not sel.path_.eligible[sel.path_.cost > 6.0].any()
    # features priced with their group's cost (select_groups=False): the first member pays it
    fwd = rs.ForwardSelection(rs.RankRLS(alpha=1.0), n_features_to_select=4, feature_groups=GROUPS, group_costs=gc,
                              select_groups=False, budget=4.0, validation=(va.X, va.y, va.qid),
                              random_state=0).fit(tr.X, tr.y, tr.qid)
    assert fwd.n_features_ == 4 and rule.total(fwd.selected_features_) - 4 * 0.25 <= 4.0 + 1e-9
    assert fwd.path_.cost[-1] == pytest.approx(float(np.array([gc[n] for n in fwd.selected_groups_]).sum()))
    assert fwd.path_.groups == []
    with pytest.raises(ValueError, match="below the cheapest group"):
        _selector(rs.ForwardSelection, va, group_costs=gc, budget=0.1).fit(tr.X, tr.y, tr.qid)


def test_query_folds_auto_size_and_bad_arguments(data):
    tr, va = data
    sel = _selector(rs.ForwardSelection, va, validation=None, cv=3).fit(tr.X, tr.y, tr.qid)
    assert len(sel.path_) == 6 and 1 <= sel.selected_groups_.size <= 6  # "auto": every group, then the rule
    with pytest.raises(ValueError, match="counts groups"):
        _selector(rs.ForwardSelection, va, n_features_to_select=7).fit(tr.X, tr.y, tr.qid)
    with pytest.raises(ValueError, match="candidates"):
        _selector(rs.RecursiveElimination, va, candidates=np.arange(4)).fit(tr.X, tr.y, tr.qid)
    with pytest.raises(ValueError, match="group_costs needs feature_groups"):
        rs.ForwardSelection(rs.RankRLS(), group_costs=[1.0], validation=(va.X, va.y, va.qid)).fit(tr.X, tr.y, tr.qid)


def test_lightgbm_over_groups(data):
    lightgbm = pytest.importorskip("lightgbm")
    tr, va = data
    est = lightgbm.LGBMRanker(n_estimators=15, num_leaves=7, min_child_samples=5, verbose=-1, n_jobs=1)
    for cls in (rs.ForwardSelection, rs.RecursiveElimination):
        kw = dict(n_features_to_select=2, feature_groups=GROUPS, validation=(va.X, va.y, va.qid), random_state=0)
        a = cls(est, **kw).fit(tr.X, tr.y, tr.qid)
        b = cls(est, **kw).fit(tr.X, tr.y, tr.qid)
        assert a.selected_groups_.size == 2
        np.testing.assert_array_equal(a.selected_features_, b.selected_features_)
        assert a.estimator_.n_features_in_ == a.selected_features_.size
