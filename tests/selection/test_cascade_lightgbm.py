"""``CascadeSelection(phase2_ranker="lightgbm")`` (#48): the best affordable cascade's phase 2
refit as a LightGBM lambdarank model on the training documents phase 1 keeps, kept only where
its validation value is at least the linear phase 2's; the same cost, ``predict`` through its
trees, deterministic; LightGBM is optional (these tests skip without it)."""
from __future__ import annotations

import numpy as np
import pytest

lightgbm = pytest.importorskip("lightgbm")

import rankselect as rs  # noqa: E402
from _cascade_data import interaction as interaction_data  # noqa: E402
from rankselect.metrics import ndcg  # noqa: E402
from rankselect.selection.cascade import compose  # noqa: E402
from rankselect.selection.cascade_trees import PHASE2_PARAMS, fit_phase2_trees  # noqa: E402

COSTS = np.array([1.0, 10.0, 10.0, 1.0, 1.0])


def _interaction(seed: int, n_queries: int, m: int = 40):
    """Relevance from the product of two expensive features (which no linear ranker orders),
    feature 0 a cheap noisy copy of it, features 3 and 4 cheap noise."""
    return interaction_data(np.random.default_rng(seed), n_queries, m)


@pytest.fixture(scope="module")
def interaction():
    return _interaction(0, 60), _interaction(1, 30), _interaction(2, 30)


def _fit(train, vali, **kw):
    return rs.CascadeSelection(feature_costs=COSTS, windows=(10,), **kw).fit(
        train[0], train[1], qid=train[2], eval_set=vali)


def test_a_better_lightgbm_phase_two_is_kept(interaction):
    train, vali, test = interaction
    linear = _fit(train, vali)
    cs = _fit(train, vali, phase2_ranker="lightgbm")
    ch = cs.choice_
    assert ch["phase2_ranker"] == "lightgbm" and ch["phase2_kept"] == "lightgbm"
    assert ch["phase2_lightgbm_score"] >= ch["phase2_linear_score"]
    assert ch["cascade"]["phase2_ranker"] == "lightgbm" and ch["cascade"]["score"] == ch["phase2_lightgbm_score"]
    assert ch["decision"] == "cascade"
    p1, p2 = cs.phases_
    assert (p1.ranker, p2.ranker, p2.coef) == ("linear", "lightgbm", None)
    # the same configuration and cost as the linear phase 2 it replaces (the same features)
    lin = linear.choice_["cascade"]
    assert (len(p1.features), p2.window, len(p2.features)) == (lin["phase1_size"], lin["window"], lin["phase2_size"])
    assert cs.cost_per_query_ == pytest.approx(lin["cost"])
    # the front holds the LightGBM configuration, said so
    assert any(r["phase2_ranker"] == "lightgbm" for r in cs.front_)
    assert {r["phase2_ranker"] for r in cs.front_ if r["n_phases"] == 1} <= {None}
    # predict composes phase 1 with the trees; the trees are LightGBM's on phase 2's columns
    Xt, yt, qt = test
    np.testing.assert_array_equal(p2.score(Xt), p2.model.predict(Xt[:, p2.features]))
    offsets = np.r_[0, np.flatnonzero(np.diff(qt)) + 1, len(qt)]
    np.testing.assert_array_equal(cs.predict(Xt, qid=qt), compose(p1.score(Xt), p2.score(Xt), p2.window, offsets))
    # and it ranks the held-out queries better than the linear cascade does (the interaction)
    assert cs.score(Xt, yt, qid=qt) > linear.score(Xt, yt, qid=qt) + 0.05


def test_the_trees_are_trained_on_the_documents_phase_one_keeps(interaction):
    train, vali, _ = interaction
    cs = _fit(train, vali, phase2_ranker="lightgbm", phase2_params={"n_estimators": 20})
    p1, p2 = cs.phases_
    X, y, qid = train
    offsets = np.r_[0, np.flatnonzero(np.diff(qid)) + 1, len(qid)]
    ref = fit_phase2_trees(X[:, p2.features], y, offsets, p1.score(X), p2.window, {"n_estimators": 20})
    assert p2.model.num_trees() == 20
    assert p2.model.model_to_string() == ref.model_to_string()
    # by hand: LightGBM on each query's top 10 by phase 1
    rows = np.concatenate([lo + np.sort(np.argsort(-p1.score(X)[lo:hi], kind="stable")[:p2.window])
                           for lo, hi in zip(offsets[:-1], offsets[1:])])
    params = {**PHASE2_PARAMS, "n_estimators": 20}
    model = lightgbm.LGBMRanker(objective="lambdarank", deterministic=True, force_row_wise=True, n_jobs=1,
                                random_state=0, verbose=-1, **params)
    model.fit(X[rows][:, p2.features], y[rows].astype(int), group=np.full(len(offsets) - 1, p2.window))
    np.testing.assert_array_equal(model.predict(X[:, p2.features]), p2.score(X))


def test_deterministic(interaction):
    train, vali, _ = interaction
    a = _fit(train, vali, phase2_ranker="lightgbm")
    b = _fit(train, vali, phase2_ranker="lightgbm")
    assert a.phases_[1].model.model_to_string() == b.phases_[1].model.model_to_string()
    assert a.front_ == b.front_


@pytest.mark.parametrize("n_jobs", [2, 4])
def test_the_same_trees_whatever_the_number_of_threads(interaction, n_jobs):
    """``phase2_params`` may set LightGBM's threads: with the settings rankselect trains under
    (``deterministic=True``, ``force_row_wise=True``) the trees, and so the cascade, are those
    of one thread."""
    train, vali, _ = interaction
    one = _fit(train, vali, phase2_ranker="lightgbm")
    many = _fit(train, vali, phase2_ranker="lightgbm", phase2_params={"n_jobs": n_jobs})
    def trees(cs):  # the model text without its parameters (which name the threads)
        return cs.phases_[1].model.model_to_string().split("\nparameters:")[0]

    assert "Tree=0" in trees(one) and trees(many) == trees(one)
    assert many.front_ == one.front_ and many.choice_ == one.choice_


def test_a_worse_lightgbm_phase_two_is_not_kept():
    train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("test")
    c = np.ones(22)
    c[::3] = 20.0
    n_q = np.unique(vali.qid, return_counts=True)[1].mean()
    kw = dict(feature_costs=c, budget=0.5 * c.sum() * n_q, windows=(5, 10), rule="best")
    linear = rs.CascadeSelection(**kw).fit(*train, eval_set=tuple(vali))
    cs = rs.CascadeSelection(phase2_ranker="lightgbm", **kw).fit(*train, eval_set=tuple(vali))
    ch = cs.choice_
    assert ch["phase2_lightgbm_score"] < ch["phase2_linear_score"] == linear.choice_["cascade"]["score"]
    assert ch["phase2_kept"] == "linear" and [p.ranker for p in cs.phases_] == ["linear", "linear"]
    assert [p.features.tolist() for p in cs.phases_] == [p.features.tolist() for p in linear.phases_]
    np.testing.assert_array_equal(cs.predict(vali.X, qid=vali.qid), linear.predict(vali.X, qid=vali.qid))
    # the grid's value of the linear cascade is the composed ranking's (what the trees are compared with)
    best = ch["cascade"]
    assert ndcg(vali.y, linear.predict(vali.X, qid=vali.qid), vali.qid, k=10) == pytest.approx(best["score"],
                                                                                                abs=1e-12)


def test_one_phase_without_a_cascade_has_no_trees():
    train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    cs = rs.CascadeSelection(feature_costs=np.arange(1.0, 23.0), budget=1500.0, windows=(100,),
                             phase2_ranker="lightgbm").fit(*train, eval_set=tuple(vali))
    assert cs.choice_["decision"] == "one phase" and len(cs.phases_) == 1 and cs.phases_[0].model is None


@pytest.mark.parametrize("kw, match", [(dict(phase2_ranker="xgboost"), "phase2_ranker"),
                                       (dict(phase2_params=[1]), "phase2_params"),
                                       (dict(phase2_params={"num_leaves": 7}), "need phase2_ranker='lightgbm'")])
def test_bad_options(interaction, kw, match):
    train, vali, _ = interaction
    with pytest.raises(ValueError, match=match):
        _fit(train, vali, **kw)


def test_labels_lambdarank_cannot_take_are_refused(interaction):
    (X, y, qid), vali, _ = interaction
    with pytest.raises(ValueError, match="integer relevance labels >= 0"):
        _fit((X, y + 0.5, qid), vali, phase2_ranker="lightgbm")
