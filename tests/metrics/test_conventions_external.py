"""The conventions named after a tool equal that tool exactly (issue 23): ``trec`` is
pytrec_eval's ``ndcg_cut_k``, ``map`` and ``P_k`` on MQ2008 (graded labels 0/1/2, the scores
of a RankRLS model, with many ties), ``lightgbm`` is LightGBM's own ``ndcg@k`` evaluation,
queries without relevant documents included; ``standard`` stays the old numbers (the
``exponential`` convention)."""
from __future__ import annotations

import numpy as np
import pytest

import rankselect as rs
from conftest import shared_path
from rankselect import metrics
from rankselect.data import QueryGroups


def _mq2008_run():
    fold = shared_path("MQ2008", "Fold1")
    tr, te = rs.load_letor(fold / "train.txt"), rs.load_letor(fold / "test.txt")
    model = rs.RankRLS(alpha=1.0).fit(tr.X, tr.y, qid=tr.qid)
    # Rounded scores: many ties, so the tie rule is exercised.
    return te.y, np.round(model.predict(te.X), 2), te.qid


def test_trec_equals_pytrec_eval_on_mq2008():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, s, qid = _mq2008_run()
    assert len(np.unique(s)) < len(s) // 2  # ties are common
    qrels: dict = {}
    run: dict = {}
    n = len(y)
    for i, (q, lab, sc) in enumerate(zip(qid, y, s)):
        # trec_eval breaks score ties by document id in reverse lexical order: ids that
        # decrease in input order make that the input order (ties="stable").
        doc = f"d{n - i:07d}"
        qrels.setdefault(str(q), {})[doc] = int(lab)
        run.setdefault(str(q), {})[doc] = float(sc)
    names = {"map", "P_5", "P_10", "ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_1000"}
    res = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    ids = QueryGroups.from_qid(qid).ids
    ours = {
        "map": metrics.mean_average_precision(y, s, qid, convention="trec", per_query=True),
        "P_5": metrics.precision(y, s, qid, 5, convention="trec", per_query=True),
        "P_10": metrics.precision(y, s, qid, 10, convention="trec", per_query=True),
        "ndcg_cut_5": metrics.ndcg(y, s, qid, 5, convention="trec", per_query=True),
        "ndcg_cut_10": metrics.ndcg(y, s, qid, 10, convention="trec", per_query=True),
        "ndcg_cut_1000": metrics.ndcg(y, s, qid, 1000, convention="trec", per_query=True),
    }
    for name, values in ours.items():
        theirs = np.array([res[str(q)][name] for q in ids])
        np.testing.assert_allclose(values, theirs, rtol=0, atol=1e-12, err_msg=name)
    # The old "standard" (exponential gain) differs on graded labels: not trec_eval's.
    std = metrics.ndcg(y, s, qid, 10, per_query=True)
    assert np.abs(std - ours["ndcg_cut_10"]).max() > 1e-3
    np.testing.assert_array_equal(std, metrics.ndcg(y, s, qid, 10, convention="exponential", per_query=True))


def test_lightgbm_equals_lightgbms_own_ndcg():
    lgb = pytest.importorskip("lightgbm")
    fold = shared_path("MQ2008", "Fold1")
    tr, va = rs.load_letor(fold / "train.txt"), rs.load_letor(fold / "vali.txt")
    gtr, gva = QueryGroups.from_qid(tr.qid), QueryGroups.from_qid(va.qid)
    # MQ2008 has many queries without a relevant document: LightGBM counts them as 1.
    assert any((va.y[va.qid == q] == 0).all() for q in gva.ids)
    Xtr, ytr = tr.X[gtr.perm], tr.y[gtr.perm]
    Xva, yva, qva = va.X[gva.perm], va.y[gva.perm], va.qid[gva.perm]
    result: dict = {}
    dtr = lgb.Dataset(Xtr, ytr, group=np.diff(gtr.offsets))
    dva = lgb.Dataset(Xva, yva, group=np.diff(gva.offsets), reference=dtr)
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [1, 5, 10], "verbose": -1,
              "num_leaves": 7, "min_data_in_leaf": 5, "deterministic": True, "num_threads": 1, "seed": 0}
    booster = lgb.train(params, dtr, num_boost_round=5, valid_sets=[dva], valid_names=["va"],
                        callbacks=[lgb.record_evaluation(result)])
    scores = booster.predict(Xva, num_threads=1)
    for k in (1, 5, 10):
        ours = metrics.ndcg(yva, scores, qva, k, convention="lightgbm")
        assert ours == pytest.approx(result["va"][f"ndcg@{k}"][-1], abs=1e-9), k
    assert metrics.ndcg(yva, scores, qva, 10) < metrics.ndcg(yva, scores, qva, 10, convention="lightgbm")


def test_conventions_list_and_alias():
    from rankselect.metrics.checks import CONVENTIONS

    assert CONVENTIONS == ("standard", "exponential", "trec", "lightgbm", "letor")
    y, s, q = np.array([2.0, 0, 1]), np.array([0.1, 0.3, 0.2]), np.zeros(3)
    assert metrics.ndcg(y, s, q, convention="standard") == metrics.ndcg(y, s, q, convention="exponential")
    with pytest.raises(ValueError, match="convention must be one of"):
        metrics.ndcg(y, s, q, convention="trec_eval")
