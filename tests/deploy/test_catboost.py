"""CatBoost to every engine through the IR, with the same proof as LightGBM and XGBoost: the
engines' ports (``engine_ports``) on the test rows, with NaN (``nan_mode`` Min and Max) and
with values at the float32 borders and their neighbours, equal ``predict`` within float32
rounding with no query reordered; YetiRank, PairLogit and QueryRMSE rankers, and the
generic ``CatBoost`` class. Categorical features and non-symmetric trees are refused."""
from __future__ import annotations

import json

import engine_ports as ports
import numpy as np
import pytest
from _deploy_cases import Case, _fit, mq2008_fold1, nan_data, synthetic, synthetic_data  # noqa: F401 (fixtures)
from test_parity import TOL, assert_same_order

from rankselect.deploy import export_engine
from rankselect.deploy.trees import forest_of

cb = pytest.importorskip("catboost")

PORTS = {"opensearch": ports.opensearch_scores, "solr": ports.solr_scores,
         "elasticsearch": ports.elasticsearch_scores, "vespa": ports.vespa_scores}
FLOAT32 = {"opensearch", "solr"}


def borders(model, k: int) -> list[np.ndarray]:
    """Each column's borders (read through CatBoost's own API) and their float32 neighbours."""
    out: list[list[float]] = [[] for _ in range(k)]
    for f in json.loads(json.dumps(model.get_borders())).items():
        j, values = int(f[0]), f[1]
        for v in values:
            b = np.float32(v)
            if abs(b) < 1e38:
                out[j] += [float(b), float(np.nextafter(b, np.float32(np.inf))),
                           float(np.nextafter(b, np.float32(-np.inf)))]
    return [np.unique(v) for v in out]


def rows(model, X: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(3)
    N = X.copy()
    N[rng.random(X.shape) < 0.10] = np.nan
    B = X.copy()
    for j, values in enumerate(borders(model, X.shape[1])):
        if values.size:
            hit = rng.random(len(B)) < 0.4
            B[hit, j] = rng.choice(values, hit.sum())
    return np.vstack([X, N, B])


def check(model, selection, X_test, qid_test, engine: str, n_features=None) -> None:
    out = export_engine(engine, selection, model, n_features=n_features, non_match="missing")
    assert not any("cannot be held" in n for n in out.notes), out.notes
    X = rows(model, X_test)
    qid = np.tile(qid_test, 3) * 10 + np.repeat(np.arange(3), len(qid_test))
    if engine in FLOAT32:
        X = X.astype(np.float32).astype(np.float64)
    ref = model.predict(X).astype(np.float64)
    got = PORTS[engine](out.files, X).astype(np.float64)
    tol = TOL[engine in FLOAT32] * np.maximum(1.0, np.abs(ref))
    assert np.all(np.abs(got - ref) <= tol), f"max difference {np.max(np.abs(got - ref)):.3g}"
    assert_same_order(got, ref, qid)


@pytest.fixture(scope="module")
def nan_models():
    X, y, qid = nan_data()
    train = qid < 40
    cols = [5, 0, 3, 1, 8, 2]
    models = {(loss, mode): _fit("catboost", X[train][:, cols], y[train], qid[train], 40, depth=4,
                                 loss_function=loss, nan_mode=mode)
              for loss, mode in (("YetiRank", "Min"), ("PairLogit", "Max"), ("QueryRMSE", "Max"))}
    return cols, X[~train][:, cols], qid[~train], models


@pytest.mark.parametrize("engine", sorted(PORTS))
@pytest.mark.parametrize("loss, mode", [("YetiRank", "Min"), ("PairLogit", "Max"), ("QueryRMSE", "Max")])
def test_catboost_trained_with_nan_in_every_engine(nan_models, loss, mode, engine):
    cols, X, qid, models = nan_models
    model = models[loss, mode]
    np.testing.assert_allclose(forest_of(model).predict(rows(model, X)), model.predict(rows(model, X)),
                               rtol=1e-12, atol=1e-12)
    check(model, cols, X, qid, engine, n_features=10)


@pytest.mark.parametrize("engine", sorted(PORTS))
def test_catboost_ranker_on_the_synthetic_selection(synthetic, engine):  # noqa: F811
    X, y, qid = synthetic_data()
    train = qid < 40
    model = _fit("catboost", X[train][:, synthetic.columns], y[train], qid[train], 30, loss_function="YetiRank")
    check(model, synthetic.selection, synthetic.X_test, synthetic.qid_test, engine)


@pytest.mark.parametrize("engine", sorted(PORTS))
def test_catboost_ranker_on_mq2008(mq2008_fold1, engine):  # noqa: F811
    case = mq2008_fold1
    model = case.models["catboost"]
    check(model, case.selection, case.X_test, case.qid_test, engine)


def test_the_generic_catboost_class_with_a_bias():
    X, y, qid = synthetic_data()
    model = cb.CatBoost({"iterations": 10, "loss_function": "RMSE", "verbose": 0, "thread_count": 1,
                         "allow_writing_files": False}).fit(X[:, :4], y)
    forest = forest_of(model)
    assert forest.base_score != 0.0
    out = export_engine("vespa", [0, 1, 2, 3], model, n_features=10)
    np.testing.assert_allclose(ports.vespa_scores(out.files, X[:, :4]), model.predict(X[:, :4]), rtol=1e-12)


def test_categorical_features_are_refused():
    X, y, qid = synthetic_data()
    cat = np.where(X[:, 0] > 0.5, "a", "b").astype(object)
    data = np.column_stack([X[:, 1].astype(object), cat])
    model = cb.CatBoostRanker(iterations=3, verbose=0, thread_count=1, allow_writing_files=False).fit(
        data, y, group_id=qid, cat_features=[1])
    with pytest.raises(ValueError, match="categorical features: the engines test numbers only"):
        export_engine("solr", [0, 1], model, n_features=2)


def test_non_symmetric_trees_and_classifiers_are_refused():
    X, y, qid = synthetic_data()
    deep = cb.CatBoostRanker(iterations=3, verbose=0, thread_count=1, grow_policy="Depthwise",
                             allow_writing_files=False).fit(X[:, :2], y, group_id=qid)
    with pytest.raises(ValueError, match="non-symmetric trees.*grow_policy='SymmetricTree'"):
        export_engine("vespa", [0, 1], deep, n_features=10)
    clf = cb.CatBoostClassifier(iterations=3, verbose=0, thread_count=1, allow_writing_files=False).fit(
        X[:, :2], y > 1)
    with pytest.raises(ValueError, match="the CatBoost loss 'Logloss' is not exported"):
        export_engine("vespa", [0, 1], clf, n_features=10)
