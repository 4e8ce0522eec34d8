"""
A report to decide from
=======================

:func:`rankselect.report.write_report` writes one self-contained HTML page for a selection
run (``rankselect report RUN_DIR -o report.html`` does it for an experiment folder). Here
it reports a greedy RankRLS selection on the shipped example, with made-up feature costs
and two feature families. The image below is a screenshot, in headless Chromium, of the page
of the five-fold MQ2008 experiment of greedy RankRLS and GAS (``rankselect report RUN
--layout letor4:stream``; ``benches/report_bench.py RUN --screenshot``): its top, the decision
and the quality panel with its paired bands. Open a page in a browser to hover, hide methods
and move the k slider.
"""

import tempfile
from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np

import rankselect as rs
from rankselect.report import build_report, decision, write_report

train, vali, test = (rs.data.datasets.load_example(s) for s in ("train", "vali", "test"))
costs = np.random.default_rng(0).uniform(0.1, 3.0, train.n_features)
families = ["text"] * 11 + ["link"] * (train.n_features - 11)
selector = rs.GreedyRankRLS(n_features_to_select=8).fit(*train)
options = dict(train=train, vali=vali, test=test, feature_costs=costs, feature_groups=families)

data = build_report(selector, **options, progress=False)
chosen = decision(data)  # what the page recommends, as data (also in the page, and `report --json`)
print(f"keep {chosen['chosen_size']} features of {chosen['method']} ({chosen['rule']} size, best size "
      f"{chosen['best_size']}): columns {chosen['features']}, groups {chosen['groups']}")
page = write_report(data, Path(tempfile.mkdtemp()) / "report.html")
print(f"{page.name}: {page.stat().st_size / 1e6:.1f} MB, one file, no network needed")

# the screenshot (docs/figures/report.png, taken with headless Chromium)
here = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
shot = mpimg.imread(here.parent / "figures" / "report.png")
fig, ax = plt.subplots(figsize=(10, 10 * shot.shape[0] / shot.shape[1]), layout="constrained")
ax.imshow(shot)
ax.set_axis_off()
plt.show()
