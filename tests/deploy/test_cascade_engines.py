"""A fitted CascadeSelection exported to the engines (#48): Vespa's first-phase and
second-phase, scored by the port of Vespa's phases (``engine_ports.vespa_cascade_scores``:
the re-ranked hits get the second-phase score, the others a rescaled first-phase score),
orders every test query as ``CascadeSelection.predict`` does; each phase's expression scores
as ``Phase.score``; a single-phase cascade is today's single subset; the engines that cannot
compose two phases refuse in one line."""
from __future__ import annotations

import json

import engine_ports as ports
import numpy as np
import pytest

import rankselect as rs
from conftest import shared_path
from rankselect.deploy import export_engine


def _costs(n: int) -> np.ndarray:
    c = np.ones(n)
    c[::3] = 20.0
    return c


def _fit(X, y, qid, Xv, yv, qv, share: float, windows=(5, 10)):
    c = _costs(X.shape[1])
    n_q = np.unique(qv, return_counts=True)[1].mean()
    return rs.CascadeSelection(feature_costs=c, budget=share * c.sum() * n_q, windows=windows,
                               rule="best").fit(X, y, qid=qid, eval_set=(Xv, yv, qv))


@pytest.fixture(scope="module")
def example():
    X, y, qid = rs.data.datasets.load_example("train")
    Xv, yv, qv = rs.data.datasets.load_example("test")
    return X, y, qid, Xv, yv, qv


def _same_order(got: np.ndarray, ref: np.ndarray, qid: np.ndarray) -> None:
    for q in np.unique(qid):
        m = qid == q
        a, b = np.argsort(-got[m], kind="stable"), np.argsort(-ref[m], kind="stable")
        assert np.array_equal(a, b), f"query {q}: Vespa orders the documents differently from predict"


def _check_vespa(cs, X, qid) -> None:
    assert len(cs.phases_) == 2
    out = export_engine("vespa", cs)
    cols = [int(j) for j in cs.phases_[1].features]  # phase 2's prefix holds phase 1's
    assert out.feature_names == [f"feature_{j + 1}" for j in cols]
    Xf = X[:, cols]
    p1, p2 = cs.phases_
    np.testing.assert_allclose(ports.vespa_scores(out.files, Xf, "first"), p1.score(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ports.vespa_scores(out.files, Xf, "second"), p2.score(X), rtol=1e-12, atol=1e-12)
    assert f"rerank-count: {p2.window}" in out.files["rankselect.profile"]
    _same_order(ports.vespa_cascade_scores(out.files, Xf, qid), cs.predict(X, qid=qid), qid)


def test_vespa_two_phases_order_as_predict(example):
    X, y, qid, Xv, yv, qv = example
    cs = _fit(X, y, qid, Xv, yv, qv, 0.5)
    _check_vespa(cs, Xv, qv)
    _check_vespa(cs, X, qid)


def test_the_json_of_rankselect_cascade_exports_the_same_profile(example, tmp_path):
    from rankselect.cli.cascade import result_json

    X, y, qid, Xv, yv, qv = example
    cs = _fit(X, y, qid, Xv, yv, qv, 0.5)
    data = result_json(cs, _costs(X.shape[1]))
    a = export_engine("vespa", cs)
    b = export_engine("vespa", json.loads(json.dumps(data)))
    path = tmp_path / "cascade.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    c = export_engine("vespa", str(path))
    assert a.files == b.files == c.files


def test_one_phase_is_the_single_subset(example):
    X, y, qid, Xv, yv, qv = example
    # a window covering every query (at most 15 documents): no cascade beats the single phases
    cs = _fit(X, y, qid, Xv, yv, qv, 0.2, windows=(100,))
    assert len(cs.phases_) == 1
    p = cs.phases_[0]
    for engine in ("vespa", "opensearch", "solr"):
        out = export_engine(engine, cs)
        assert out.files == export_engine(engine, [int(j) for j in p.features], p.coef, n_features=22).files
    out = export_engine("solr", cs)
    np.testing.assert_allclose(ports.solr_scores(out.files, Xv[:, p.features].astype(np.float32)),
                               p.score(Xv.astype(np.float32).astype(np.float64)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("engine, words", [("solr", "one re-rank query"), ("opensearch", "QueryRescorer"),
                                           ("elasticsearch", "tree ensembles only"), ("ranklib", "one model")])
def test_engines_without_two_phases_refuse_in_one_line(example, engine, words):
    X, y, qid, Xv, yv, qv = example
    cs = _fit(X, y, qid, Xv, yv, qv, 0.5)
    with pytest.raises(ValueError, match=words) as e:
        export_engine(engine, cs)
    assert "\n" not in str(e.value)


def test_bad_cascades_refuse_in_one_line(example):
    with pytest.raises(ValueError, match="not fitted") as e:
        export_engine("vespa", rs.CascadeSelection())
    assert "\n" not in str(e.value)
    X, y, qid, Xv, yv, qv = example
    cs = _fit(X, y, qid, Xv, yv, qv, 0.5)
    with pytest.raises(ValueError, match="model=None"):
        export_engine("vespa", cs, cs.phases_[0].coef)
    bad = {"cascade": {"n_features": 5, "phases": [{"features": [1], "coef": [1.0], "window": 3}]}}
    with pytest.raises(ValueError, match="phase 1's 'window' must be null"):
        export_engine("vespa", bad)
    bad = {"cascade": {"n_features": 5, "phases": [{"features": [1, 2], "coef": [1.0], "window": None}]}}
    with pytest.raises(ValueError, match="'coef' must be 2 finite numbers"):
        export_engine("vespa", bad)


def test_vespa_templates_name_the_functions(example):
    X, y, qid, Xv, yv, qv = example
    cs = _fit(X, y, qid, Xv, yv, qv, 0.5)
    templates = {int(j) + 1: f"attribute(f{int(j) + 1})" for j in cs.phases_[1].features}
    out = export_engine("vespa", cs, templates=templates)
    assert "TODO" not in out.files["rankselect.profile"]
    assert "attribute(f" in out.files["rankselect.profile"]


def test_mq2008_fold1_vespa_orders_every_test_query_as_predict():
    fold = shared_path("MQ2008", "Fold1")
    tr = rs.load_letor(fold / "train.txt")
    va = rs.load_letor(fold / "vali.txt", n_features=tr.X.shape[1])
    te = rs.load_letor(fold / "test.txt", n_features=tr.X.shape[1])
    cs = None
    for share in (0.5, 0.4, 0.6, 0.3, 0.7):
        cs = _fit(tr.X, tr.y, tr.qid, va.X, va.y, va.qid, share, windows=(5, 10))
        if len(cs.phases_) == 2:
            break
    if cs is None or len(cs.phases_) != 2:
        pytest.skip("no budget made a two-phase cascade on MQ2008 Fold1")
    _check_vespa(cs, te.X, te.qid)


def test_ohsumed_fold1_published_costs_vespa_orders_every_test_query_as_predict():
    from rankselect.data.datasets import feature_costs

    fold = shared_path("OHSUMED-LETOR2", "Fold1")
    tr = rs.load_letor(fold / "train.txt")
    va = rs.load_letor(fold / "vali.txt", n_features=tr.X.shape[1])
    te = rs.load_letor(fold / "test.txt", n_features=tr.X.shape[1])
    c = feature_costs("ohsumed-letor2")
    n_q = np.unique(va.qid, return_counts=True)[1].mean()
    cs = rs.CascadeSelection(feature_costs=c, budget=0.05 * c.sum() * n_q, rule="best").fit(
        tr.X, tr.y, qid=tr.qid, eval_set=(va.X, va.y, va.qid))
    if len(cs.phases_) != 2:
        pytest.skip("the 5 % budget made one phase on OHSUMED Fold1")
    _check_vespa(cs, te.X, te.qid)
