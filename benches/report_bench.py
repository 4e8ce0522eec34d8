"""The report of an experiment folder: build time, file size, first paint in headless Chromium.

    python benches/report_bench.py RUN_DIR [--rounds 3] [--layout letor4:stream] [--screenshot docs/figures/report.png]

RUN_DIR is the ``--out`` folder of ``rankselect experiment`` (issue 39's target: the five-fold
MQ2008 run of greedy RankRLS and GAS, their default grids). The anchor, measured in the same
run, is reading the experiment back (``load_experiment``: parsing and checking
``experiment.json``, whose size is printed): the build time is reported as a ratio to it and
in seconds. The page is then opened (file://, network off) in headless Chromium through
Selenium; the browser's Performance API gives ``first-contentful-paint`` and BokehJS's
``document idle`` (every plot drawn) is taken as the time the last panel is ready.
Medians over ``--rounds``; the page is written to a temporary folder.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from rankselect.data.datasets import feature_layout
from rankselect.report import load_experiment, write_report


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = shutil.which("chromium") or ""
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1200,1250"):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or ""), options=opts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--screenshot", help="save a PNG of the page's top here")
    ap.add_argument("--layout", help="the feature layout (names and groups), e.g. letor4:stream")
    args = ap.parse_args()
    extra = {}
    if args.layout:
        name, _, by = args.layout.partition(":")
        extra["feature_groups"] = feature_layout(name, by=by or "stream")
    out = Path(tempfile.mkdtemp()) / "report.html"
    anchor, build = [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        load_experiment(args.run_dir)
        t1 = time.perf_counter()
        write_report(args.run_dir, out, force=True, progress=False, **extra)
        t2 = time.perf_counter()
        anchor.append(t1 - t0)
        build.append(t2 - t1)
    a, b = statistics.median(anchor), statistics.median(build)
    size = (Path(args.run_dir) / "experiment.json").stat().st_size
    print(f"experiment.json {size / 1e6:.2f} MB; anchor load_experiment: {a:.3f} s; build: {b:.2f} s "
          f"({b / a:.0f}x the anchor); page {out.stat().st_size / 1e6:.2f} MB")
    from selenium.webdriver.support.ui import WebDriverWait

    fcp, ready = [], []
    for _ in range(args.rounds):
        d = browser()
        try:
            d.get(out.as_uri())
            WebDriverWait(d, 60).until(lambda d: d.execute_script(
                "return window.Bokeh !== undefined && Bokeh.documents.length > 0 && "
                "Bokeh.documents[0].is_idle === true"))
            fcp.append(d.execute_script(
                "return performance.getEntriesByName('first-contentful-paint')[0].startTime") / 1e3)
            ready.append(d.execute_script("return performance.now()") / 1e3)
            if args.screenshot:
                d.save_screenshot(args.screenshot)
        finally:
            d.quit()
    print(f"first contentful paint: {statistics.median(fcp):.2f} s; every panel drawn by "
          f"{statistics.median(ready):.2f} s (medians of {args.rounds})")


if __name__ == "__main__":
    main()
