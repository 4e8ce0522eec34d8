"""The proof: every engine file, scored by a port of the engine's own code
(``engine_ports``), gives the ranker's own ``predict`` on the test rows, in the same order
in every query: on values as they come, with 5 % of them missing (NaN: with
``non_match="missing"`` the model's own NaN way, with ``"zero"`` the way of 0, so that the
engine scores a non-match as ``predict`` scores a 0), and with values equal to the split
values (and their float32 neighbours). Float32 engines (OpenSearch,
Solr) see float32 feature values and are compared with ``predict`` on those values; the
float64 engines (Elasticsearch, Vespa) with ``predict`` on the data."""
from __future__ import annotations

import json

import engine_ports as ports
import numpy as np
import pytest
from _deploy_cases import Case, mq2008_fold1, synthetic  # noqa: F401 (fixtures)

import rankselect as rs
from rankselect.deploy import export_engine

PORTS = {"opensearch": ports.opensearch_scores, "solr": ports.solr_scores,
         "elasticsearch": ports.elasticsearch_scores, "vespa": ports.vespa_scores}
FLOAT32 = {"opensearch", "solr"}
#: tolerance relative to max(1, |score|): float32 engines sum float32 leaves; the float64
#: engines sum XGBoost's float32 leaves in float64 (XGBoost itself sums in float32)
TOL = {True: 1e-6, False: 1e-5}


def thresholds_by_column(model, library: str, k: int) -> list[np.ndarray]:
    """Each column's split values, read through the library's own API, with their float32
    neighbours (the values where a test can go either way)."""
    out: list[list[float]] = [[] for _ in range(k)]
    if library == "lightgbm":
        df = model.booster_.trees_to_dataframe()
        df = df[df["split_feature"].notna()]
        names = model.booster_.feature_name()
        for name, t in zip(df["split_feature"], df["threshold"]):
            f32 = np.float32(t)
            out[names.index(name)] += [float(t), float(f32), float(np.nextafter(f32, np.float32(np.inf))),
                                       float(np.nextafter(f32, np.float32(-np.inf)))]
    else:
        raw = json.loads(model.get_booster().save_raw("json"))
        for tree in raw["learner"]["gradient_booster"]["model"]["trees"]:
            for i, j, s in zip(tree["left_children"], tree["split_indices"], tree["split_conditions"]):
                if i != -1:
                    f32 = np.float32(s)
                    out[j] += [float(f32), float(np.nextafter(f32, np.float32(np.inf))),
                               float(np.nextafter(f32, np.float32(-np.inf)))]
    return [np.unique(v) for v in out]


def variant(case: Case, library: str, kind: str) -> np.ndarray:
    X = case.X_test.copy()
    rng = np.random.default_rng(1)
    if kind in ("nan", "nan_as_zero"):
        X[rng.random(X.shape) < 0.05] = np.nan
    elif kind == "thresholds":
        for j, values in enumerate(thresholds_by_column(case.models[library], library, X.shape[1])):
            if values.size:
                hit = rng.random(len(X)) < 0.4
                X[hit, j] = rng.choice(values, hit.sum())
    return X


def assert_same_order(got: np.ndarray, ref: np.ndarray, qid: np.ndarray) -> None:
    for q in np.unique(qid):
        m = qid == q
        a, b = np.argsort(-got[m], kind="stable"), np.argsort(-ref[m], kind="stable")
        assert np.array_equal(a, b), f"query {q}: the engine orders the documents differently"


def check(case: Case, library: str, engine: str, kind: str) -> None:
    model = case.models[library]
    out = export_engine(engine, case.selection, model, non_match="zero" if kind == "nan_as_zero" else "missing")
    assert not any("cannot be held" in n for n in out.notes), out.notes
    X = variant(case, library, kind)
    if engine in FLOAT32:
        X = X.astype(np.float32).astype(np.float64)  # the engine's feature values
    ref = model.predict(np.nan_to_num(X, nan=0.0) if kind == "nan_as_zero" else X).astype(np.float64)
    got = PORTS[engine](out.files, X).astype(np.float64)
    if engine in FLOAT32 and library == "xgboost":
        np.testing.assert_array_equal(got, ref)  # the same float32 sum, bit for bit
    tol = TOL[engine in FLOAT32] * np.maximum(1.0, np.abs(ref))
    assert np.all(np.abs(got - ref) <= tol), f"max difference {np.max(np.abs(got - ref)):.3g}"
    assert_same_order(got, ref, case.qid_test)


@pytest.mark.parametrize("kind", ["plain", "nan", "nan_as_zero", "thresholds"])
@pytest.mark.parametrize("engine", sorted(PORTS))
@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_synthetic_parity(synthetic, library, engine, kind):  # noqa: F811
    check(synthetic, library, engine, kind)


@pytest.mark.parametrize("kind", ["plain", "nan", "thresholds"])
@pytest.mark.parametrize("engine", sorted(PORTS))
@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_mq2008_fold1_parity(mq2008_fold1, library, engine, kind):  # noqa: F811
    check(mq2008_fold1, library, engine, kind)


LINEAR_PORTS = {"opensearch": ports.opensearch_scores, "solr": ports.solr_scores, "vespa": ports.vespa_scores,
                "ranklib": ports.ranklib_scores}


@pytest.mark.parametrize("engine", sorted(LINEAR_PORTS))
@pytest.mark.parametrize("source", ["rankrls_on_subset", "coef_path_step", "selector"])
def test_linear_exports_equal_x_at_w(synthetic, engine, source):  # noqa: F811
    sel, X = synthetic.selection, synthetic.X_test
    if source == "rankrls_on_subset":
        Xtr, ytr, qtr = _train_rows(synthetic)
        model = rs.RankRLS(alpha=1.0).fit(Xtr, ytr, qid=qtr)
        w = model.coef_
    elif source == "coef_path_step":
        model = sel.coef_path_[3]  # the model of the first 4 features: zero on the other two
        w = model[synthetic.columns]
    else:
        model, w = sel, sel.coef_[synthetic.columns]
    out = export_engine(engine, sel, model)
    x = X.astype(np.float32).astype(np.float64) if engine != "vespa" else X
    ref = x @ w
    got = LINEAR_PORTS[engine](out.files, x).astype(np.float64)
    bound = 1e-6 * np.maximum(1.0, np.abs(x) @ np.abs(w))
    assert np.all(np.abs(got - ref) <= bound)


def _train_rows(case: Case):
    from _deploy_cases import synthetic_data

    X, y, qid = synthetic_data()
    train = qid < 40
    return X[train][:, case.columns], y[train], qid[train]


def test_after_early_stopping_the_trees_predict_uses():
    xgb = pytest.importorskip("xgboost")
    from _deploy_cases import synthetic_data

    X, y, qid = synthetic_data(2)
    tr, va, te = qid < 30, (qid >= 30) & (qid < 45), qid >= 45
    model = xgb.XGBRanker(n_estimators=200, early_stopping_rounds=2, tree_method="hist", learning_rate=0.5)
    model.fit(X[tr], y[tr], qid=qid[tr], eval_set=[(X[va], y[va])], eval_qid=[qid[va]], verbose=False)
    assert model.best_iteration + 1 < model.get_booster().num_boosted_rounds()  # predict stops early
    x = X[te].astype(np.float32).astype(np.float64)
    got = ports.opensearch_scores(export_engine("opensearch", list(range(10)), model).files, x)
    np.testing.assert_array_equal(got.astype(np.float64), model.predict(x).astype(np.float64))
