"""The report opened in a real browser: headless Chromium through Selenium, network off.

Checks: no console error, every panel present and drawn (Bokeh canvases with pixels, the
subset table's cells), and moving the k slider changes the subset table. Skips cleanly
where Selenium, Chromium or chromedriver is missing (CI installs them: ``.ci/run``)."""
from __future__ import annotations

import shutil

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no chromium / chromedriver installed")
pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import _report_fixtures as shared  # noqa: E402 (after the skips)

from rankselect.report import PANELS  # noqa: E402 (after the skips)


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


def _open(driver, path):
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(path.resolve().as_uri())
    WebDriverWait(driver, 30).until(lambda d: d.execute_script(
        "return window.Bokeh !== undefined && Bokeh.documents.length > 0 && "
        "Bokeh.index !== undefined && Object.keys(Bokeh.index).length >= arguments[0]", len(PANELS)))
    # drawing is asynchronous: wait until every plot panel has a drawn canvas
    WebDriverWait(driver, 30).until(lambda d: all(
        v["drawn"] > 0 or v["cells"] for k, v in d.execute_script(PANEL_STATE).items() if k != "panel-settings"))


def test_every_panel_drawn_without_console_error(driver, experiment_report):
    _open(driver, experiment_report)
    state = driver.execute_script(PANEL_STATE)
    assert sorted(state) == sorted([f"panel-{k}" for k in PANELS] + ["panel-settings"])
    for key in PANELS:
        if key != "subset":
            assert state[f"panel-{key}"]["drawn"] >= 1, key
    assert state["panel-subset"]["cells"], "the subset table has no cells"
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
    assert "one-standard-error subset" in driver.find_element("id", "one-se-summary").text
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
    snippet = driver.execute_script("return Bokeh.documents[0].get_model_by_name('snippet_json').text")
    assert '"n_features"' in snippet
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
