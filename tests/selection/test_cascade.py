"""CascadeSelection: the phases, their composition, the costs per query, the choice rule and
one clear error per bad input."""
import numpy as np
import pytest

import rankselect as rs
from _cascade_reference import composed_positions
from rankselect.data import ExtractionCosts, check_feature_groups
from rankselect.selection.cascade import compose
from rankselect.selection.cascade_search import cascade_cost


@pytest.fixture(scope="module")
def data():
    """Long lists, rare relevance, cheap noisy copies of expensive informative features."""
    sets = rs.data.datasets.make_ranking(n_queries=90, docs_per_query=60, n_informative=4, n_redundant=4,
                                         n_noise=4, redundant_noise=1.0, random_state=5)
    X, y, qid = sets.X, sets.y, sets.qid
    q = np.unique(qid)
    tr, va, te = (np.isin(qid, q[:40]), np.isin(qid, q[40:65]), np.isin(qid, q[65:]))
    costs = np.ones(X.shape[1])
    costs[sets.truth.informative] = 20.0
    return X, y, qid, tr, va, te, costs


def _fit(data, **kw):
    X, y, qid, tr, va, _, costs = data
    kw.setdefault("feature_costs", costs)
    return rs.CascadeSelection(**kw).fit(X[tr], y[tr], qid=qid[tr], eval_set=(X[va], y[va], qid[va]))


def test_fitted_phases_costs_and_front(data):
    X, y, qid, tr, va, te, costs = data
    n_q = np.mean(np.unique(qid[va], return_counts=True)[1])
    cs = _fit(data, budget=0.3 * costs.sum() * n_q, rule="best")
    assert 1 <= len(cs.phases_) <= 2
    p1 = cs.phases_[0]
    assert p1.window is None and p1.features.ndim == 1
    sizes = np.unique(qid[va], return_counts=True)[1]
    s2 = None if len(cs.phases_) == 1 else cs.phases_[1]
    recomputed = cascade_cost(ExtractionCosts(costs), sizes, p1.features,
                              None if s2 is None else s2.features, None if s2 is None else s2.window)
    assert cs.cost_per_query_ == pytest.approx(recomputed)
    assert cs.cost_per_query_ <= cs.budget * (1 + 1e-9)
    # the front: increasing cost and score; never below the single-phase front
    costs_f, scores_f = [r["cost"] for r in cs.front_], [r["score"] for r in cs.front_]
    assert costs_f == sorted(costs_f) and scores_f == sorted(scores_f)
    for r in cs.single_front_:
        assert max(f["score"] for f in cs.front_ if f["cost"] <= r["cost"]) >= r["score"]
    assert cs.choice_["decision"] in ("cascade", "one phase")


def test_a_cascade_on_long_lists_with_cheap_copies(data):
    X, y, qid, tr, va, te, costs = data
    n_q = np.mean(np.unique(qid[va], return_counts=True)[1])
    cs = _fit(data, budget=0.25 * costs.sum() * n_q, rule="best")
    assert cs.choice_["decision"] == "cascade" and len(cs.phases_) == 2
    p1, p2 = cs.phases_
    assert p2.window in (10, 20, 50, 100)
    if cs.choice_["cascade"]["phase2_search"].startswith("prefix"):
        assert list(p2.features[:len(p1.features)]) == list(p1.features)  # nested prefixes


def test_predict_is_the_composition_of_the_phases(data):
    X, y, qid, tr, va, te, costs = data
    n_q = np.mean(np.unique(qid[va], return_counts=True)[1])
    cs = _fit(data, budget=0.25 * costs.sum() * n_q, rule="best")
    p1, p2 = cs.phases_
    Xt, qt = X[te], qid[te]
    pred = cs.predict(Xt, qid=qt)
    for q in np.unique(qt):
        rows = np.flatnonzero(qt == q)
        pos = composed_positions(p1.score(Xt[rows]), p2.score(Xt[rows]), p2.window)
        np.testing.assert_array_equal(np.argsort(-pred[rows], kind="stable"), np.argsort(pos))
    assert cs.score(Xt, y[te], qt) == pytest.approx(rs.metrics.ndcg(y[te], pred, qt, k=10))


def test_the_phases_are_rankrls_on_their_prefixes(data):
    X, y, qid, tr, va, te, costs = data
    n_q = np.mean(np.unique(qid[va], return_counts=True)[1])
    cs = _fit(data, budget=0.25 * costs.sum() * n_q, rule="best")
    p1, p2 = cs.phases_
    ref = rs.RankRLS(alpha=1.0).fit(X[tr][:, p1.features], y[tr], qid=qid[tr])
    np.testing.assert_allclose(p1.coef, ref.coef_, rtol=1e-7, atol=1e-10)
    # phase 2: trained on the training documents phase 1 keeps (its top window of each query), or on
    # all of them (the single phase of the longer prefix), as its search says
    Xtr, ytr, qtr = X[tr], y[tr], qid[tr]
    keep = np.zeros(len(ytr), bool)
    s1 = p1.score(Xtr)
    for q in np.unique(qtr):
        rows = np.flatnonzero(qtr == q)
        keep[rows[np.argsort(-s1[rows], kind="stable")[:p2.window]]] = True
    if cs.choice_["cascade"]["phase2_search"] == "prefix, all rows":
        keep[:] = True
    ref2 = rs.RankRLS(alpha=1.0).fit(Xtr[keep][:, p2.features], ytr[keep], qid=qtr[keep])
    np.testing.assert_allclose(p2.coef, ref2.coef_, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("search", ["prefix, kept rows", "prefix, all rows", "greedy, kept rows"])
def test_each_phase2_search_gives_rankrls_phases_at_their_cost(data, search, monkeypatch):
    from rankselect.selection import cascade as module

    monkeypatch.setattr(module, "PHASE2_SEARCHES", {k: k == search for k in module.PHASE2_SEARCHES})
    X, y, qid, tr, va, te, costs = data
    sizes = np.unique(qid[va], return_counts=True)[1]
    cs = _fit(data, budget=0.25 * costs.sum() * sizes.mean(), rule="best")
    assert cs.choice_["decision"] == "cascade" and cs.choice_["cascade"]["phase2_search"] == search
    p1, p2 = cs.phases_
    assert cs.cost_per_query_ == pytest.approx(cascade_cost(ExtractionCosts(costs), sizes, p1.features, p2.features,
                                                            p2.window))
    assert cs.cost_per_query_ <= cs.budget * (1 + 1e-9)
    Xtr, ytr, qtr = X[tr], y[tr], qid[tr]
    keep = np.ones(len(ytr), bool)
    if search.endswith("kept rows"):
        keep[:] = False
        s1 = p1.score(Xtr)
        for q in np.unique(qtr):
            rows = np.flatnonzero(qtr == q)
            keep[rows[np.argsort(-s1[rows], kind="stable")[:p2.window]]] = True
    ref = rs.RankRLS(alpha=1.0).fit(Xtr[keep][:, p2.features], ytr[keep], qid=qtr[keep])
    np.testing.assert_allclose(p2.coef, ref.coef_, rtol=1e-7, atol=1e-10)
    assert list(p2.features[:len(p1.features)]) == list(p1.features)  # phase 2 holds phase 1's features first
    if search == "greedy, kept rows":
        # the cost-aware greedy path on the kept rows continued from phase 1's features (one free unit)
        a, rest = len(p1.features), [j for j in cs.path_ if j not in set(p1.features.tolist())]
        cols = list(p1.features) + rest
        free = np.concatenate([np.zeros(a), costs[rest]])
        g = rs.GreedyRankRLS(n_features_to_select=len(p2.features) - a + 1, feature_costs=free,
                             feature_groups=["p1"] * a + [str(j) for j in rest]).fit(
            Xtr[keep][:, cols], ytr[keep], qid=qtr[keep])
        np.testing.assert_array_equal(np.asarray(cols)[g.selected_features_], p2.features)


def test_one_phase_when_the_cascade_does_not_pay():
    # a window covering every query (the example has at most 15 documents per query): each
    # cascade is the single phase of its phase-2 features at the same cost, so never better
    X, y, qid = rs.data.datasets.load_example("train")
    Xv, yv, qv = rs.data.datasets.load_example("vali")
    cs = rs.CascadeSelection(windows=(100,), rule="best").fit(X, y, qid=qid, eval_set=(Xv, yv, qv))
    assert cs.choice_["mean_difference"] <= 1e-12
    assert cs.choice_["decision"] == "one phase" and len(cs.phases_) == 1
    np.testing.assert_array_equal(cs.predict(Xv), cs.phases_[0].score(Xv))


def test_the_rule_guards_against_noise(data):
    X, y, qid, tr, va, te, costs = data
    n_q = np.mean(np.unique(qid[va], return_counts=True)[1])
    fits = {rule: _fit(data, budget=0.25 * costs.sum() * n_q, rule=rule) for rule in ("best", "1se", "2se")}
    c = fits["best"].choice_
    for rule, k in (("1se", 1.0), ("2se", 2.0)):
        taken = fits[rule].choice_["decision"] == "cascade"
        assert taken == (c["mean_difference"] > k * c["standard_error"])


def test_group_costs_are_paid_once_per_phase():
    g = check_feature_groups(["a", "a", "b"], n_features=3)
    costs = ExtractionCosts(np.ones(3), g, np.array([10.0, 5.0]))
    sizes = np.array([10, 30])
    assert cascade_cost(costs, sizes, [0]) == pytest.approx(11 * 20)
    # phase 2 adds feature 1 (group a already paid by phase 1) on the top 5
    assert cascade_cost(costs, sizes, [0], [0, 1], 5) == pytest.approx(11 * 20 + 1 * 5)
    assert cascade_cost(costs, sizes, [0], [0, 1], 5, reuse=False) == pytest.approx(11 * 20 + 12 * 5)
    assert cascade_cost(costs, sizes, [0], [0, 2], 20) == pytest.approx(11 * 20 + 6 * 15)
    # a phase 2 that does not contain phase 1 (selected on the kept rows) pays what phase 1 did not
    assert cascade_cost(costs, sizes, [0], [2], 5) == pytest.approx(11 * 20 + 6 * 5)
    assert cascade_cost(costs, sizes, [0], [2], 5, reuse=False) == pytest.approx(11 * 20 + 6 * 5)


def test_compose_orders_the_top_window_by_phase_two():
    s1 = np.array([5.0, 4, 3, 2, 1])
    s2 = np.array([0.0, 1, 2, 9, 9])
    out = compose(s1, s2, 3, np.array([0, 5]))
    assert np.argsort(-out).tolist() == [2, 1, 0, 3, 4]


@pytest.mark.parametrize("kw,match", [
    (dict(budget=0.5), "below the cheapest phase"),
    (dict(feature_costs=np.ones(3)), "feature_costs has 3 entries"),
    (dict(feature_costs=-np.ones(22)), "finite and >= 0"),
    (dict(windows=(0, 10)), "windows must be >= 1"),
    (dict(windows=()), "windows must be a non-empty"),
])
def test_bad_input_one_clear_error_each(kw, match):
    X, y, qid = rs.data.datasets.load_example("train")
    Xv, yv, qv = rs.data.datasets.load_example("vali")
    with pytest.raises(ValueError, match=match):
        rs.CascadeSelection(**kw).fit(X, y, qid=qid, eval_set=(Xv, yv, qv))


def test_no_eval_set_is_refused():
    X, y, qid = rs.data.datasets.load_example("train")
    with pytest.raises(ValueError, match="needs eval_set"):
        rs.CascadeSelection().fit(X, y, qid=qid)


def test_extraction_costs_and_no_reuse():
    X, y, qid = rs.data.datasets.load_example("train")
    Xv, yv, qv = rs.data.datasets.load_example("vali")
    groups = check_feature_groups(["a"] * 11 + ["b"] * 11, n_features=22)
    costs = ExtractionCosts(np.ones(22), groups, np.array([5.0, 20.0]))
    cs = rs.CascadeSelection(feature_costs=costs, reuse=False, windows=(3, 5), rule="best").fit(
        X, y, qid=qid, eval_set=(Xv, yv, qv))
    sizes = np.unique(qv, return_counts=True)[1]
    p = cs.phases_
    again = cascade_cost(costs, sizes, p[0].features, None if len(p) == 1 else p[1].features,
                         None if len(p) == 1 else p[1].window, reuse=False)
    assert cs.cost_per_query_ == pytest.approx(again)
    # without reuse a cascade pays its phase-2 set in full: never cheaper than with reuse
    for r in cs.front_:
        if r["n_phases"] == 2:
            a, n, s2 = r["phase1_size"], r["window"], r["phase2_features"]
            assert r["cost"] == pytest.approx(cascade_cost(costs, sizes, cs.path_[:a], s2, n, reuse=False))
            assert r["cost"] >= cascade_cost(costs, sizes, cs.path_[:a], s2, n, reuse=True) - 1e-9


def test_grid_p_value_accounts_for_the_best_of_the_grid():
    from rankselect.selection.cascade_search import _grid_p_value

    rng = np.random.default_rng(3)
    noise = rng.normal(size=(30, 200))  # 200 cascades, no real advantage
    best = noise.mean(axis=0).argmax()
    d = noise[:, best]
    one = _grid_p_value(d[:, None])  # the best column alone looks significant ...
    assert one < 0.01
    assert _grid_p_value(noise) > 0.1  # ... but not as the best of 200
    assert _grid_p_value(np.abs(noise[:, :5]) + 0.1) < 0.01  # a real advantage everywhere
    assert _grid_p_value(noise) == _grid_p_value(noise)  # seeded: the same every time
