"""``rankselect report EXPERIMENT_DIR [-o report.html] [--method M] [--data DATA_DIR] [--names FILE]``

Write one self-contained HTML page (no server, no network needed to open it) for the
output folder of ``rankselect experiment ... --out EXPERIMENT_DIR``: quality against the
number of features with the best and one-standard-error sizes, cost against quality,
per-query wins and losses against all features, redundancy, stability across the folds,
importance of the chosen features, and the chosen subset with a k slider and the JSON /
LightGBM snippets to hand it off. The redundancy and importance panels read the first fold
of the experiment's data (``--data`` when it moved). Needs the ``report`` extra
(``pip install "rankselect[report]"``). See ``rankselect.report.write_report`` for the
Python function (which also takes a fitted selector).
"""
from __future__ import annotations

import argparse
import sys

from .common import reading


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="write one self-contained HTML report of an experiment folder",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", metavar="EXPERIMENT_DIR", help="the --out folder of 'rankselect experiment'")
    p.add_argument("-o", "--out", default="report.html", metavar="FILE", help="the HTML file (default report.html)")
    p.add_argument("--method", help="the method whose subset the page hands off (default: best by validation)")
    p.add_argument("--data", metavar="DATA_DIR", help="the LETOR folds, when not where the experiment found them")
    p.add_argument("--names", metavar="FILE", help="feature names, one per line in column order")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..report import write_report

    names = None
    if args.names:
        with reading("--names", args.names), open(args.names, encoding="utf-8") as f:
            names = [line.strip() for line in f if line.strip()]
    path = write_report(args.experiment, args.out, method=args.method, data_dir=args.data, feature_names=names)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return 0
