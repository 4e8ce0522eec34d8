"""rankselect.analysis.inspection: query-wise permutation importance and evaluate_path."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import rankselect as rs
from rankselect import metrics
from rankselect.analysis.inspection import (
    _within_query_shuffle,
    evaluate_path,
    fit_ranker,
    permutation_importance,
)
from rankselect.analysis.stats import mean_confidence_interval
from rankselect.data.datasets import load_example, make_ranking


@pytest.fixture(scope="module")
def data():
    return make_ranking(n_queries=60, docs_per_query=(6, 15), n_informative=3, n_redundant=0, n_noise=5,
                        random_state=3)


def test_shuffle_stays_within_queries():
    rng = np.random.default_rng(0)
    g = np.array([2, 0, 0, 1, 2, 1, 0, 2, 2])
    for _ in range(20):
        src = _within_query_shuffle(g, rng)
        assert sorted(src.tolist()) == list(range(g.size))
        assert np.array_equal(g[src], g)


def test_informative_features_matter_noise_does_not(data):
    X, y, qid = data
    model = rs.RankRLS(alpha=1.0).fit(X, y, qid=qid)
    res = permutation_importance(model, X, y, qid, scoring="ndcg@10", n_repeats=5, random_state=0)
    n = X.shape[1]
    assert res.importances_mean.shape == (n,) and res.importances.shape == (n, 5)
    assert res.per_query.shape == (n, 60)
    for j in data.truth.informative:
        assert res.ci_low[j] > 0, j
    for j in data.truth.noise:
        assert res.importances_mean[j] < res.importances_mean[data.truth.informative].min()
    # the interval is the t-interval of the per-query drops
    j = int(data.truth.informative[0])
    d = res.per_query[j]
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    assert res.ci_low[j] == pytest.approx(d.mean() - half) and res.ci_high[j] == pytest.approx(d.mean() + half)
    base = metrics.ndcg(y, model.predict(X), qid, k=10)
    assert res.baseline_score == pytest.approx(base)


def test_permutation_importance_is_reproducible_and_bootstrap(data):
    X, y, qid = data
    model = rs.RankRLS(alpha=1.0).fit(X, y, qid=qid)
    a = permutation_importance(model, X, y, qid, n_repeats=2, random_state=7, features=[0, 1], ci="bootstrap",
                               n_bootstrap=200)
    b = permutation_importance(model, X, y, qid, n_repeats=2, random_state=7, features=[0, 1], ci="bootstrap",
                               n_bootstrap=200)
    assert np.array_equal(a.importances, b.importances)
    assert np.array_equal(a.ci_low, b.ci_low)
    assert (a.ci_low <= a.importances_mean + 1e-12).all() and (a.importances_mean <= a.ci_high + 1e-12).all()


def test_constant_deltas_and_errors(data):
    X, y, qid = data
    lo, hi = mean_confidence_interval(np.zeros(5))
    assert lo == hi == 0.0
    with pytest.raises(TypeError, match="predict"):
        permutation_importance(object(), X, y, qid)
    model = rs.RankRLS().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="out of range"):
        permutation_importance(model, X, y, qid, features=[99])
    with pytest.raises(ValueError, match="ci must be"):
        permutation_importance(model, X, y, qid, ci="normal")
    with pytest.raises(ValueError, match="n_repeats"):
        permutation_importance(model, X, y, qid, n_repeats=0)


def test_evaluate_path_with_rankrls_matches_manual_fits():
    train, vali = load_example("train"), load_example("vali")
    order = rs.GreedyRankRLS(n_features_to_select=4, alpha=1.0).fit(*train).selected_features_
    curve = evaluate_path(order, rs.RankRLS(alpha=1.0), train, vali, scoring="map")
    assert curve.n_features.tolist() == [1, 2, 3, 4]
    for i, k in enumerate(curve.n_features):
        cols = order[:k]
        m = rs.RankRLS(alpha=1.0).fit(train.X[:, cols], train.y, qid=train.qid)
        assert curve.scores[i] == pytest.approx(
            metrics.mean_average_precision(vali.y, m.predict(vali.X[:, cols]), vali.qid))
    assert curve.best_n_features in (1, 2, 3, 4)
    with pytest.raises(ValueError, match="repeat"):
        evaluate_path([1, 1], rs.RankRLS(), train, vali)
    with pytest.raises(ValueError, match="n_features"):
        evaluate_path(order, rs.RankRLS(), train, vali, n_features=[9])


def test_lightgbm_ranker_on_greedy_order():
    lgb = pytest.importorskip("lightgbm")
    train, vali = load_example("train"), load_example("vali")
    order = rs.GreedyRankRLS(n_features_to_select=5, alpha=1.0).fit(*train).selected_features_
    ranker = lgb.LGBMRanker(n_estimators=20, min_child_samples=5, verbose=-1)
    curve = evaluate_path(order, ranker, train, vali, scoring="ndcg@10", n_features=[1, 5])
    assert curve.scores.shape == (2,)
    assert curve.scores[1] > curve.scores[0]
    fitted = fit_ranker(lgb.LGBMRanker(n_estimators=20, min_child_samples=5, verbose=-1),
                        train.X[:, order], train.y, train.qid)
    res = permutation_importance(fitted, vali.X[:, order], vali.y, vali.qid, n_repeats=3, random_state=0)
    assert res.importances_mean.shape == (5,)
    assert res.importances_mean[0] > 0


def test_dataframe_input_matches_numpy(data):
    pd = pytest.importorskip("pandas")
    X, y, qid = data
    model = rs.RankRLS(alpha=1.0).fit(X, y, qid=qid)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    a = permutation_importance(model, X, y, qid, n_repeats=2, random_state=4, features=[0, 3])
    b = permutation_importance(model, frame, y, qid, n_repeats=2, random_state=4, features=[0, 3])
    assert np.array_equal(a.per_query, b.per_query)
    assert np.array_equal(frame.to_numpy(), X)  # the caller's frame is left as it was
