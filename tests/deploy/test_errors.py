"""Bad input gets one clear line: what is wrong, and what to do."""
from __future__ import annotations

import json

import numpy as np
import pytest
from _deploy_cases import groups, synthetic, synthetic_data  # noqa: F401 (fixture)

import rankselect as rs
from rankselect.deploy import export_engine, load_model


def _train(case):
    X, y, qid = synthetic_data()
    train = qid < 40
    return X[train], y[train], qid[train]


def test_an_unknown_engine_lists_the_choices(synthetic):  # noqa: F811
    with pytest.raises(ValueError, match=r"unknown engine 'lucene': choose one of opensearch, solr, elasticsearch, "
                                         r"vespa, ranklib"):
        export_engine("lucene", synthetic.selection)


def test_features_without_a_template_are_all_listed(synthetic):  # noqa: F811
    first = synthetic.columns[0]
    missing = ", ".join(f"feature_{j + 1}" for j in synthetic.columns[1:])
    with pytest.raises(ValueError, match=f"no template for 5 selected feature\\(s\\): {missing} "):
        export_engine("opensearch", synthetic.selection, templates={first + 1: {"match_all": {}}})


def test_a_model_trained_on_other_columns_names_the_difference(synthetic):  # noqa: F811
    lgb = pytest.importorskip("lightgbm")
    X, y, qid = _train(synthetic)
    names = [f"c{j}" for j in range(10)]
    other = [j for j in range(10) if j not in synthetic.columns][:2] + synthetic.columns[2:]
    model = lgb.LGBMRanker(n_estimators=3, verbose=-1, min_child_samples=3).fit(
        X[:, other], y, group=groups(qid), feature_name=[names[j] for j in other])
    dropped = [names[j] for j in synthetic.columns[:2]]
    added = [names[j] for j in other[:2]]
    with pytest.raises(ValueError, match=rf"not the selection's: only in the model: {added!r}; only in the "
                                         rf"selection: {dropped!r}".replace("[", r"\[").replace("]", r"\]")):
        export_engine("solr", synthetic.selection, model, feature_names=names)


def test_a_model_on_all_columns_is_refused(synthetic):  # noqa: F811
    lgb = pytest.importorskip("lightgbm")
    X, y, qid = _train(synthetic)
    model = lgb.LGBMRanker(n_estimators=3, verbose=-1, min_child_samples=3).fit(X, y, group=groups(qid))
    with pytest.raises(ValueError, match=r"trained on 10 features, the selection has 6: train it on X\[:, columns\]"):
        export_engine("opensearch", synthetic.selection, model)


@pytest.mark.parametrize("model", [object(), "model.txt", {"a": 1}])
def test_an_unsupported_model_type(synthetic, model):  # noqa: F811
    with pytest.raises(TypeError, match="unsupported model type"):
        export_engine("opensearch", synthetic.selection, model)


def test_a_model_file_that_is_neither_library(tmp_path):
    p = tmp_path / "model.json"
    p.write_text(json.dumps({"weights": [1, 2]}))
    with pytest.raises(ValueError, match=r"model\.json' is neither a LightGBM model text file nor an XGBoost JSON"):
        load_model(p)
    with pytest.raises(ValueError, match="cannot read it"):
        load_model(tmp_path / "absent.txt")


def test_model_files_of_both_libraries_read_back(synthetic, tmp_path):  # noqa: F811
    lgb_model = synthetic.models["lightgbm"]
    lgb_model.booster_.save_model(tmp_path / "m.txt")
    back = load_model(tmp_path / "m.txt")
    assert export_engine("vespa", synthetic.selection, back).files == \
        export_engine("vespa", synthetic.selection, lgb_model).files
    xgb_model = synthetic.models["xgboost"]
    xgb_model.get_booster().save_model(tmp_path / "m.json")
    back = load_model(tmp_path / "m.json")
    assert export_engine("opensearch", synthetic.selection, back).files == \
        export_engine("opensearch", synthetic.selection, xgb_model).files


def test_what_no_engine_expresses_is_refused_not_approximated(synthetic):  # noqa: F811
    lgb = pytest.importorskip("lightgbm")
    X, y, qid = _train(synthetic)
    Xs = X[:, synthetic.columns].copy()
    Xs[:, 0] = np.arange(len(Xs)) % 4
    fit = dict(group=groups(qid))
    cat = lgb.LGBMRanker(n_estimators=5, verbose=-1, min_child_samples=3, min_data_per_group=2, cat_smooth=1)
    cat.fit(Xs, 2 * (Xs[:, 0] == 2) + (y > 1), categorical_feature=[0], **fit)  # a split on the category
    with pytest.raises(ValueError, match="categorical"):
        export_engine("opensearch", synthetic.selection, cat)
    linear = lgb.LGBMRanker(n_estimators=3, verbose=-1, min_child_samples=3, linear_tree=True).fit(Xs, y, **fit)
    with pytest.raises(ValueError, match=r"linear tree \(linear_tree=True\)"):
        export_engine("solr", synthetic.selection, linear)
    binary = lgb.LGBMRegressor(n_estimators=3, verbose=-1, objective="binary").fit(Xs, y > 1)
    with pytest.raises(ValueError, match="objective 'binary' transforms"):
        export_engine("vespa", synthetic.selection, binary)


def test_xgboost_models_no_engine_scores_are_refused(synthetic):  # noqa: F811
    xgb = pytest.importorskip("xgboost")
    X, y, qid = _train(synthetic)
    Xs = X[:, synthetic.columns]
    dart = xgb.XGBRanker(n_estimators=3, booster="dart").fit(Xs, y, qid=qid)
    with pytest.raises(ValueError, match="booster is 'dart'"):
        export_engine("opensearch", synthetic.selection, dart)
    zero = xgb.XGBRanker(n_estimators=3, missing=0.0).fit(Xs, y, qid=qid)
    with pytest.raises(ValueError, match=r"treats 0.0 as missing"):
        export_engine("solr", synthetic.selection, zero)
    logistic = xgb.XGBClassifier(n_estimators=3).fit(Xs, y > 1)
    with pytest.raises(ValueError, match="objective 'binary:logistic' transforms the margin"):
        export_engine("elasticsearch", synthetic.selection, logistic)


def test_engine_and_model_kinds_that_do_not_meet(synthetic):  # noqa: F811
    with pytest.raises(ValueError, match="learning_to_rank runs tree ensembles only"):
        export_engine("elasticsearch", synthetic.selection, synthetic.selection)
    with pytest.raises(ValueError, match="RankLib models are trained by RankLib"):
        export_engine("ranklib", synthetic.selection, synthetic.models["lightgbm"])


def test_linear_models_that_do_not_fit_the_selection(synthetic):  # noqa: F811
    sel = synthetic.selection
    full = np.zeros(10)
    outside = [j for j in range(10) if j not in synthetic.columns]
    full[outside[0]] = 1.0
    with pytest.raises(ValueError, match=f"weighs 1 feature\\(s\\) outside the selection: feature_{outside[0] + 1}"):
        export_engine("solr", sel, full)
    with pytest.raises(ValueError, match="has 7 weights: expected 6 \\(the selection\\) or 10 \\(the data\\)"):
        export_engine("solr", sel, np.ones(7))

    class WithIntercept:
        coef_ = np.ones(6)
        intercept_ = 0.25

    with pytest.raises(ValueError, match=r"has an intercept \(0.25\).*pass model.coef_"):
        export_engine("opensearch", sel, WithIntercept())
    svm = rs.RankSVM(kernel="nystroem", n_components=5, random_state=0)
    X, y, qid = _train(synthetic)
    svm.fit(X[:, synthetic.columns], y, qid=qid)
    with pytest.raises(TypeError, match="uses a kernel map"):
        export_engine("vespa", sel, svm)


@pytest.mark.parametrize("selection, message", [
    ([], "the selection is empty"), ([1, 1], "repeats a column"), ([3, 12], r"selected columns \[12\] lie outside"),
    ({"method": "gas"}, "no 'selected_features' list"), ("{not json", "not the JSON of 'rankselect select --json'"),
    ([0.5, 2.0], "1-D sequence of 0-based column indices")])
def test_bad_selections(selection, message):
    with pytest.raises((ValueError, TypeError), match=message):
        export_engine("opensearch", selection, n_features=10)


def test_bad_names():
    with pytest.raises(ValueError, match="name 'my model': a feature set / model name goes into URLs"):
        export_engine("opensearch", [0, 1], name="my model")
    with pytest.raises(ValueError, match=r"feature_names repeats \['x'\]"):
        export_engine("opensearch", [0, 1], feature_names=["x", "x", "y"])
    with pytest.raises(ValueError, match="feature_names has 2 names but the data has 3 features"):
        export_engine("opensearch", [0, 1], feature_names=["x", "y"], n_features=3)
