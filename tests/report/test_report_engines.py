"""The hand-off box offers each search engine's feature set for every k of the slider (issue 41):
the text of each k and engine is exactly the file :func:`rankselect.export_engine` writes for that
subset (a skeleton: no templates, no model), under the page's feature names; the page sends the
texts as a table of lines, small (the browser side: test_report_browser.py); the page's title
names the data set by its folder, not by the machine's path."""
from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import _report_fixtures as shared  # noqa: E402 (after the skips)

import rankselect as rs  # noqa: E402
from rankselect.report import HANDOFF_FORMATS, Selection, build_report, load_experiment  # noqa: E402
from rankselect.report._experiment import folder_name  # noqa: E402
from rankselect.report._fig_subset import decode, encode, subset  # noqa: E402
from rankselect.report._handoff import ENGINE_FILES, MENUS  # noqa: E402

#: names as a layout gives them: spaces, brackets, dots (Vespa identifiers differ from them)
NAMES = [f"LMIR.JM (title) {j}" if j % 2 else f"BM25 (body) #{j}" for j in range(22)]


@pytest.fixture(scope="module")
def splits():
    return tuple(rs.data.datasets.load_example(s) for s in ("train", "vali"))


def _encoded(panel):
    """(lines, k -> format -> line ids, the engine menu) of the subset panel's callbacks."""
    menu = panel.select_one({"name": "menu_engine"})
    cb = menu.js_property_callbacks["change:value"][0]
    return cb.args["lines"], cb.args["snippets"], menu


def _engine_file(engine: str, cols, names, n: int) -> str:
    return rs.export_engine(engine, list(cols), feature_names=names, n_features=n).files[ENGINE_FILES[engine][0]]


@pytest.mark.parametrize("named", [True, False])
def test_every_k_offers_every_engines_file_as_export_engine_writes_it(splits, named):
    train, vali = splits
    sel = rs.GreedyRankRLS(n_features_to_select=8).fit(*train)
    d = build_report(sel, train=train, vali=vali, n_resamples=0, progress=False,
                     feature_names=NAMES if named else None)
    panel = subset(d)
    lines, ids, menu = _encoded(panel)
    assert [v for v, _ in menu.options] == list(ENGINE_FILES) == ["opensearch", "solr", "elasticsearch", "vespa"]
    assert menu.title == MENUS["engine"] and menu.value == "opensearch"
    assert sorted(int(k) for k in ids) == sorted(d.subsets)
    names = NAMES if named else None
    for k, by in ids.items():
        cols = d.subsets[int(k)]
        for engine in ENGINE_FILES:
            text = decode(lines, by[engine])
            assert text == _engine_file(engine, cols, names, 22), (k, engine)
            chosen = [NAMES[j] if named else f"feature_{j + 1}" for j in cols]
            assert all(s in text or engine == "vespa" for s in chosen)
        opensearch = json.loads(decode(lines, by["opensearch"]))["featureset"]["features"]
        assert [f["name"] for f in opensearch] == chosen
        assert [f["name"] for f in json.loads(decode(lines, by["solr"]))] == chosen
        model = json.loads(decode(lines, by["elasticsearch"]))
        assert model["input"]["field_names"] == chosen
        # the other formats go through the same table of lines, unchanged
        for h in HANDOFF_FORMATS:
            sel_k = Selection(cols, 22, names, None)
            assert decode(lines, by[h.key]) == h.render(sel_k), (k, h.key)
    # the box opens at the page's k, on the first engine
    box = panel.select_one({"name": "snippet_engine"})
    assert box.text == _engine_file("opensearch", d.subsets[d.default_k], names, 22)


def test_a_format_that_refuses_the_subset_says_why_in_its_box(splits):
    """Names that collide as Vespa identifiers (and as LightGBM names): export_engine refuses,
    the page still builds and the box says so; the other engines take the names as they are."""
    train, vali = splits
    sel = rs.GreedyRankRLS(n_features_to_select=4).fit(*train)
    names = [f"f {j}" for j in range(22)]
    names[sel.selected_features_[1]] = names[sel.selected_features_[0]].replace(" ", "_")
    d = build_report(sel, train=train, vali=vali, n_resamples=0, progress=False, feature_names=names)
    lines, ids, _ = _encoded(subset(d))
    k = str(max(d.subsets))
    with pytest.raises(ValueError, match="collide"):
        _engine_file("vespa", d.subsets[int(k)], names, 22)
    vespa, lightgbm = (decode(lines, ids[k][f]) for f in ("vespa", "lightgbm"))
    assert vespa.startswith("cannot write the vespa hand-off of this subset:")
    assert "collide as Vespa identifiers" in vespa and "f_" in vespa
    assert lightgbm.startswith("cannot write the lightgbm hand-off of this subset:")
    assert decode(lines, ids[k]["solr"]) == _engine_file("solr", d.subsets[int(k)], names, 22)


def test_the_texts_are_sent_as_lines_once():
    """A path of 40 sizes of 46 features, four engines' files: each line is sent once and the
    texts as line numbers (the five-fold MQ2008 page must stay under 5 MB)."""
    cols = [(7 * j + 3) % 46 for j in range(40)]
    names = [f"feature name {j} (stream)" for j in range(46)]
    texts = {str(k): {e: _engine_file(e, cols[:k], names, 46) for e in ENGINE_FILES} for k in range(1, 41)}
    lines, ids = encode(texts)
    raw = len(json.dumps(texts))
    sent = len(json.dumps(lines)) + len(json.dumps(ids, separators=(",", ":")))
    assert all(decode(lines, ids[k][e]) == t for k, by in texts.items() for e, t in by.items())
    assert sent < raw / 4, (sent, raw)


def test_folder_name():
    assert folder_name("/work/shared/data/MQ2008") == "MQ2008"
    assert folder_name("/work/shared/data/MQ2008/") == "MQ2008"
    assert folder_name("../data/OHSUMED") == "OHSUMED"
    assert folder_name("C:\\letor\\MQ2007") == "MQ2007"
    assert folder_name("MQ2008") == "MQ2008"
    for nameless in (".", "./", "..", "/", "", "C:\\"):
        assert folder_name(nameless) == "", nameless


def test_the_title_names_the_data_set_not_the_machines_path(tmp_path_factory, tmp_path):
    folder = shared.experiment_folder(tmp_path_factory)
    res = load_experiment(folder)
    d = build_report(folder, progress=False)
    data = res.data_dir.rstrip("/").rsplit("/", 1)[-1]
    assert d.title == f"Feature selection on {data}"
    assert d.source == f"experiment folder {folder.name}"
    for text in (d.title, d.source):
        assert "/" not in text and str(tmp_path_factory.getbasetemp()) not in text
    # the settings table keeps the full paths
    assert d.settings["data"] == res.data_dir and d.settings["experiment folder"] == str(folder.resolve())
    # an experiment written with a data folder "." is named by the folder found
    copy = tmp_path / "run"
    shutil.copytree(folder, copy)
    text = (copy / "experiment.json").read_text()
    (copy / "experiment.json").write_text(text.replace(json.dumps(res.data_dir), json.dumps("."), 1))
    d = build_report(copy, data_dir=res.data_dir, progress=False)
    assert d.title == f"Feature selection on {data}"
    assert build_report(copy, progress=False).title == "Feature selection"  # no folder found: no name
