"""read_engine_log: logs written in each engine's documented response shape come back as
exactly the logged matrix, labels and names; malformed input is one line naming the line and
the qid; rankselect log2letor writes them as a LETOR file."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import rankselect as rs
from rankselect.cli import main
from rankselect.data import read_engine_log, read_qrels

NAMES = ["title bm25", "LMIR.JM (url)", "pagerank", "true"]


def _case(seed=0, n_queries=6, per=5):
    """qid -> [(doc id, [value or None per feature], label or None)]: None values did not
    match, None labels are unjudged. Values are float32 (what the engines log)."""
    rng = np.random.default_rng(seed)
    out = {}
    for q in range(n_queries):
        docs = []
        for d in range(per):
            vals = [float(np.float32(rng.random() * 20)) if rng.random() > 0.2 else None for _ in NAMES]
            label = int(rng.integers(0, 3)) if rng.random() > 0.15 else None
            docs.append((f"doc-{q}-{d}", vals, label))
        out[f"{100 + q}"] = docs
    return out


def _qrels(case, path):
    with open(path, "w") as f:
        for q, docs in case.items():
            for doc, _, label in docs:
                if label is not None:
                    f.write(f"{q} 0 {doc} {label}\n")


def _expected(case, unjudged="drop", missing=math.nan, zero=False):
    X, y, qid = [], [], []
    for q, docs in case.items():
        for _, vals, label in docs:
            if label is None and unjudged == "drop":
                continue
            X.append([(0.0 if zero else missing) if v is None else v for v in vals])
            y.append(0.0 if label is None else float(label))
            qid.append(int(q))
    return np.array(X), np.array(y), np.array(qid)


def _opensearch(docs, under_fields=True):
    hits = []
    for doc, vals, _ in docs:
        entries = [{"name": s} if v is None else {"name": s, "value": v} for s, v in zip(NAMES, vals)]
        log = {"_ltrlog": [{"log_entry": entries}]}
        hit = {"_index": "tmdb", "_id": doc, "_score": 1.0}
        hit.update({"fields": log} if under_fields else log)
        hits.append(hit)
    return {"took": 3, "timed_out": False, "hits": {"total": {"value": len(hits), "relation": "eq"},
                                                    "max_score": 1.0, "hits": hits}}


def _solr(docs):
    return {"responseHeader": {"status": 0, "QTime": 2},
            "response": {"numFound": len(docs), "start": 0, "docs": [
                {"id": doc, "score": 1.0, "[features]": ",".join(f"{s}={0.0 if v is None else v!r}"
                                                                 for s, v in zip(NAMES, vals))}
                for doc, vals, _ in docs]}}


def _vespa(docs, key="matchfeatures"):
    children = []
    for doc, vals, _ in docs:
        feats = {s: 0.0 if v is None else v for s, v in zip(NAMES, vals)}  # Vespa computes every feature
        if key == "summaryfeatures":
            feats = {f"rankingExpression({s})": v for s, v in feats.items()}
            feats["vespa.summaryFeatures.cached"] = 0.0
        children.append({"id": f"id:ns:doc::{doc}", "relevance": 1.0, "source": "content",
                         "fields": {"sddocname": "doc", "documentid": f"id:ns:doc::{doc}", key: feats}})
    return {"root": {"id": "toplevel", "relevance": 1.0, "fields": {"totalCount": len(docs)}, "children": children}}


def _elasticsearch(docs):
    return {"took": 1, "hits": {"hits": [{"_index": "i", "_id": doc, "_score": 1.0,
                                          "matched_queries": {s: v for s, v in zip(NAMES, vals) if v is not None}}
                                         for doc, vals, _ in docs]}}


def _eland(docs):
    return {doc: [math.nan if v is None else v for v in vals] for doc, vals, _ in docs}


SHAPES = {"opensearch": _opensearch, "o19s": lambda d: _opensearch(d, under_fields=False), "solr": _solr,
          "vespa": _vespa, "vespa-summary": lambda d: _vespa(d, "summaryfeatures"),
          "elasticsearch": _elasticsearch, "eland": _eland}
ENGINE = {"o19s": "opensearch", "vespa-summary": "vespa", "eland": "elasticsearch"}


def _write(case, shape, path):
    with open(path, "w") as f:
        for q, docs in case.items():
            f.write(json.dumps({"qid": q, "response": SHAPES[shape](docs)}) + "\n")


@pytest.mark.parametrize("unjudged", ["drop", "zero"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_logged_matrix_labels_and_names_come_back_exactly(shape, unjudged, tmp_path):
    case = _case()
    _write(case, shape, tmp_path / "log.jsonl")
    _qrels(case, tmp_path / "qrels.txt")
    engine = ENGINE.get(shape, shape)
    names = NAMES if engine == "elasticsearch" else None
    data = read_engine_log(tmp_path / "log.jsonl", engine, tmp_path / "qrels.txt", unjudged=unjudged,
                           feature_names=names)
    X, y, qid = _expected(case, unjudged, zero=engine in ("solr", "vespa"))
    assert data.feature_names == NAMES
    np.testing.assert_array_equal(data.X, X)  # NaN where not matched, at the same places
    np.testing.assert_array_equal(data.y, y)
    np.testing.assert_array_equal(data.qid, qid)
    kept = [doc for docs in case.values() for doc, _, lab in docs if lab is not None or unjudged == "zero"]
    prefix = "id:ns:doc::" if engine == "vespa" else ""  # Vespa's full id; the qrels hold the user id
    assert data.comments == [f"docid = {prefix}{d}" for d in kept]


def test_vespa_functions_named_by_the_export_map_back_to_the_names(tmp_path):
    from rankselect.data.engine_responses import vespa_identifier
    case = _case(6)
    with open(tmp_path / "log.jsonl", "w") as f:
        for q, docs in case.items():
            response = _vespa(docs)
            for hit in response["root"]["children"]:
                feats = hit["fields"]["matchfeatures"]
                hit["fields"]["matchfeatures"] = {vespa_identifier(s): v for s, v in feats.items()}
            f.write(json.dumps({"qid": q, "response": response}) + "\n")
    _qrels(case, tmp_path / "qrels.txt")
    plain = read_engine_log(tmp_path / "log.jsonl", "vespa", tmp_path / "qrels.txt")
    assert plain.feature_names == ["title_bm25", "LMIR_JM__url_", "pagerank", "true_feature"]
    data = read_engine_log(tmp_path / "log.jsonl", "vespa", tmp_path / "qrels.txt", feature_names=NAMES)
    assert data.feature_names == NAMES
    np.testing.assert_array_equal(data.X, _expected(case, zero=True)[0])


def test_opensearch_extra_logging_and_unlogged_hits(tmp_path):
    """The plugin's extra_logging entry is not a feature; a hit the sltr query did not match
    has no log: every feature missing."""
    response = _opensearch([("a", [1.5, None, 2.0, 3.0], 1)])
    response["hits"]["hits"][0]["fields"]["_ltrlog"][0]["log_entry"].append(
        {"name": "extra_logging", "value": {"script": 1}})
    response["hits"]["hits"].append({"_id": "b", "_score": 0.0})
    (tmp_path / "log.jsonl").write_text(json.dumps({"qid": 1, "response": response}) + "\n")
    data = read_engine_log(tmp_path / "log.jsonl", "opensearch", {1: {"a": 2, "b": 0}}, missing=-1.0)
    assert data.feature_names == NAMES
    np.testing.assert_array_equal(data.X, [[1.5, -1.0, 2.0, 3.0], [-1.0, -1.0, -1.0, -1.0]])


def test_missing_fills_the_features_that_did_not_match(tmp_path):
    case = _case(1)
    _write(case, "opensearch", tmp_path / "log.jsonl")
    _qrels(case, tmp_path / "qrels.txt")
    data = read_engine_log(tmp_path / "log.jsonl", "opensearch", read_qrels(tmp_path / "qrels.txt"), missing=0.0)
    np.testing.assert_array_equal(data.X, _expected(case, missing=0.0)[0])


def test_string_qids_are_numbered_in_order(tmp_path):
    docs = _case(2, n_queries=1)["100"]
    with open(tmp_path / "log.jsonl", "w") as f:
        for q in ("q-b", "q-a"):
            f.write(json.dumps({"qid": q, "response": _solr(docs)}) + "\n")
    judged = {"q-b": {docs[0][0]: 1}, "q-a": {docs[1][0]: 2, docs[2][0]: 0}}
    data = read_engine_log(tmp_path / "log.jsonl", "solr", judged)
    assert data.qid.tolist() == [1, 2, 2] and data.y.tolist() == [1.0, 2.0, 0.0]
    assert data.comments[0] == f"docid = {docs[0][0]} qid = q-b"


@pytest.mark.parametrize("line, message", [
    ("not json", r"line 2: not JSON"),
    ('{"qid": 5}', r"line 2: not an object \{\"qid\": \.\.\., \"response\": \.\.\.\}"),
    ('{"qid": [1], "response": {}}', r"line 2: qid \[1\] is not a string or an integer"),
    ('{"qid": 100, "response": {"hits": {"hits": []}}}', r"line 2 \(qid 100\): the query is on line 1 already"),
    ('{"qid": 7, "response": {"took": 1}}', r"line 2 \(qid 7\): the response: no hits.hits"),
    ('{"qid": 7, "response": {"hits": {"hits": [{"_id": "a"}]}}}',
     r"line 2 \(qid 7\): no hit has fields._ltrlog \(was the query run with ext.ltr_log\?\)"),
    ('{"qid": 7, "response": {"hits": {"hits": [{"_id": "a", "fields": {"_ltrlog": [{"log_entry": '
     '[{"name": "x", "value": "high"}]}]}}]}}}', r"line 2 \(qid 7\): hit 0 \(_id 'a'\), feature 'x': the value "
                                                 r"'high' is not a number"),
    ('{"qid": 7, "response": {"hits": {"hits": [{"_id": "a", "fields": {"_ltrlog": [{"a": []}, {"b": []}]}}]}}}',
     r"holds the logs \['a', 'b'\]: give log_name"),
    ('{"qid": 7, "response": ' + "[" * 100_000 + "]" * 100_000 + "}", r"line 2: the JSON nests too deeply"),
])
def test_malformed_lines_name_the_line_and_the_qid(line, message, tmp_path):
    case = _case(3, n_queries=1)
    _write(case, "opensearch", tmp_path / "log.jsonl")
    with open(tmp_path / "log.jsonl", "a") as f:
        f.write(line + "\n")
    _qrels(case, tmp_path / "qrels.txt")
    with pytest.raises(ValueError, match=message):
        read_engine_log(tmp_path / "log.jsonl", "opensearch", tmp_path / "qrels.txt")


def test_other_refusals(tmp_path):
    case = _case(4, n_queries=1)
    _write(case, "solr", tmp_path / "log.jsonl")
    (tmp_path / "q.txt").write_text("100 0 x\n")
    with pytest.raises(ValueError, match=r"q.txt line 1: 3 columns, a qrels line has 4"):
        read_engine_log(tmp_path / "log.jsonl", "solr", tmp_path / "q.txt")
    (tmp_path / "q.txt").write_text("100 0 x 1\n100 0 x 2\n")
    with pytest.raises(ValueError, match=r"line 2: qid 100 document 'x' judged twice \(1 and 2\)"):
        read_qrels(tmp_path / "q.txt")
    (tmp_path / "q.txt").write_text("999 0 x 1\n")
    with pytest.raises(ValueError, match="no judged document in the log"):
        read_engine_log(tmp_path / "log.jsonl", "solr", tmp_path / "q.txt")
    with pytest.raises(ValueError, match="engine 'elasticsearch': give feature_names"):
        read_engine_log(tmp_path / "log.jsonl", "elasticsearch", tmp_path / "q.txt")
    with pytest.raises(ValueError, match="unknown engine 'lucene'"):
        read_engine_log(tmp_path / "log.jsonl", "lucene", tmp_path / "q.txt")
    with pytest.raises(ValueError, match="unjudged must be one of drop, zero"):
        read_engine_log(tmp_path / "log.jsonl", "solr", tmp_path / "q.txt", unjudged="keep")


def test_log2letor_writes_the_letor_file_and_the_names(tmp_path, capsys):
    case = _case(5)
    _write(case, "solr", tmp_path / "log.jsonl")
    _qrels(case, tmp_path / "qrels.txt")
    args = ["log2letor", tmp_path / "log.jsonl", "--engine", "solr", "--judgments", tmp_path / "qrels.txt",
            "--out", tmp_path / "train.txt", "--names-out", tmp_path / "names.txt"]
    assert main([str(a) for a in args]) == 0
    back = rs.load_letor(tmp_path / "train.txt", n_features=len(NAMES))
    X, y, qid = _expected(case, zero=True)
    np.testing.assert_array_equal(back.X, X)
    np.testing.assert_array_equal(back.y, y)
    assert (tmp_path / "names.txt").read_text().splitlines() == NAMES
    assert main([str(a) for a in args]) == 2  # exists: --force
    assert "exists; pass --force" in capsys.readouterr().err


def test_the_exported_elasticsearch_logging_query_names_each_feature(tmp_path):
    """The logging query of the Elasticsearch export (eland's shape: one named should
    clause per extractor) logs what read_engine_log reads: matched_queries by feature name."""
    templates = {s: {"match": {"title": "{{keywords}}"}} for s in NAMES}
    out = rs.export_engine("elasticsearch", [0, 1, 2, 3], feature_names=NAMES, templates=templates)
    body = json.loads(out.files["logging_query.json"])
    should = body["source"]["query"]["bool"]["should"]
    assert [c["bool"]["_name"] for c in should] == NAMES
    assert [c["bool"]["must"] for c in should] == [templates[s] for s in NAMES]
    model = json.loads(out.files["model.json"])
    assert model["input"]["field_names"] == NAMES  # the feature_names to give read_engine_log


def test_solr_names_with_commas_read_back_and_the_export_refuses_the_ambiguous_ones(tmp_path):
    """Solr logs ``name=value,name=value``: a name holding commas (no ``=`` before its last
    comma) reads back whole; a name that could not is refused by the Solr export."""
    from rankselect.data.engine_responses import documents

    names = ["tf(title,body)", ",lead", "bm25", "a b,c"]
    text = ",".join(f"{s}={float(i) + 0.5!r}" for i, s in enumerate(names))
    (doc, values), = documents("solr", {"response": {"docs": [{"id": "d1", "[features]": text}]}})
    assert doc == "d1" and values == {s: i + 0.5 for i, s in enumerate(names)}
    out = rs.export_engine("solr", [0, 1], [1.0, 2.0], feature_names=["tf(title,body)", "x"])
    assert json.loads(out.files["features.json"])[0]["name"] == "tf(title,body)"
    with pytest.raises(ValueError, match=r"Solr feature name 'a=b,c'.*cannot be read back") as e:
        rs.export_engine("solr", [0, 1], [1.0, 2.0], feature_names=["a=b,c", "x"])
    assert "\n" not in str(e.value)
