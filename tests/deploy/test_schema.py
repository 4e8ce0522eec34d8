"""What the files say: the model's feature names are exactly the set's (no library default
name ``f<j>`` / ``Column_<j>`` left), thresholds and leaves are written so that a float32
reader gets them exactly, templates land where the engine reads them, and a model trained
under the set's names in another order is mapped by name."""
from __future__ import annotations

import json
import re

import engine_ports as ports
import numpy as np
import pytest
from _deploy_cases import groups, synthetic, synthetic_data  # noqa: F401 (fixture)

from rankselect.deploy import ENGINES, export_engine

NAMES = [f"feat{c}_score" for c in "abcdefghij"]  # the data's 10 columns
DEFAULT = re.compile(r"\b(f\d+|Column_\d+)\b")


def _split_names(engine: str, files: dict[str, str]) -> set[str]:
    """The feature names the model's splits refer to."""
    if engine == "opensearch":
        trees = json.loads(json.loads(files["createmodel.json"])["model"]["model"]["definition"])
        found: set[str] = set()
        stack = list(trees)
        while stack:
            d = stack.pop()
            if "split" in d:
                found.add(d["split"])
                stack += d["children"]
        return found
    if engine == "solr":
        model = json.loads(files["model.json"])
        return {f["name"] for f in model["features"]}
    if engine == "elasticsearch":
        ens = json.loads(files["model.json"])["definition"]["trained_model"]["ensemble"]
        return set(ens["feature_names"])
    model = json.loads(next(v for k, v in files.items() if k.startswith("models/")))
    return set(model["feature_names"])


@pytest.mark.parametrize("engine", ["opensearch", "solr", "elasticsearch", "vespa"])
@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_the_model_speaks_the_sets_names(synthetic, library, engine):  # noqa: F811
    out = export_engine(engine, synthetic.selection, synthetic.models[library], feature_names=NAMES)
    chosen = [NAMES[j] for j in synthetic.columns]
    assert out.feature_names == chosen
    assert _split_names(engine, out.files) <= set(chosen)
    for name, text in out.files.items():
        assert not DEFAULT.search(text), f"{name} keeps a library default name: {DEFAULT.search(text).group()}"


def test_the_feature_sets_list_the_selection_in_order(synthetic):  # noqa: F811
    chosen = [NAMES[j] for j in synthetic.columns]
    os_ = export_engine("opensearch", synthetic.selection, feature_names=NAMES)
    assert [f["name"] for f in json.loads(os_.files["featureset.json"])["featureset"]["features"]] == chosen
    solr = export_engine("solr", synthetic.selection, feature_names=NAMES)
    assert [f["name"] for f in json.loads(solr.files["features.json"])] == chosen
    es = export_engine("elasticsearch", synthetic.selection, feature_names=NAMES)
    body = json.loads(es.files["model.json"])
    assert [e["query_extractor"]["feature_name"] for e in body["inference_config"]["learning_to_rank"]
            ["feature_extractors"]] == chosen == body["input"]["field_names"]
    vespa = export_engine("vespa", synthetic.selection, feature_names=NAMES)
    assert re.findall(r"function (\w+)\(\)", vespa.files["rankselect.profile"]) == chosen
    for out in (os_, solr, es, vespa):
        assert any(n.startswith("skeleton") for n in out.notes) and "TODO" in "".join(out.files.values())


def _float32_exact(text) -> bool:
    v = float(text)
    return v == float(np.float32(v))


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_float32_engines_get_exact_float32_values(synthetic, library):  # noqa: F811
    model = synthetic.models[library]
    os_ = export_engine("opensearch", synthetic.selection, model)
    text = json.loads(os_.files["createmodel.json"])["model"]["model"]["definition"]
    numbers = re.findall(r'"(?:split_condition|leaf)":([-0-9.eE+]+)', text)
    assert numbers and all(_float32_exact(v) for v in numbers)
    solr = json.loads(export_engine("solr", synthetic.selection, model).files["model.json"])
    found = re.findall(r'"(?:threshold|value|std)": ?"([^"]+)"', json.dumps(solr))
    assert found and all(_float32_exact(v) for v in found)


def test_float64_engines_keep_lightgbms_own_thresholds(synthetic):  # noqa: F811
    model = synthetic.models["lightgbm"]
    df = model.booster_.trees_to_dataframe()
    own = set(df["threshold"].dropna())
    es = json.loads(export_engine("elasticsearch", synthetic.selection, model).files["model.json"])
    written = {n["threshold"] for t in es["definition"]["trained_model"]["ensemble"]["trained_models"]
               for n in t["tree"]["tree_structure"] if "threshold" in n}
    assert written == own  # lte with the float64 threshold itself
    vespa = export_engine("vespa", synthetic.selection, model).files["models/rankselect.json"]
    shifted = {float(v) for v in re.findall(r'"threshold":([-0-9.eE+]+)', vespa)}
    assert shifted == {float(np.nextafter(t, np.inf)) for t in own}  # Vespa tests x < t


def test_xgboost_base_score_is_the_models_own(synthetic):  # noqa: F811
    model = synthetic.models["xgboost"]
    base = float(np.float32(json.loads(model.get_booster().save_config())["learner"]["learner_model_param"]
                            ["base_score"].strip("[]")))
    trees = json.loads(json.loads(export_engine("opensearch", synthetic.selection, model).files["createmodel.json"])
                       ["model"]["model"]["definition"])
    if base != 0.0:
        assert trees[0] == {"nodeid": 0, "leaf": base}
    es = json.loads(export_engine("elasticsearch", synthetic.selection, model).files["model.json"])
    first = es["definition"]["trained_model"]["ensemble"]["trained_models"][0]["tree"]["tree_structure"]
    assert (first == [{"node_index": 0, "leaf_value": [base]}]) == (base != 0.0)
    assert all(abs(v - 0.5) > 1e-3 for v in (base,)), "eland's 0.5 is not this model's base score"


def test_a_model_trained_under_the_sets_names_in_another_order_is_mapped_by_name(synthetic):  # noqa: F811
    lgb = pytest.importorskip("lightgbm")
    X, y, qid = synthetic_data()
    train = qid < 40
    cols = synthetic.columns[::-1]  # the model's columns in reverse selection order
    model = lgb.LGBMRanker(n_estimators=20, min_child_samples=3, verbose=-1).fit(
        X[train][:, cols], y[train], group=groups(qid[train]), feature_name=[NAMES[j] for j in cols])
    out = export_engine("opensearch", synthetic.selection, model, feature_names=NAMES)
    x = synthetic.X_test.astype(np.float32).astype(np.float64)  # selection order
    ref = model.booster_.predict(x[:, ::-1])
    got = ports.opensearch_scores(out.files, x).astype(np.float64)
    assert np.all(np.abs(got - ref) <= 1e-6 * np.maximum(1, np.abs(ref)))


def test_templates_by_name_or_number_and_per_engine(synthetic):  # noqa: F811
    cols = synthetic.columns
    templates = {"opensearch": {NAMES[j]: {"match": {"f": "{{q}}"}} for j in cols},
                 "vespa": {j + 1: f"attribute(a{j})" for j in cols},
                 "solr": {str(j + 1): {"class": "org.apache.solr.ltr.feature.ValueFeature", "params": {"value": j}}
                          for j in cols}}
    os_ = export_engine("opensearch", synthetic.selection, templates=templates, feature_names=NAMES)
    feats = json.loads(os_.files["featureset.json"])["featureset"]["features"]
    assert all(f["template"] == {"match": {"f": "{{q}}"}} and f["params"] == ["q"] for f in feats)
    assert json.loads(os_.files["logging_query.json"])["query"]["bool"]["should"][0]["sltr"]["params"] == {"q": "<q>"}
    vespa = export_engine("vespa", synthetic.selection, templates=templates, feature_names=NAMES)
    assert f"expression: attribute(a{cols[0]})" in vespa.files["rankselect.profile"]
    solr = json.loads(export_engine("solr", synthetic.selection, templates=templates).files["features.json"])
    assert solr[0]["class"].endswith("ValueFeature") and solr[0]["params"] == {"value": cols[0]}
    assert not any(n.startswith("skeleton") for n in os_.notes + vespa.notes)


@pytest.mark.parametrize("engine", ENGINES)
def test_write_puts_every_file_under_the_folder(synthetic, engine, tmp_path):  # noqa: F811
    model = synthetic.selection if engine != "elasticsearch" else synthetic.models["lightgbm"]
    out = export_engine(engine, synthetic.selection, model)
    paths = out.write(tmp_path / "out")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in paths) == sorted(out.files)
    for p in paths:
        assert p.read_text(encoding="utf-8") == out.files[p.relative_to(tmp_path / "out").as_posix()]
    assert "README.md" in out.files and out.feature_names[0] in out.files["README.md"]
    for p in paths:
        if p.suffix == ".sh":
            assert p.stat().st_mode & 0o111


def test_vespa_splits_a_large_forest_so_that_it_stays_float64(synthetic, monkeypatch):  # noqa: F811
    from rankselect.deploy import vespa

    model = synthetic.models["lightgbm"]
    monkeypatch.setattr(vespa, "VMFOREST_LEAVES", 60)
    out = export_engine("vespa", synthetic.selection, model)
    files = sorted(k for k in out.files if k.startswith("models/"))
    assert len(files) > 2 and any("VMForest" in n for n in out.notes)
    for k in files:
        leaves = out.files[k].count('"leaf_value"')
        assert leaves <= 60
    x = synthetic.X_test
    assert np.allclose(ports.vespa_scores(out.files, x), model.predict(x), rtol=0, atol=1e-12)


def test_vespa_does_not_transform_a_margin_named_binary(synthetic):  # noqa: F811
    xgb = pytest.importorskip("xgboost")
    X, y, qid = synthetic_data()
    train = qid < 40
    model = xgb.XGBRegressor(n_estimators=10, objective="binary:logitraw").fit(X[train][:, synthetic.columns],
                                                                                y[train] > 1)
    out = export_engine("vespa", synthetic.selection, model)
    assert json.loads(out.files["models/rankselect.json"])["objective"] == "regression"
    x = synthetic.X_test
    ref = model.predict(x, output_margin=True).astype(np.float64)
    assert np.all(np.abs(ports.vespa_scores(out.files, x) - ref) <= 1e-5 * np.maximum(1, np.abs(ref)))


def test_vespa_reranks_in_second_phase_and_says_where_files_go(synthetic):  # noqa: F811
    out = export_engine("vespa", synthetic.selection, synthetic.models["lightgbm"])
    profile = out.files["rankselect.profile"]
    first = re.search(r"first-phase \{\s*expression: ([^\n]+)\n", profile).group(1)
    second = re.search(r"second-phase \{\s*rerank-count: (\d+)\s*expression: ([^\n]+)\n", profile)
    assert first == "nativeRank" and second.group(1) == "100" and second.group(2) == 'lightgbm("rankselect.json")'
    assert any("put rankselect.profile in schemas/<schema>/" in n and "'vespa deploy'" in n for n in out.notes)
    linear = export_engine("vespa", synthetic.selection, synthetic.selection.coef_path_[-1])
    assert "second-phase {" in linear.files["rankselect.profile"]
    assert "second-phase" not in export_engine("vespa", synthetic.selection).files["rankselect.profile"]


def test_solr_names_its_version_and_explains_the_normalisers(synthetic):  # noqa: F811
    out = export_engine("solr", synthetic.selection, synthetic.models["lightgbm"])
    readme = out.files["README.md"]
    assert "Solr 9.2 or later" in readme and "isNullSameAsZero" in readme
    assert "StandardNormalizer" in out.files["model.json"]  # the synthetic data's feature of values near 0
    assert "dividing the feature by a power of two is exact in float32" in readme
