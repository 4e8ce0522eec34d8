"""``rankselect redundancy FILE [--similarity spearman] [--threshold 0.95] [--plot out.png] [--json]``

Clusters of near-duplicate features of a LETOR file (``rankselect.redundancy_report``):
the features are clustered on ``1 - similarity`` and cut at the threshold (complete
linkage: every pair in a cluster at least that similar). Prints each cluster with the
feature to keep (the most important by ``--importance``); features are numbered as in the
file (1-based). ``--plot`` saves a dendrogram over the clustered heat map (needs
matplotlib: ``pip install "rankselect[plot]"``).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import plotting
from ..analysis.redundancy import redundancy_report
from ..data import load_letor
from .common import refuse_existing


def add_parser(sub) -> None:
    p = sub.add_parser(
        "redundancy",
        help="clusters of near-duplicate features (and a clustered heat map)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("train", metavar="FILE", help="LETOR/SVMlight file (.gz ok)")
    p.add_argument("--similarity", default="spearman", choices=["spearman", "geng", "tau_b"],
                   help="spearman: |Spearman| over all rows (FSA); geng, tau_b: Kendall per query, absolute")
    p.add_argument("--threshold", type=float, default=0.95, help="similarity at or above which features are "
                                                                 "near-duplicates, in (0, 1] (default 0.95)")
    p.add_argument("--linkage", default="complete", choices=["complete", "single"],
                   help="complete: every pair in a cluster above the threshold; single: chains")
    p.add_argument("--importance", default="ndcg@10",
                   help="measure choosing each cluster's representative (default ndcg@10)")
    p.add_argument("--plot", metavar="OUT.png", help="save a dendrogram and clustered heat map (needs matplotlib)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--force", action="store_true", help="replace --plot if it exists")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    refuse_existing("--plot", args.plot, args.force)
    if args.plot:
        try:
            plotting.require_matplotlib()
        except ImportError as exc:
            print(f"rankselect redundancy: error: {exc}", file=sys.stderr)
            return 2
    data = load_letor(args.train)
    report = redundancy_report(data.X, data.qid, data.y, similarity=args.similarity, threshold=args.threshold,
                               linkage_method=args.linkage, importance=args.importance)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(f"# {Path(args.train).name}: {args.similarity} similarity")
        print(report.summary())
    if args.plot:
        fig = plotting.plot_redundancy(report, title=f"{Path(args.train).name}: {args.similarity} similarity, "
                                                     f"clusters at >= {args.threshold}")
        fig.savefig(args.plot, dpi=150, bbox_inches="tight")
        print(f"saved figure to {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0
