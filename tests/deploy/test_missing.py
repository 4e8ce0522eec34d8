"""Models trained with missing values, exact in every engine: a LightGBM trained with 10 %
NaN (splits ``threshold=inf`` that separate NaN, missing type NaN) and one trained with
``zero_as_missing=True`` (missing type Zero: zeros and NaN the default way), scored by the
engines' ports (``engine_ports``) on test rows with NaN, zeros, values at the split values
and +-1e-35, equal ``predict`` within float32 rounding with no query reordered; and the
canonical IR (``Forest.predict``) equals ``predict`` exactly."""
from __future__ import annotations

import json
import re

import engine_ports as ports
import numpy as np
import pytest
from _deploy_cases import Case, mq2008_fold1, nan_trained, synthetic  # noqa: F401 (fixtures)
from test_parity import TOL, assert_same_order

from rankselect.deploy import export_engine
from rankselect.deploy.trees import forest_of

PORTS = {"opensearch": ports.opensearch_scores, "solr": ports.solr_scores,
         "elasticsearch": ports.elasticsearch_scores, "vespa": ports.vespa_scores}
FLOAT32 = {"opensearch", "solr"}
KINDS = ("lightgbm", "lightgbm_zero")


def rows(case: Case, kind: str) -> np.ndarray:
    """The test rows, then copies with zeros, +-1e-35 and each column's split values."""
    model = case.models[kind]
    X = case.X_test
    rng = np.random.default_rng(7)
    df = model.booster_.trees_to_dataframe()
    df = df[df["split_feature"].notna()]
    names = model.booster_.feature_name()
    parts = [X]
    for special in (0.0, 1e-35, -1e-35, float(np.float32(1e-35)), -float(np.float32(1e-35))):
        Z = X.copy()
        Z[rng.random(X.shape) < 0.3] = special
        parts.append(Z)
    T = X.copy()
    for j, name in enumerate(names):
        values = df.loc[df["split_feature"] == name, "threshold"].to_numpy(dtype=np.float64)
        values = values[np.abs(values) < 1e38]  # (the split that sends every number left: inf)
        if values.size:
            hit = rng.random(len(T)) < 0.4
            T[hit, j] = rng.choice(values, hit.sum())
    parts.append(T)
    return np.vstack(parts)


def _refuse(constant):
    raise AssertionError(f"{constant} written")


def _strings(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            # Vespa's LightGBM format names the missing type "NaN"; Solr's defaultValue "NaN" is
            # the missing value of a non-match (non_match="missing"), not a model value
            if k not in ("missing_type", "defaultValue"):
                yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, str):
        yield obj


def assert_no_special_numbers(name: str, text: str) -> None:
    """No NaN / Infinity number in a file, nor a string number that reads as one (Solr's
    thresholds are strings; OpenSearch's definition is a JSON string)."""
    if name.endswith(".json"):
        data = json.loads(text, parse_constant=_refuse)
        for s in _strings(data):
            if s.lstrip().startswith("["):
                json.loads(s, parse_constant=_refuse)
            assert s.strip().lower() not in ("nan", "inf", "-inf", "infinity", "-infinity"), (name, s)
    elif name.endswith(".profile"):
        assert not re.search(r"(?<![\w.])(NaN|nan|Infinity|inf)(?![\w])", text), name


def test_the_data_has_what_the_issue_names(nan_trained):  # noqa: F811
    text = nan_trained.models["lightgbm"].booster_.model_to_string()
    assert "inf" in "".join(line for line in text.splitlines() if line.startswith("threshold="))
    zero = nan_trained.models["lightgbm_zero"].booster_.model_to_string()
    types = {int(d) >> 2 & 3 for line in zero.splitlines() if line.startswith("decision_type=")
             for d in line.split("=")[1].split()}
    assert 1 in types  # missing type Zero


@pytest.mark.parametrize("kind", KINDS)
def test_the_ir_is_lightgbms_own_test(nan_trained, kind):  # noqa: F811
    model = nan_trained.models[kind]
    X = rows(nan_trained, kind)
    np.testing.assert_array_equal(forest_of(model).predict(X), model.predict(X))


@pytest.mark.parametrize("engine", sorted(PORTS))
@pytest.mark.parametrize("kind", KINDS)
def test_nan_trained_lightgbm_in_every_engine(nan_trained, kind, engine):  # noqa: F811
    model = nan_trained.models[kind]
    out = export_engine(engine, nan_trained.selection, model, n_features=10, non_match="missing")
    for name, text in out.files.items():
        assert_no_special_numbers(name, text)
    X = rows(nan_trained, kind)
    qid = np.tile(nan_trained.qid_test, len(X) // len(nan_trained.qid_test))
    if engine in FLOAT32:
        X = X.astype(np.float32).astype(np.float64)
    ref = model.predict(X).astype(np.float64)
    got = PORTS[engine](out.files, X).astype(np.float64)
    tol = TOL[engine in FLOAT32] * np.maximum(1.0, np.abs(ref))
    assert np.all(np.abs(got - ref) <= tol), f"max difference {np.max(np.abs(got - ref)):.3g}"
    assert_same_order(got, ref, qid * 10 + np.repeat(np.arange(len(X) // len(qid)), len(qid)))


@pytest.mark.parametrize("engine", sorted(PORTS))
@pytest.mark.parametrize("kind", KINDS)
def test_a_non_match_goes_the_way_of_zero(nan_trained, kind, engine):  # noqa: F811
    model = nan_trained.models[kind]
    out = export_engine(engine, nan_trained.selection, model, n_features=10, non_match="zero")
    X = nan_trained.X_test
    if engine in FLOAT32:
        X = X.astype(np.float32).astype(np.float64)
    ref = model.predict(np.nan_to_num(X, nan=0.0))
    got = PORTS[engine](out.files, X).astype(np.float64)
    assert np.all(np.abs(got - ref) <= TOL[engine in FLOAT32] * np.maximum(1.0, np.abs(ref)))
    assert any("non_match='zero'" in n for n in out.notes)


def test_elasticsearch_extractors_score_a_non_match_zero(nan_trained):  # noqa: F811
    model = nan_trained.models["lightgbm"]
    for non_match, expected in (("zero", [0] * 6), ("missing", [None] * 6)):
        body = json.loads(export_engine("elasticsearch", nan_trained.selection, model, n_features=10,
                                        non_match=non_match).files["model.json"])
        got = [e["query_extractor"].get("default_score") for e in
               body["inference_config"]["learning_to_rank"]["feature_extractors"]]
        assert got == expected


def test_an_unknown_non_match_is_refused(nan_trained):  # noqa: F811
    with pytest.raises(ValueError, match="non_match must be one of 'zero', 'missing', got 'nan'"):
        export_engine("solr", nan_trained.selection, n_features=10, non_match="nan")


@pytest.mark.parametrize("case_name", ["synthetic", "mq2008_fold1"])
def test_xgboost_on_zero_for_no_match_data_with_non_matches_as_nan(case_name, request):
    """The issue's finding: an XGBoost trained where 0 means "no match" has a default_left
    unrelated to where 0 goes; OpenSearch LTR 3.2+ gives a non-match NaN. With
    ``non_match="zero"`` the plugin's own classes (the port) score the zeros, passed as NaN,
    exactly as ``predict`` scores them as zeros."""
    case = request.getfixturevalue(case_name)
    model = case.models["xgboost"]
    X = case.X_test.astype(np.float32).astype(np.float64)
    as_nan = np.where(X == 0.0, np.nan, X)
    ref = model.predict(X).astype(np.float64)
    zero = export_engine("opensearch", case.selection, model, non_match="zero")
    got = ports.opensearch_scores(zero.files, as_nan).astype(np.float64)
    np.testing.assert_array_equal(got, ref)
    own = export_engine("opensearch", case.selection, model, non_match="missing")
    assert own.files["createmodel.json"] != zero.files["createmodel.json"]  # the model's own NaN way differs


def test_solr_features_default_to_nan_when_a_non_match_is_missing(nan_trained):  # noqa: F811
    model = nan_trained.models["lightgbm"]
    templates = {6: "{!func}pagerank", 1: {"q": "title:${keywords}", "defaultValue": "-1"}}
    templates.update({j + 1: f"body:t{j}" for j in nan_trained.columns if j + 1 not in templates})
    for non_match in ("zero", "missing"):
        out = export_engine("solr", nan_trained.selection, model, n_features=10, non_match=non_match,
                            templates=templates)
        defaults = {f["name"]: f["params"].get("defaultValue") for f in json.loads(out.files["features.json"])}
        if non_match == "zero":
            assert set(defaults.values()) == {None, "-1"}
        else:
            assert defaults.pop("feature_1") == "-1" and set(defaults.values()) == {"NaN"}
    linear = export_engine("solr", nan_trained.selection, [1.0] * 6, n_features=10, non_match="missing")
    assert all("defaultValue" not in f["params"] for f in json.loads(linear.files["features.json"]))
