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
from _cascade_data import interaction
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


@pytest.mark.parametrize("engine, words", [("solr", "one re-rank query"), ("opensearch", "refuses negative scores"),
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


@pytest.fixture(scope="module")
def ohsumed_fold1():
    """OHSUMED-LETOR2 Fold1's train and test sets and its cascade at 5 % of the published costs
    (fitted once for the module's tests)."""
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
    return tr, te, cs


def test_ohsumed_fold1_published_costs_vespa_orders_every_test_query_as_predict(ohsumed_fold1):
    tr, te, cs = ohsumed_fold1
    _check_vespa(cs, te.X, te.qid)


# ------------------------------------------------------------------ a LightGBM phase 2 (phase2_ranker)


def _with_lightgbm_phase2(cs, X, y, qid, **params):
    """``cs`` with its phase 2 refit as LightGBM on the training documents phase 1 keeps, as
    ``phase2_ranker="lightgbm"`` refits it. On these LETOR folds the estimator keeps the linear
    phase 2 (the trees score lower on validation: tests/selection/test_cascade_lightgbm.py), so
    the export of the trees is proved on the phase built here."""
    from rankselect.selection import Phase
    from rankselect.selection.cascade_trees import fit_phase2_trees

    pytest.importorskip("lightgbm")
    p1, p2 = cs.phases_
    order = np.argsort(qid, kind="stable")
    Xs, ys, qs = X[order], y[order], qid[order]
    offsets = np.r_[0, np.flatnonzero(np.diff(qs)) + 1, len(qs)]
    booster = fit_phase2_trees(Xs[:, p2.features], ys, offsets, p1.score(Xs), p2.window, params or None)
    cs.phases_[1] = Phase(p2.features, None, p2.window, booster)
    return cs


def _check_vespa_trees(cs, X, qid) -> None:
    """Vespa's second-phase (the port of its lightgbm() import) scores as the trees, and its
    composed order is predict's up to documents whose final scores tie (Vespa breaks such ties
    its own way): along predict's order the final scores never increase, but by a rounding (a
    document that ties the window's lowest phase-1 score just outside it is rescaled to the
    lowest second-phase score, FirstPhaseRescorer's ``score * scale - adjust`` rounded)."""
    out = export_engine("vespa", cs)
    p1, p2 = cs.phases_
    cols = [int(j) for j in p2.features]
    assert out.feature_names == [f"feature_{j + 1}" for j in cols]
    assert 'lightgbm("rankselect.json")' in out.files["rankselect.profile"] and "models/rankselect.json" in out.files
    Xf = X[:, cols]
    np.testing.assert_allclose(ports.vespa_scores(out.files, Xf, "first"), p1.score(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ports.vespa_scores(out.files, Xf, "second"), p2.score(X), rtol=1e-12, atol=1e-12)
    final, pred = ports.vespa_cascade_scores(out.files, Xf, qid), cs.predict(X, qid=qid)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        along = final[rows[np.argsort(-pred[rows], kind="stable")]]
        slack = 1e-12 * np.maximum(1.0, np.abs(along[1:]))
        assert np.all(np.diff(along) <= slack), f"query {q}: Vespa orders the documents differently from predict"


def test_vespa_lightgbm_phase2_orders_as_predict(example):
    X, y, qid, Xv, yv, qv = example
    cs = _with_lightgbm_phase2(_fit(X, y, qid, Xv, yv, qv, 0.5), X, y, qid, min_child_samples=5)
    _check_vespa_trees(cs, Xv, qv)
    _check_vespa_trees(cs, X, qid)


def test_a_kept_lightgbm_phase2_exports_from_the_estimator_and_its_json(tmp_path):
    from rankselect.cli.cascade import result_json

    pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)

    def data(n_q):
        return interaction(rng, n_q)

    (X, y, qid), vali, test = data(60), data(30), data(30)
    costs = np.array([1.0, 10.0, 10.0, 1.0, 1.0])
    cs = rs.CascadeSelection(feature_costs=costs, windows=(10,), phase2_ranker="lightgbm").fit(
        X, y, qid=qid, eval_set=vali)
    assert [p.ranker for p in cs.phases_] == ["linear", "lightgbm"]
    _check_vespa_trees(cs, test[0], test[2])
    data_json = json.loads(json.dumps(result_json(cs, costs)))
    assert data_json["cascade"]["phases"][1]["ranker"] == "lightgbm"
    assert export_engine("vespa", data_json).files == export_engine("vespa", cs).files
    for engine in ("solr", "opensearch", "elasticsearch", "ranklib"):
        with pytest.raises(ValueError):
            export_engine(engine, data_json)
    bad = json.loads(json.dumps(data_json))
    bad["cascade"]["phases"][1]["model"] = None
    with pytest.raises(ValueError, match="phase 2's 'model' must be the LightGBM model text"):
        export_engine("vespa", bad)
    bad["cascade"]["phases"][0]["ranker"] = "lightgbm"
    with pytest.raises(ValueError, match="phase 1's 'ranker' must be 'linear'"):
        export_engine("vespa", bad)


def test_mq2008_fold1_vespa_lightgbm_phase2_orders_every_test_query_as_predict():
    fold = shared_path("MQ2008", "Fold1")
    tr = rs.load_letor(fold / "train.txt")
    va = rs.load_letor(fold / "vali.txt", n_features=tr.X.shape[1])
    te = rs.load_letor(fold / "test.txt", n_features=tr.X.shape[1])
    cs = _fit(tr.X, tr.y, tr.qid, va.X, va.y, va.qid, 0.5, windows=(5, 10))
    if len(cs.phases_) != 2:
        pytest.skip("the budget made one phase on MQ2008 Fold1")
    _check_vespa_trees(_with_lightgbm_phase2(cs, tr.X, tr.y, tr.qid), te.X, te.qid)


def test_ohsumed_fold1_vespa_lightgbm_phase2_orders_every_test_query_as_predict(ohsumed_fold1):
    tr, te, cs = ohsumed_fold1
    _check_vespa_trees(_with_lightgbm_phase2(cs, tr.X, tr.y, tr.qid), te.X, te.qid)
