"""A two-phase cascade exported to OpenSearch LTR (#48): phase 1 in the main query, phase 2 in
one rescore window. The port of the plugin's models (``engine_ports.opensearch_scores``) gives
each phase's float32 scores; a shard's order is Lucene's (phase 1's top ``window_size`` by
score, ties by document) re-sorted by the rescore (``0 * s1 + 1 * s2``, ties by document), and
it equals ``CascadeSelection.predict``'s top N on every test query; a phase 1 with a negative
weight (a main query Lucene would refuse) and every other misuse are refused in one line."""
from __future__ import annotations

import json

import engine_ports as ports
import numpy as np
import pytest

import rankselect as rs
from conftest import shared_path
from rankselect.deploy import export_engine
from rankselect.selection.cascade import compose

F32 = np.float32


def _phase_scores(files: dict, k: int, X: np.ndarray, names: list[str]) -> np.ndarray:
    """Phase ``k``'s scores by the plugin's port; ``X``'s columns are ``names`` (the logging set)."""
    own = [f["name"] for f in json.loads(files[f"featureset_phase{k}.json"])["featureset"]["features"]]
    Xk = X[:, [names.index(s) for s in own]]
    return ports.opensearch_scores({"featureset.json": files[f"featureset_phase{k}.json"],
                                    "createmodel.json": files[f"createmodel_phase{k}.json"]}, Xk)


def engine_top(files: dict, X: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """One shard's hits for one query (``rows`` of ``X``, documents in row order): the main query
    collects ``max(from + size, window_size)`` hits by phase 1 (score descending, then document),
    the rescore gives each ``query_weight * s1 + rescore_query_weight * s2`` (float32) and sorts
    them (score descending, then document); ``from + size <= window_size``: no other hit."""
    body = json.loads(files["search.json"])
    names = [f["name"] for f in json.loads(files["featureset.json"])["featureset"]["features"]]
    n = body["rescore"]["window_size"]
    assert body["from"] + body["size"] <= n
    q = body["rescore"]["query"]
    s1 = _phase_scores(files, 1, X[rows], names)
    assert (s1 >= 0).all() or (X[rows] < 0).any()  # query scores (>= 0) give phase 1 >= 0
    top = np.lexsort((np.arange(len(rows)), -s1))[:n]
    s2 = _phase_scores(files, 2, X[rows[top]], names)
    combined = (F32(q["query_weight"]) * s1[top] + F32(q["rescore_query_weight"]) * s2).astype(F32)
    return rows[top[np.lexsort((top, -combined))]]


def _check(cs, X, qid) -> int:
    assert len(cs.phases_) == 2
    out = export_engine("opensearch", cs)
    p1, p2 = cs.phases_
    cols = [int(j) for j in p2.features]
    Xf = X[:, cols]
    names = [f["name"] for f in json.loads(out.files["featureset.json"])["featureset"]["features"]]
    assert names == out.feature_names
    for k, p in ((1, p1), (2, p2)):
        np.testing.assert_allclose(_phase_scores(out.files, k, Xf, names), p.score(X), rtol=1e-5, atol=1e-5)
    predicted = cs.predict(X, qid=qid)
    checked = 0
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        got = engine_top(out.files, Xf, rows)
        want = rows[np.argsort(-predicted[rows], kind="stable")][:len(got)]
        assert np.array_equal(got, want), f"query {q}: OpenSearch orders the top {len(got)} differently"
        checked += 1
    return checked


def _cascade_json(w1: float) -> dict:
    return {"cascade": {"n_features": 6, "phases": [
        {"features": [2], "coef": [w1], "window": None},
        {"features": [2, 5, 1], "coef": [1.0, -0.5, 0.25], "window": 4}]}}


def test_files_and_the_composed_order_of_a_cascade_json():
    out = export_engine("opensearch", _cascade_json(0.5), name="news")
    assert sorted(out.files) == ["README.md", "createmodel_phase1.json", "createmodel_phase2.json",
                                 "featureset.json", "featureset_phase1.json", "featureset_phase2.json",
                                 "load.sh", "logging_query.json", "model_phase1.json", "model_phase2.json",
                                 "search.json"]
    body = json.loads(out.files["search.json"])
    assert body["query"]["bool"]["must"][0]["sltr"]["model"] == "news_phase1"
    assert body["rescore"]["query"]["rescore_query"]["sltr"]["model"] == "news_phase2"
    assert body["rescore"]["window_size"] == 4 and body["size"] == 4
    assert "_featureset/news_phase2/_createmodel" in out.files["load.sh"]
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 5, size=(40, 6))
    qid = np.repeat(np.arange(4), 10)
    Xf = X[:, [1, 4, 0]]  # the logging set: phase 1's feature 2, then phase 2's 5 and 1
    w1, w2 = np.array([0.5]), np.array([1.0, -0.5, 0.25])
    s1 = (Xf[:, :1] @ w1).astype(F32).astype(float)
    s2 = (Xf @ w2).astype(F32).astype(float)
    offsets = np.r_[0, np.cumsum(np.bincount(qid))]
    want = compose(s1, s2, 4, offsets)
    for q in range(4):
        rows = np.flatnonzero(qid == q)
        assert np.array_equal(engine_top(out.files, Xf, rows), rows[np.argsort(-want[rows], kind="stable")][:4])


def test_a_negative_phase_1_weight_is_refused_in_one_line():
    with pytest.raises(ValueError, match="Lucene refuses negative scores.*feature_2 is -0.5") as e:
        export_engine("opensearch", _cascade_json(-0.5))
    assert "\n" not in str(e.value)


def test_the_cli_writes_the_two_phases(tmp_path, capsys):
    from rankselect.cli import main

    src = tmp_path / "cascade.json"
    src.write_text(json.dumps(_cascade_json(0.5)), encoding="utf-8")
    assert main(["export", str(src), "--engine", "opensearch", "--out", str(tmp_path / "os")]) == 0
    assert (tmp_path / "os" / "createmodel_phase2.json").exists()
    assert main(["export", str(src), "--engine", "opensearch", "--out", str(tmp_path / "os")]) == 2
    assert "--force" in capsys.readouterr().err


def test_ohsumed_published_costs_opensearch_orders_every_test_query_as_predict():
    from rankselect.data.datasets import feature_costs

    c = feature_costs("ohsumed-letor2")
    done = 0
    for f in (1, 2, 4):
        fold = shared_path("OHSUMED-LETOR2", f"Fold{f}")
        tr = rs.load_letor(fold / "train.txt")
        va = rs.load_letor(fold / "vali.txt", n_features=tr.X.shape[1])
        te = rs.load_letor(fold / "test.txt", n_features=tr.X.shape[1])
        n_q = np.unique(va.qid, return_counts=True)[1].mean()
        cs = rs.CascadeSelection(feature_costs=c, budget=0.05 * c.sum() * n_q, rule="best").fit(
            tr.X, tr.y, qid=tr.qid, eval_set=(va.X, va.y, va.qid))
        if len(cs.phases_) == 2 and (cs.phases_[0].coef >= 0).all():
            done += _check(cs, te.X, te.qid)
    if not done:
        pytest.skip("no OHSUMED fold gave a two-phase cascade with a phase 1 of weights >= 0")
