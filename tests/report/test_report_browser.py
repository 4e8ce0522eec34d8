"""The report opened in a real browser: headless Chromium through Selenium, network off.

Checks: no console error, every panel present and drawn (Bokeh canvases with pixels, the
subset table's cells), moving the k slider changes the subset table, the decision element
parses and says what the summary sentence says, and hostile feature, group and title strings
run nothing. Skips cleanly where Selenium, Chromium or chromedriver is missing (CI installs
them: ``.ci/run``)."""
from __future__ import annotations

import shutil

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no chromium / chromedriver installed")
pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import json  # noqa: E402

import _report_fixtures as shared  # noqa: E402 (after the skips)
import numpy as np  # noqa: E402

import rankselect as rs  # noqa: E402
from _cascade_data import interaction  # noqa: E402
from rankselect.report import PANELS, build_report, write_report  # noqa: E402 (after the skips)


@pytest.fixture(scope="session")
def experiment_dir(tmp_path_factory):
    return shared.experiment_folder(tmp_path_factory)


@pytest.fixture(scope="session")
def experiment_report(tmp_path_factory):
    return shared.report_page(tmp_path_factory)

#: JavaScript: every element matching a selector, looking inside Bokeh's shadow roots
DEEP_QUERY = """
function deep(root, sel) {
  let out = Array.from(root.querySelectorAll(sel));
  for (const el of root.querySelectorAll('*')) { if (el.shadowRoot) out = out.concat(deep(el.shadowRoot, sel)); }
  return out;
}
"""

#: per panel: its canvases with at least one non-blank pixel, and the table's cells
PANEL_STATE = DEEP_QUERY + """
const out = {};
for (const sec of document.querySelectorAll('section.panel')) {
  let drawn = 0;
  for (const c of deep(sec, 'canvas')) {
    if (!c.width || !c.height) continue;
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < px.length; i += 4 * 97) { if (px[i] !== 0) { drawn += 1; break; } }
  }
  out[sec.id] = {drawn: drawn, cells: deep(sec, '.slick-cell').map(e => e.textContent)};
}
return out;
"""


@pytest.fixture(scope="module")
def driver():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1200,900"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    yield d
    d.quit()


def _open(driver, path, notes=()):
    """Open the page and wait until every plot panel is drawn (``notes``: panels that show a
    note instead, e.g. "panel-stability" without refits)."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(path.resolve().as_uri())
    n = driver.execute_script("return document.querySelectorAll('section.panel').length") - 1  # not the settings
    WebDriverWait(driver, 30).until(lambda d: d.execute_script(
        "return window.Bokeh !== undefined && Bokeh.documents.length > 0 && "
        "Bokeh.index !== undefined && Object.keys(Bokeh.index).length >= arguments[0]", n))
    # drawing is asynchronous: wait until every plot panel has a drawn canvas
    WebDriverWait(driver, 30).until(lambda d: all(
        v["drawn"] > 0 or v["cells"] for k, v in d.execute_script(PANEL_STATE).items()
        if k != "panel-settings" and k not in notes))


def test_every_panel_drawn_without_console_error(driver, experiment_report):
    _open(driver, experiment_report)
    state = driver.execute_script(PANEL_STATE)
    # the fixture has no feature groups, and is no CascadeSelection (the "cascade" panel)
    shown = [k for k in PANELS if not k.startswith("groups-") and k != "cascade"]
    assert sorted(state) == sorted([f"panel-{k}" for k in shown] + ["panel-settings"])
    for key in shown:
        if key != "subset":
            assert state[f"panel-{key}"]["drawn"] >= 1, key
    assert state["panel-subset"]["cells"], "the subset table has no cells"
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
    assert "one-standard-error" in driver.find_element("id", "decision-summary").text
    # nothing wider than the window (a one-line LightGBM column list once widened the page
    # to 1511 px in a 1200 px window)
    width, client = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width <= client, (width, client)


def test_k_slider_changes_the_subset_table(driver, experiment_report):
    _open(driver, experiment_report)
    before = driver.execute_script(PANEL_STATE)["panel-subset"]["cells"]
    start = driver.execute_script("return Bokeh.documents[0].get_model_by_name('k_slider').value")
    new = driver.execute_script("""
        const s = Bokeh.documents[0].get_model_by_name('k_slider');
        s.value = s.value > s.start ? s.start : s.end; return s.value;""")
    assert new != start
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 10).until(lambda d: d.execute_script(PANEL_STATE)["panel-subset"]["cells"] != before)
    after = driver.execute_script(PANEL_STATE)["panel-subset"]["cells"]
    rows = driver.execute_script("return Bokeh.documents[0].get_model_by_name('subset_table').source.data.index.length")
    assert rows == len(after) // 4 == new  # the example's subsets grow by one feature per k
    assert after != before
    # the table is as tall as its rows (a 600 px blank under a short table before)
    height = driver.execute_script("return Bokeh.documents[0].get_model_by_name('subset_table').height")
    assert height == min(30 + 26 * new, 520)
    snippet = driver.execute_script("return Bokeh.documents[0].get_model_by_name('snippet_json').text")
    assert '"n_features"' in snippet
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_decision_element_matches_the_summary(driver, experiment_report):
    """A pipeline reads the page's decision; it says what the sentence at the top says."""
    _open(driver, experiment_report)
    d = json.loads(driver.execute_script("return document.getElementById('rankselect-decision').textContent"))
    for key in ("method", "rule", "interval", "reference", "best_size", "chosen_size", "features", "feature_names"):
        assert key in d, key
    assert (d["rule"], d["interval"], d["reference"]) == ("one-standard-error", "queries", "all features")
    sentence = driver.find_element("id", "decision-sentence").text
    noun = "feature" if d["chosen_size"] == 1 else "features"
    assert f"Keep {d['chosen_size']} {noun} of {d['method']}" in sentence
    assert f"the best size is {d['best_size']}" in sentence
    listed = sentence.rsplit(":", 1)[1]
    assert [f"#{j + 1}" for j in d["features"]] == [part.strip(" .").split()[-1] for part in listed.split(",")]
    table = driver.execute_script("return Bokeh.documents[0].get_model_by_name('subset_table').source.data.column")
    assert list(table) == d["features"]  # the hand-off table opens at the decision


HOSTILE = ['<img src=x onerror="window.__pwned=1">', "<svg onload=window.__pwned=2>",
           "</script><script>window.__pwned=3</script>", '"><iframe srcdoc="<script>parent.__pwned=4</script>">',
           "<b onmouseover=window.__pwned=5>bold</b>", "{{7*7}} & <style>body{display:none}</style>"]

#: elements a hostile string would create, looked for in the page and in Bokeh's shadow roots
INJECTED = DEEP_QUERY + """
return deep(document, 'img[src="x"], iframe, svg[onload], b[onmouseover], style').filter(
    e => !(e.tagName === 'STYLE' && (e.closest('head') || e.getRootNode() !== document))).length;
"""


def test_hostile_names_run_nothing(driver, tmp_path):
    """Feature names, group names and the title from the user: shown as text, never run
    (names like these ran through the redundancy panel's HTML before issue 40)."""
    train, vali, test = (rs.data.datasets.load_example(s) for s in ("train", "vali", "test"))
    n = train.X.shape[1]
    names = [f"{HOSTILE[j % len(HOSTILE)]} {j}" for j in range(n)]
    groups = [HOSTILE[j % 3] for j in range(n)]
    sel = rs.GreedyRankRLS(n_features_to_select=6).fit(*train)
    options = dict(train=train, vali=vali, test=test, feature_names=names, feature_groups=groups, n_resamples=2,
                   feature_costs=np.ones(n), progress=False, title=HOSTILE[0] + HOSTILE[2])
    page = write_report(sel, tmp_path / "hostile.html", **options)
    d = build_report(sel, **options)
    assert d.redundancy is not None and d.redundancy.clusters  # the panel that ran them has names to show
    _open(driver, page)
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script(INJECTED) == 0
    text = driver.find_element("id", "panel-redundancy").text + driver.find_element("tag name", "h1").text
    assert "<img src=x" in text or "<svg onload" in text  # shown as text
    decision = json.loads(driver.execute_script("return document.getElementById('rankselect-decision').textContent"))
    assert decision["feature_names"] == [names[j] for j in decision["features"]]
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_hostile_method_names_from_a_file_run_nothing(driver, experiment_dir, tmp_path):
    """An experiment.json is data from elsewhere: its method labels reach the legend, the
    slider, the tables and the summary, as text."""
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(experiment_dir, folder)
    text = (folder / "experiment.json").read_text()
    for i, m in enumerate(("greedy-rankrls", "gas")):
        text = text.replace(f'"{m}"', json.dumps(f"{m} {HOSTILE[i]}"))
    (folder / "experiment.json").write_text(text)
    page = write_report(folder, tmp_path / "hostile.html", progress=False)
    _open(driver, page)
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script(INJECTED) == 0
    assert HOSTILE[0] in driver.find_element("id", "decision-sentence").text
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


#: JavaScript: click the Bokeh button whose text is arguments[0] (inside its shadow root)
CLICK = DEEP_QUERY + """
const b = deep(document, 'button').filter(e => e.textContent.trim() === arguments[0]);
b[0].click(); return b.length;
"""


def test_engine_menu_and_slider_choose_the_feature_set_to_copy(driver, tmp_path):
    """The hand-off box offers each search engine's feature set (issue 41): moving the slider
    and choosing an engine changes the text, which is the file ``export_engine`` writes for
    that subset under the page's names; the copy button copies it; the box scrolls within its
    height and the page fits the window."""
    from selenium.webdriver.support.ui import WebDriverWait

    from rankselect.report._fig_subset import BOX_HEIGHT
    from rankselect.report._handoff import ENGINE_FILES

    train, vali = (rs.data.datasets.load_example(s) for s in ("train", "vali"))
    names = [f"BM25 (body) #{j}" if j % 2 else f"LMIR.JM (title) {j}" for j in range(train.X.shape[1])]
    sel = rs.GreedyRankRLS(n_features_to_select=6).fit(*train)
    options = dict(train=train, vali=vali, feature_names=names, n_resamples=2, progress=False)
    d = build_report(sel, **options)
    page = write_report(d, tmp_path / "engines.html")
    _open(driver, page)
    menu = driver.execute_script("const m = Bokeh.documents[0].get_model_by_name('menu_engine');"
                                 "return [m.value, m.options.map(o => o[0])];")
    assert menu == ["opensearch", list(ENGINE_FILES)]
    driver.execute_script("window.__copied = null; navigator.clipboard.writeText = "
                          "(t) => { window.__copied = t; return Promise.resolve(); };")
    seen = {}
    ks = (min(d.subsets), max(d.subsets), d.default_k)
    for k in ks:
        for engine in ENGINE_FILES:
            driver.execute_script("const doc = Bokeh.documents[0];"
                                  "doc.get_model_by_name('k_slider').value = arguments[0];"
                                  "doc.get_model_by_name('menu_engine').value = arguments[1];", k, engine)
            want = rs.export_engine(engine, d.subsets[k], feature_names=names,
                                    n_features=len(names)).files[ENGINE_FILES[engine][0]]
            WebDriverWait(driver, 10).until(lambda dr: dr.execute_script(
                "return Bokeh.documents[0].get_model_by_name('snippet_engine').text") == want)  # noqa: B023
            seen[k, engine] = want
            assert driver.execute_script(CLICK, "copy the chosen file") == 1
            WebDriverWait(driver, 10).until(lambda dr: dr.execute_script("return window.__copied") == want)  # noqa: B023
    assert len(set(seen.values())) == len(set(ks)) * len(ENGINE_FILES)  # every k and engine a text of its own
    assert all(f'"{names[j]}"' in seen[k, "solr"] for k in ks for j in d.subsets[k])  # the page's names
    # the box scrolls within its height; nothing is wider than the window
    height = driver.execute_script(DEEP_QUERY + """
        const pre = deep(document, 'pre').filter(e => e.textContent.startsWith('rank-profile'));
        return pre.length === 1 ? pre[0].getBoundingClientRect().height : -1;""")
    assert 0 < height <= BOX_HEIGHT + 12  # the border and padding
    width, client = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width <= client, (width, client)
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_cascade_page_drawn_and_hostile_names_run_nothing(driver, tmp_path):
    """The report of a CascadeSelection (#48, a LightGBM phase 2 where it is kept): the
    "Ranking phases" panel is drawn with the others, its verdict says the decision; hostile
    feature names and title are shown as text, never run."""
    pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)

    def data(n_q):
        return interaction(rng, n_q)

    train, vali = data(60), data(30)
    names = [f"{HOSTILE[j]} {j}" for j in range(5)]
    cs = rs.CascadeSelection(feature_costs=np.array([1.0, 10.0, 10.0, 1.0, 1.0]), windows=(10,),
                             phase2_ranker="lightgbm").fit(*train, eval_set=vali)
    assert cs.choice_["decision"] == "cascade" and cs.phases_[1].ranker == "lightgbm"
    page = write_report(cs, tmp_path / "cascade.html", train=train, vali=vali, feature_names=names, n_resamples=0,
                        progress=False, title=HOSTILE[2])
    _open(driver, page, notes=("panel-stability",))  # no refits (n_resamples=0): a note
    state = driver.execute_script(PANEL_STATE)
    assert "panel-cascade" in state and state["panel-cascade"]["drawn"] >= 1
    assert all(v["drawn"] >= 1 or v["cells"] for k, v in state.items()
               if k not in ("panel-settings", "panel-stability")), state
    verdict = driver.find_element("id", "panel-cascade").text
    assert "Cascade (rule 1se)" in verdict and "LightGBM" in verdict
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script(INJECTED) == 0
    assert HOSTILE[2] in driver.find_element("tag name", "h1").text
    decision = json.loads(driver.execute_script("return document.getElementById('rankselect-decision').textContent"))
    assert [p["ranker"] for p in decision["cascade"]["phases"]] == ["linear", "lightgbm"]
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
