"""#47 item 5: nothing a stranger can run, nothing lost. One regression test per reproducer
(a)-(g): names in scripts and URLs, files replaced without --force, non-finite values,
n_features trusted, damaged model files, one-line errors."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from rankselect.deploy import export_engine, load_model
from rankselect.deploy.scripts import curl

SCRIPTED = ("opensearch", "solr", "elasticsearch")
NAMES = ["LMIR.JM (url)", "BM25 (title)", 'a:"b",{c}', "true"]


def _lightgbm_text(n_trees=3, names=None):
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    X, y = np.round(rng.random((200, 4)), 2), rng.integers(0, 3, 200)
    kw = {} if names is None else {"feature_name": names}
    model = lgb.LGBMRanker(n_estimators=n_trees, min_child_samples=5, verbose=-1).fit(X, y, group=[100, 100], **kw)
    return model.booster_.model_to_string()


def _booster(text):
    lgb = pytest.importorskip("lightgbm")
    return lgb.Booster(model_str=re.sub(r"tree_sizes=.*\n", "", text))


# (a) ------------------------------------------------------------------ names in scripts


@pytest.mark.parametrize("name", ["$(touch x)", "`touch x`", "a#b", "a?b", "a&b", "..", "../x", "a b", "-rf", "é",
                                  "x" * 65, "x" * 10_000])
@pytest.mark.parametrize("engine", ["opensearch", "solr", "elasticsearch", "vespa", "ranklib"])
def test_a_name_outside_the_safe_alphabet_is_refused(engine, name):
    with pytest.raises(ValueError, match=r"a feature set / model name goes into URLs, file names and shell scripts"):
        export_engine(engine, [0, 1], n_features=3, name=name)


def test_a_10kb_name_is_one_short_line():
    with pytest.raises(ValueError) as err:
        export_engine("vespa", [0, 1], n_features=3, name="x" * 10_000)
    assert "\n" not in str(err.value) and len(str(err.value)) < 300


@pytest.mark.skipif(sys.platform == "win32", reason="sh")
def test_a_hostile_url_segment_is_encoded_and_quoted_in_the_shell(tmp_path):
    line = curl("POST", "OPENSEARCH", ["_ltr", "_featureset", "$(touch x)`touch y`;#?&.."], "featureset.json")
    out = subprocess.run(["sh", "-c", f"CURL=echo; OPENSEARCH=http://h; {line}"], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[:3] == ["-X", "POST", "http://h/_ltr/_featureset/%24%28touch%20x%29%60touch%20y%60%3B%23%3F%26.."]
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.skipif(sys.platform == "win32", reason="sh")
@pytest.mark.parametrize("engine", SCRIPTED)
def test_load_sh_runs_curl_with_fail_the_user_options_and_the_encoded_urls(engine, tmp_path):
    """load.sh run by sh with a stand-in curl that records its arguments."""
    lgb = pytest.importorskip("lightgbm")
    model = lgb.Booster(model_str=_lightgbm_text(names=[s.replace(" ", "_") for s in ["a", "b", "c", "d"]]))
    out = export_engine(engine, [0, 1, 2, 3], model, feature_names=["a", "b", "c", "d"], name="my.set-1")
    out.write(tmp_path / "files")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "curl").write_text('#!/bin/sh\nfor a in "$@"; do printf "%s|" "$a"; done >> "$LOG"; echo >> "$LOG"\n'
                               'echo \'{"stores": {"_default_": {}}}\'\n')
    (fake / "curl").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}", LOG=str(tmp_path / "log"),
               RANKSELECT_CURL_OPTS="-u admin:secret --cacert ca.pem")
    subprocess.run(["sh", "load.sh"], cwd=tmp_path / "files", env=env, check=True, capture_output=True)
    calls = (tmp_path / "log").read_text().splitlines()
    assert calls and all(c.startswith("--fail|--silent|--show-error|-u|admin:secret|--cacert|ca.pem|") for c in calls)
    urls = [a for c in calls for a in c.split("|") if a.startswith("http")]
    expected = {"opensearch": ["http://localhost:9200/_ltr", "http://localhost:9200/_ltr/_featureset/my.set-1",
                               "http://localhost:9200/_ltr/_featureset/my.set-1/_createmodel"],
                "solr": ["http://localhost:8983/solr/COLLECTION/schema/feature-store",
                         "http://localhost:8983/solr/COLLECTION/schema/model-store"],
                "elasticsearch": ["http://localhost:9200/_ml/trained_models/my.set-1"]}[engine]
    assert urls == expected
    search = out.files.get("search.json")
    if search is not None:
        assert "match_all" not in search and "<keywords>" in json.dumps(json.loads(search)["query"])


def test_readme_and_features_txt_escape_names():
    names = ["a`b", "x\ny", "t\tz", "<script>"]
    out = export_engine("ranklib", [0, 1, 2, 3], n_features=4, feature_names=names)
    rows = out.files["features.txt"].splitlines()[1:]
    assert len(rows) == 4 and [json.loads(r.split("\t", 2)[2]) for r in rows] == names
    readme = out.files["README.md"]
    assert "1. ``a`b`` (feature 1" in readme and "2. `x\\ny` (feature 2" in readme and "\n3. `t\\tz`" in readme
    assert "--templates templates.json" in readme  # the skeleton's README shows a templates file


# (b) --------------------------------------------------------------- nothing replaced


def test_write_refuses_existing_files_and_lists_them(tmp_path):
    out = export_engine("solr", [0, 1], n_features=3)
    (tmp_path / "load.sh").write_text("mine")
    (tmp_path / "README.md").write_text("mine too")
    with pytest.raises(ValueError, match=r"holds 2 of the files already: README.md, load.sh; pass force=True"):
        out.write(tmp_path)
    assert (tmp_path / "load.sh").read_text() == "mine" and not (tmp_path / "features.json").exists()
    out.write(tmp_path, force=True)
    assert (tmp_path / "load.sh").read_text() == out.files["load.sh"]


# (d) --------------------------------------------------------------- non-finite values


@pytest.mark.parametrize("engine", ["opensearch", "solr", "elasticsearch", "vespa"])
@pytest.mark.parametrize("what", ["leaf_value", "threshold"])
def test_nan_leaves_and_thresholds_are_refused_naming_tree_and_node(engine, what):
    text = re.sub(rf"{what}=(\S+)", f"{what}=nan", _lightgbm_text(), count=1)
    with pytest.raises(ValueError, match=rf"lightgbm tree 0 node \d+: the "
                                         rf"{'leaf value' if what == 'leaf_value' else 'threshold'} is nan"):
        export_engine(engine, [0, 1, 2, 3], _booster(text))


@pytest.mark.parametrize("engine", ["elasticsearch", "vespa", "solr", "opensearch"])
def test_an_infinite_threshold_is_never_written(engine):
    text = re.sub(r"threshold=(\S+)", "threshold=inf", _lightgbm_text(), count=1)
    try:
        out = export_engine(engine, [0, 1, 2, 3], _booster(text))
    except ValueError as exc:  # refused with one line, or written finite (an exact export of it)
        assert "\n" not in str(exc) and ("non-finite" in str(exc) or "threshold" in str(exc))
        return
    def no_constant(c):
        raise AssertionError(f"{c} in a JSON file")

    for name, body in out.files.items():  # the notes of README.md may speak of NaN
        if name.endswith(".json"):
            json.loads(body, parse_constant=no_constant)
            assert not re.search(r"\"[-+]?(inf|nan)\"", body), name  # Vespa's "missing_type": "NaN" is a word


def test_the_last_check_names_the_file_and_the_path():
    from rankselect.deploy.finite import check_files
    with pytest.raises(ValueError, match=r"model.json: a non-finite number \(inf\) at trees\[1\]\.root\.threshold"):
        check_files({"model.json": json.dumps({"trees": [{"root": {"threshold": 1.0}}, {"root": {"threshold":
                                                                                                   float("inf")}}]})})
    with pytest.raises(ValueError, match=r"m.json: a non-finite number \('-Infinity'\) at params.trees\[0\]\.root"
                                         r"\.value"):
        check_files({"m.json": json.dumps({"params": {"trees": [{"root": {"value": "-Infinity"}}]}})})
    check_files({"m.json": json.dumps({"features": [{"name": "nan"}]})})  # a feature may be called nan
    check_files({"f.json": json.dumps([{"params": {"q": {"term": {"user": {"value": "nan"}}}}}])})  # a query


# (e) -------------------------------------------------------------- n_features bounded


def test_a_huge_n_features_builds_no_names():
    start = time.process_time()
    out = export_engine("opensearch", {"selected_features": [3, 5], "n_features": 10**12})
    assert out.feature_names == ["feature_3", "feature_5"]
    with pytest.raises(ValueError, match=r"the linear model has 10 weights: expected 2 \(the selection\) or "
                                         r"1000000000000 \(the data\)"):
        export_engine("solr", {"selected_features": [3, 5], "n_features": 10**12}, np.ones(10))
    assert time.process_time() - start < 5.0  # not a name per feature (10^12 would take hours)


# (f) ------------------------------------------------------------- damaged model files


def test_a_model_without_trees_is_refused(tmp_path):
    lgb = pytest.importorskip("lightgbm")
    booster = lgb.Booster(model_str=_lightgbm_text())
    empty = booster.model_to_string(num_iteration=0)
    text = empty[:empty.index("Tree=0")] + empty[empty.index("end of trees"):] if "Tree=0" in empty else empty
    path = tmp_path / "empty.txt"
    path.write_text(re.sub(r"tree_sizes=.*\n", "", text))
    with pytest.raises(ValueError, match="the model has no trees"):
        load_model(path)
    from rankselect.deploy.forest import ForestBuilder
    with pytest.raises(ValueError, match="the lightgbm model has no trees: it would score every document 0"):
        ForestBuilder("lightgbm").build(["a"], base_score=0.0, objective="lambdarank")


_FUZZ = textwrap.dedent("""
    import random, sys
    from rankselect.deploy import load_model
    text = open(sys.argv[1]).read()
    rng = random.Random(int(sys.argv[2]))
    refused = 0
    for k in range(90):
        i = rng.randrange(len(text))
        kind = k % 3
        if kind == 0:
            t = text[:i]
        elif kind == 1:
            t = text[:i] + rng.choice("x -9\\n=0.") + text[i + 1:]
        else:
            t = text[:i] + text[i + rng.randrange(1, 60):]
        open(sys.argv[3], "w").write(t)
        try:
            load_model(sys.argv[3]).predict([[0.5, 0.5, 0.5, 0.5]])
        except ValueError:
            refused += 1
    print("refused", refused)
""")


def test_damaged_lightgbm_files_are_refused_never_abort(tmp_path):
    """LightGBM's loader aborts the process (SIGABRT) or crashes on a cut or damaged file:
    load_model reads it first, so that every damage is a ValueError or a whole model."""
    src = tmp_path / "m.txt"
    src.write_text(_lightgbm_text(n_trees=3))
    for seed in (1,):
        done = subprocess.run([sys.executable, "-c", _FUZZ, str(src), str(seed), str(tmp_path / "d.txt")],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        counts = [int(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("refused ")]
        assert counts and counts[-1] > 10, done.stdout[-2000:]  # most damages are refused


def test_a_cut_lightgbm_file_is_one_line(tmp_path):
    text = _lightgbm_text()
    for cut, message in ((text.index("Tree=1") + 40, "(no 'end of trees'|the file is cut)"),
                         (len(text) - 30, None)):
        path = tmp_path / "cut.txt"
        path.write_text(text[:cut])
        if message is None:
            assert load_model(path).num_trees() == 3  # a cut after the trees: the trees are whole
        else:
            with pytest.raises(ValueError, match=message):
                load_model(path)


# (g) ------------------------------------------------------------------ one-line errors


def test_xgboost_json_without_its_keys_is_one_line(tmp_path):
    pytest.importorskip("xgboost")
    for body, message in (({"learner": {}}, "not a whole XGBoost JSON model"),
                          ({"learner": {"gradient_booster": {}}}, "not a whole XGBoost JSON model")):
        path = tmp_path / "m.json"
        path.write_text(json.dumps(body))
        with pytest.raises(ValueError, match=message):
            load_model(path)


def test_deeply_nested_json_is_one_line(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "m.json"
    path.write_text('{"learner": ' + deep + "}")
    with pytest.raises(ValueError, match="nests too deeply"):
        load_model(path)
    with pytest.raises(ValueError, match="nests too deeply"):
        export_engine("solr", '{"selected_features": ' + deep + "}")


def test_names_lightgbm_stores_differently_map_back_by_position():
    lgb = pytest.importorskip("lightgbm")
    from rankselect.deploy.names import lightgbm_names
    booster = lgb.Booster(model_str=_lightgbm_text(names=lightgbm_names(NAMES)))
    assert booster.feature_name()[0] == "LMIR.JM_(url)"
    out = export_engine("solr", [0, 1, 2, 3], booster, feature_names=NAMES)
    model = json.loads(out.files["model.json"])
    assert [f["name"] for f in model["features"]] == NAMES
    vespa = export_engine("vespa", [0, 1, 2, 3], booster, feature_names=NAMES)
    assert "function true_feature()" in vespa.files["rankselect.profile"]
    assert "function true()" not in vespa.files["rankselect.profile"]
    assert any("true -> true_feature" in n for n in vespa.notes)


def test_the_opensearch_readme_says_the_window_must_cover_the_hits():
    """Hits beyond the rescore window score query_weight (0) x their first score and are sorted
    with the re-ranked ones: the README of an OpenSearch export says to keep from + size within
    the window; Elasticsearch's native rescorer is not the query rescorer."""
    readme = export_engine("opensearch", [0, 1, 2], np.array([0.5, -1.0, 2.0])).files["README.md"]
    assert "Keep `from + size` at most `window_size`" in readme
    assert "from + size" not in export_engine("vespa", [0, 1, 2], np.array([0.5, -1.0, 2.0])).files["README.md"]
