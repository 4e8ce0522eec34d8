"""RecursiveElimination and ForwardSelection: any ranker in the loop (LightGBM here; XGBoost
and CatBoost in test_libraries.py), the path as data, the selection rules, candidates,
costs, determinism, n_jobs, interruption, metadata routing."""
from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import Pipeline

import rankselect as rs
from rankselect.selection.wrapper import SelectionPath, choose_step

lightgbm = pytest.importorskip("lightgbm")


@pytest.fixture(scope="module")
def data():
    return rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")


def ranker(**kw):
    return lightgbm.LGBMRanker(n_estimators=15, num_leaves=7, min_child_samples=5, verbose=-1, n_jobs=1, **kw)


def rfe(vali, **kw):
    kw.setdefault("validation", (vali.X, vali.y, vali.qid))
    return rs.RecursiveElimination(ranker(), random_state=0, **kw)


def test_elimination_selects_and_records_its_path(data):
    tr, va = data
    sel = rfe(va, n_features_to_select=5, step=0.3).fit(tr.X, tr.y, tr.qid)
    n = tr.X.shape[1]
    assert sel.n_features_ == 5 and sel.support_.sum() == 5
    assert sorted(sel.selected_features_) == list(np.flatnonzero(sel.get_support()))
    assert sel.transform(va.X).shape == (va.X.shape[0], 5)
    assert len(sel.get_feature_names_out()) == 5
    p = sel.path_
    assert p.n_features[0] == n and p.n_features[-1] == 5
    assert np.all(np.diff(p.n_features) < 0)
    for i in range(1, len(p)):  # each step removed exactly what the sizes say
        assert set(p.features[i - 1]) - set(p.features[i]) == set(p.removed[i])
    assert np.all(p.ci_low <= p.scores) and np.all(p.scores <= p.ci_high)
    assert np.all(np.diff(p.wall_time) >= 0)
    d = p.to_dict()
    assert set(d) >= {"n_features", "score", "score_se", "features", "removed", "wall_time"}
    assert (sel.ranking_ == 1).sum() == 5 and sel.ranking_.min() == 1
    # the final ranker is fitted on the selected features
    assert sel.estimator_.n_features_in_ == 5


@pytest.mark.parametrize("importance", ["permutation", "refit", "native"])
def test_elimination_is_deterministic_and_the_same_for_any_n_jobs(data, importance):
    tr, va = data
    kw = dict(n_features_to_select=4, step=0.5, importance=importance, n_repeats=2,
              candidates=np.arange(10), validation=None, cv=2)
    a = rfe(va, **kw).fit(tr.X, tr.y, tr.qid)
    b = rfe(va, n_jobs=2, **kw).fit(tr.X, tr.y, tr.qid)
    np.testing.assert_array_equal(a.selected_features_, b.selected_features_)
    np.testing.assert_array_equal(a.path_.scores, b.path_.scores)


def test_forward_selection_same_for_any_n_jobs_and_never_revisits(data):
    tr, va = data
    kw = dict(n_features_to_select=4, floating=True, candidates=rs.GreedyRankRLS(), n_candidates=7,
              validation=(va.X, va.y, va.qid), random_state=0)
    a = rs.ForwardSelection(ranker(), **kw).fit(tr.X, tr.y, tr.qid)
    b = rs.ForwardSelection(ranker(), n_jobs=2, **kw).fit(tr.X, tr.y, tr.qid)
    np.testing.assert_array_equal(a.selected_features_, b.selected_features_)
    np.testing.assert_array_equal(a.path_.scores, b.path_.scores)
    subsets = [frozenset(f) for f in a.path_.features]
    assert len(subsets) == len(set(subsets))
    assert a.n_features_ == 4 and set(a.selected_features_) <= set(a.candidates_)
    assert len(a.candidates_) == 7
    # the selection is the best subset of its size on the path
    four = a.path_.n_features == 4
    assert a.path_.scores[four].max() == pytest.approx(
        a.path_.scores[[i for i, f in enumerate(a.path_.features) if set(f) == set(a.selected_features_)][0]])


def test_forward_adds_the_best_feature_each_round(data):
    tr, va = data
    cand = np.array([3, 7, 11, 16])
    sel = rs.ForwardSelection(ranker(), n_features_to_select=2, candidates=cand,
                              validation=(va.X, va.y, va.qid), random_state=0).fit(tr.X, tr.y, tr.qid)
    first = sel.selected_features_[0]
    curve = rs.analysis.inspection.evaluate_path
    scores = {j: curve([j], ranker(random_state=sel.estimator_.random_state), (tr.X, tr.y, tr.qid),
                       (va.X, va.y, va.qid)).scores[0] for j in cand}
    assert scores[first] == pytest.approx(max(scores.values()), abs=0.02)


def test_one_standard_error_rule_by_hand():
    path = SelectionPath(n_features=np.array([6, 5, 4, 3, 2]), scores=np.array([.70, .74, .73, .71, .60]),
                         score_se=np.array([.01, .02, .01, .01, .01]), ci_low=np.zeros(5), ci_high=np.ones(5),
                         features=[np.arange(k) for k in (6, 5, 4, 3, 2)], eligible=np.ones(5, dtype=bool))
    assert choose_step(path, "best") == 1  # .74
    # best - se = .72: sizes 5 (.74) and 4 (.73) qualify; the smallest is 4
    assert choose_step(path, "one-standard-error") == 2
    assert choose_step(path, "best", n_features=3) == 3
    path.eligible[2] = False  # over the budget
    assert choose_step(path, "one-standard-error") == 1
    with pytest.raises(ValueError, match="selection_rule"):
        choose_step(path, "median")


def test_one_standard_error_on_a_fitted_path(data):
    tr, va = data
    sel = rfe(va, step=0.25, selection_rule="one-standard-error").fit(tr.X, tr.y, tr.qid)
    p = sel.path_
    best = int(np.argmax(p.scores))
    ok = np.flatnonzero(p.scores >= p.scores[best] - p.score_se[best])
    assert sel.n_features_ == p.n_features[ok].min()
    # score_se is the standard error over the validation queries
    assert np.all(p.score_se > 0)


def test_candidates_as_order_selector_and_fitted_selector(data):
    tr, va = data
    order = np.array([5, 3, 11, 7, 16, 0])
    a = rfe(va, n_features_to_select=3, candidates=order, n_candidates=4).fit(tr.X, tr.y, tr.qid)
    np.testing.assert_array_equal(a.candidates_, order[:4])
    assert set(a.selected_features_) <= set(order[:4])
    g = rs.GreedyRankRLS(n_features_to_select=6).fit(tr.X, tr.y, tr.qid)
    b = rfe(va, n_features_to_select=3, candidates=g).fit(tr.X, tr.y, tr.qid)
    np.testing.assert_array_equal(b.candidates_, g.selected_features_)
    c = rfe(va, n_features_to_select=3, candidates=rs.GreedyRankRLS(), n_candidates=6).fit(tr.X, tr.y, tr.qid)
    np.testing.assert_array_equal(c.candidates_, g.selected_features_)
    with pytest.raises(ValueError, match="outside"):
        rfe(va, candidates=[0, 99]).fit(tr.X, tr.y, tr.qid)
    with pytest.raises(ValueError, match="pool"):
        rfe(va, n_features_to_select=5, candidates=order, n_candidates=4).fit(tr.X, tr.y, tr.qid)


def test_costs_and_budget(data):
    tr, va = data
    n = tr.X.shape[1]
    costs = np.ones(n)
    costs[:11] = 10.0  # the first half is expensive
    sel = rfe(va, step=0.3, feature_costs=costs, budget=25.0).fit(tr.X, tr.y, tr.qid)
    assert costs[sel.selected_features_].sum() <= 25.0
    assert not sel.path_.eligible[sel.path_.cost > 25.0].any()
    fwd = rs.ForwardSelection(ranker(), n_features_to_select=3, budget=2.0, candidates=np.arange(6),
                              validation=(va.X, va.y, va.qid), random_state=0).fit(tr.X, tr.y, tr.qid)
    assert fwd.n_features_ <= 2
    with pytest.raises(ValueError, match="feature_costs"):
        rfe(va, feature_costs=np.ones(3)).fit(tr.X, tr.y, tr.qid)


def test_rankselect_ranker_in_the_loop(data):
    tr, va = data
    sel = rs.RecursiveElimination(rs.RankRLS(alpha=1.0), n_features_to_select=4, step=0.5, importance="native",
                                  cv=2).fit(tr.X, tr.y, tr.qid)
    assert sel.n_features_ == 4 and sel.estimator_.coef_.shape == (4,)


def test_a_ranker_without_query_groups_is_refused(data):
    tr, va = data
    with pytest.raises(TypeError, match="no query groups"):
        rs.RecursiveElimination(LinearRegression(), cv=2).fit(tr.X, tr.y, tr.qid)


def test_bad_arguments(data):
    tr, va = data
    with pytest.raises(ValueError, match="not both"):
        rfe(va, cv=2).fit(tr.X, tr.y, tr.qid)
    with pytest.raises(ValueError, match="features"):
        rfe(va, validation=(va.X[:, :3], va.y, va.qid)).fit(tr.X, tr.y, tr.qid)
    with pytest.raises(ValueError, match="step"):
        rfe(va, step=0).fit(tr.X, tr.y, tr.qid)


class _Interrupting(rs.RankRLS):
    """A ranker whose third fit is interrupted (as Ctrl-C inside a fit)."""

    calls = 0

    def fit(self, X, y, qid=None):
        type(self).calls += 1
        if type(self).calls == 3:
            raise KeyboardInterrupt
        return super().fit(X, y, qid=qid)


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_interrupt_stops_the_selection(data, n_jobs):
    tr, va = data
    _Interrupting.calls = 0
    sel = rs.RecursiveElimination(_Interrupting(), importance="refit", cv=2, n_jobs=n_jobs)
    with pytest.raises(KeyboardInterrupt):
        sel.fit(tr.X, tr.y, tr.qid)
    assert _Interrupting.calls <= 3 + (n_jobs or 1)
    assert not hasattr(sel, "path_")


def test_lightgbm_callback_interrupt(data):
    tr, va = data
    calls = []

    def stop(env):
        calls.append(env.iteration)
        if len(calls) == 20:
            raise KeyboardInterrupt

    est = _WithCallback(n_estimators=1000, num_leaves=7, min_child_samples=5, verbose=-1, n_jobs=1)
    _USER_CALLBACKS[:] = [stop]
    with pytest.raises(KeyboardInterrupt):
        rs.RecursiveElimination(est, validation=(va.X, va.y, va.qid)).fit(tr.X, tr.y, tr.qid)
    assert len(calls) == 20  # stopped inside the first fit, at once


_USER_CALLBACKS: list = []


class _WithCallback(lightgbm.LGBMRanker):
    """LGBMRanker with more LightGBM callbacks (``_USER_CALLBACKS``)."""

    def fit(self, X, y, **kw):
        kw["callbacks"] = [*kw.get("callbacks", []), *_USER_CALLBACKS]
        return super().fit(X, y, **kw)


def test_metadata_routing_in_a_pipeline(data):
    tr, va = data
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("select", rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=3, step=0.5,
                                                            importance="native", cv=2)),
                         ("rank", rs.RankRLS())])
        pipe.fit(tr.X, tr.y, qid=tr.qid)
        assert pipe.named_steps["rank"].coef_.shape == (3,)
        assert np.isfinite(pipe.score(va.X, va.y, qid=va.qid))
