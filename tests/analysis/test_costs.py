"""Feature costs and budgets on GreedyRankRLS, GAS and SparseRankSVM; the cost-quality path."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rankselect as rs
from rankselect.analysis.costs import cost_quality_path, pareto_front, read_costs
from rankselect.cli import main
from rankselect.data.datasets import example_path, load_example


@pytest.fixture(scope="module")
def train():
    return load_example("train")


@pytest.fixture(scope="module")
def vali():
    return load_example("vali")


def _costs(n, seed=0):
    return np.random.default_rng(seed).uniform(0.1, 3.0, n)


def test_uniform_costs_give_todays_selections(train):
    X, y, qid = train
    n = X.shape[1]
    for crit in ("squared", "ndcg@10"):
        plain = rs.GreedyRankRLS(n_features_to_select=8, criterion=crit).fit(X, y, qid=qid)
        costed = rs.GreedyRankRLS(n_features_to_select=8, criterion=crit, feature_costs=np.full(n, 2.5))
        costed.fit(X, y, qid=qid)
        assert np.array_equal(plain.selected_features_, costed.selected_features_)
        assert np.array_equal(plain.lqo_scores_, costed.lqo_scores_)
        assert np.array_equal(plain.coef_path_, costed.coef_path_)
        assert costed.cost_path_.tolist() == pytest.approx(2.5 * np.arange(1, 9))
    g0 = rs.GAS(n_features_to_select=8).fit(X, y, qid=qid)
    g1 = rs.GAS(n_features_to_select=8, feature_costs=np.full(n, 7.0)).fit(X, y, qid=qid)
    g2 = rs.GAS(n_features_to_select=8, budget=100.0).fit(X, y, qid=qid)
    assert np.array_equal(g0.selected_features_, g1.selected_features_)
    assert np.array_equal(g0.selected_features_, g2.selected_features_)
    s0 = rs.SparseRankSVM(C=0.05).fit(X, y, qid=qid)
    s1 = rs.SparseRankSVM(C=0.05, feature_costs=np.full(n, 4.0)).fit(X, y, qid=qid)
    assert np.array_equal(s0.coef_, s1.coef_)


def test_budget_is_never_exceeded(train):
    X, y, qid = train
    n = X.shape[1]
    for seed in range(3):
        c = _costs(n, seed)
        for budget in (c.min(), 0.7, 1.5, 4.0, 20.0):
            g = rs.GreedyRankRLS(n_features_to_select=n, feature_costs=c, budget=budget).fit(X, y, qid=qid)
            assert g.cost_path_[-1] <= budget
            assert g.cost_path_[-1] == pytest.approx(c[g.selected_features_].sum())
            left = np.setdiff1d(np.arange(n), g.selected_features_)
            assert (g.cost_path_[-1] + c[left] > budget).all()  # stopped only when nothing fits
            gas = rs.GAS(n_features_to_select=n, feature_costs=c, budget=budget).fit(X, y, qid=qid)
            assert c[gas.selected_features_].sum() <= budget
    # a budget without costs is a number of features
    assert rs.GreedyRankRLS(n_features_to_select=10, budget=3).fit(X, y, qid=qid).selected_features_.size == 3
    with pytest.raises(ValueError, match="cheapest"):
        rs.GreedyRankRLS(feature_costs=np.full(n, 2.0), budget=1.0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="feature_costs"):
        rs.GreedyRankRLS(feature_costs=-np.ones(n)).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="feature_costs has"):
        rs.GAS(feature_costs=np.ones(3)).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="budget"):
        rs.GAS(budget=np.inf).fit(X, y, qid=qid)


def test_free_duplicate_replaces_expensive_feature(train):
    X, y, qid = train
    n = X.shape[1]
    strongest = 7  # the example's strongest planted feature (0-based)
    Xd = np.hstack([X, X[:, [strongest]]])
    costs = np.ones(n + 1)
    costs[strongest], costs[n] = 10.0, 0.0
    g = rs.GreedyRankRLS(n_features_to_select=5, feature_costs=costs).fit(Xd, y, qid=qid)
    assert g.selected_features_[0] == n and strongest not in g.selected_features_
    gas = rs.GAS(n_features_to_select=5, feature_costs=costs).fit(Xd, y, qid=qid)
    assert gas.selected_features_[0] == n and strongest not in gas.selected_features_
    svm = rs.SparseRankSVM(C=0.05, feature_costs=costs).fit(Xd, y, qid=qid)
    assert svm.coef_[n] != 0 and svm.coef_[strongest] == 0
    # without costs the original (lower index) is taken
    assert rs.GreedyRankRLS(n_features_to_select=1).fit(Xd, y, qid=qid).selected_features_[0] == strongest


def test_sparse_costs_are_mean_normalised_weights(train):
    X, y, qid = train
    c = _costs(X.shape[1])
    a = rs.SparseRankSVM(C=0.05, feature_costs=c).fit(X, y, qid=qid)
    b = rs.SparseRankSVM(C=0.05, penalty=rs.models.penalties.L1(weights=c / c.mean())).fit(X, y, qid=qid)
    assert np.array_equal(a.coef_, b.coef_)
    with pytest.raises(ValueError, match="penalty='l1'"):
        rs.SparseRankSVM(penalty="log", feature_costs=c).fit(X, y, qid=qid)


def test_pareto_front_by_hand():
    cost = [3.0, 1.0, 2.0, 2.0, 5.0]
    score = [0.5, 0.2, 0.4, 0.3, 0.5]
    assert pareto_front(cost, score).tolist() == [1, 2, 0]


def test_cost_quality_paths(train, vali):
    X, y, qid = train
    c = _costs(X.shape[1])
    g = rs.GreedyRankRLS(n_features_to_select=6, feature_costs=c).fit(X, y, qid=qid)
    p = cost_quality_path(g, vali, c, scoring="map")
    assert p.total_cost.tolist() == pytest.approx(g.cost_path_.tolist())
    assert p.score[2] == pytest.approx(rs.metrics.mean_average_precision(vali.y, vali.X @ g.coef_path_[2], vali.qid))
    assert set(p.pareto.tolist()) <= set(range(6)) and p.best_within(p.total_cost[-1]) in p.pareto
    sp = rs.sparse_path(X, y, qid, n_Cs=4, feature_costs=c)
    q = cost_quality_path(sp, vali, c)
    nonempty = [w for w in sp.coefs if np.any(w)]  # the all-zero model (file order) is left out
    assert len(nonempty) < len(sp.coefs)
    assert q.total_cost.tolist() == pytest.approx([c[np.flatnonzero(w)].sum() for w in nonempty])
    gas = rs.GAS(n_features_to_select=4, feature_costs=c).fit(X, y, qid=qid)
    r = cost_quality_path(gas, vali, c, train=train)
    assert r.n_features.tolist() == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="train="):
        cost_quality_path(gas, vali, c)


def test_plot_cost_quality(train, vali):
    pytest.importorskip("matplotlib")
    from rankselect.plotting import plot_cost_quality

    c = _costs(train.X.shape[1])
    g = rs.GreedyRankRLS(n_features_to_select=5, feature_costs=c).fit(*train)
    ax = plot_cost_quality({"greedy": cost_quality_path(g, vali, c)})
    assert ax.get_xlabel() == "total feature cost"
    assert len(ax.lines) >= 2  # points and the Pareto front


def test_read_costs(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("cost\n1\n2.5\n0\n")
    assert read_costs(p, 3).tolist() == [1, 2.5, 0]
    p.write_text("feature,cost  # 1-based\n3,0.5\n1,2\n2,1\n")
    assert read_costs(p, 3).tolist() == [2, 1, 0.5]
    p.write_text("1,2\n3,1\n")
    with pytest.raises(ValueError, match=r"feature\(s\) \[2\]"):
        read_costs(p, 3)
    p.write_text("1\n2\n")
    with pytest.raises(ValueError, match="2 entries"):
        read_costs(p, 3)


def test_cli_select_with_costs_and_budget(tmp_path, capsys):
    c = _costs(22)
    p = tmp_path / "costs.csv"
    p.write_text("".join(f"{v}\n" for v in c))
    train = str(example_path("train"))
    assert main(["select", "--method", "greedy-rankrls", "-k", "22", "--costs", str(p), "--budget", "2",
                 train, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    chosen = np.array(out["selected_features"]) - 1
    assert c[chosen].sum() <= 2 and out["total_cost"] == pytest.approx(c[chosen].sum())
    assert main(["select", "--method", "gas", "-k", "5", "--costs", str(p), train]) == 0
    assert "total cost" in capsys.readouterr().out
    assert main(["select", "--method", "fsmrank", "--costs", str(p), train]) == 2
    assert "does not take feature costs" in capsys.readouterr().err


def test_constant_within_query_features_are_never_candidates():
    """Uniform costs equal the plain selection also when some features are constant within
    every query (#17.9): neither path selects them, and both stop when only they are left."""
    rng = np.random.default_rng(4)
    qid = np.repeat(np.arange(6), [5, 4, 6, 3, 5, 4])
    X = rng.normal(size=(qid.size, 5))
    X[:, 1] = qid * 0.3  # varies across queries only
    X[:, 3] = 1.5
    y = np.clip(np.round(X[:, 0] - X[:, 2] + rng.normal(size=qid.size)), 0, 3)
    plain = rs.GreedyRankRLS(n_features_to_select=5).fit(X, y, qid=qid)
    costed = rs.GreedyRankRLS(n_features_to_select=5, feature_costs=np.full(5, 2.0)).fit(X, y, qid=qid)
    assert sorted(plain.selected_features_) == [0, 2, 4]
    assert np.array_equal(plain.selected_features_, costed.selected_features_)
    assert np.array_equal(plain.lqo_scores_, costed.lqo_scores_)
    assert plain.stop_reason_ == costed.stop_reason_ == "uninformative"
    budgeted = rs.GreedyRankRLS(n_features_to_select=5, budget=2).fit(X, y, qid=qid)
    assert len(budgeted.selected_features_) == 2 and budgeted.stop_reason_ == "budget"
