"""``rankselect report EXPERIMENT_DIR [-o report.html] [--method M] [--measure M] [--ranker R]
[--rule RULE] [--nested] [--data DATA_DIR] [--names FILE] [--layout NAME:BY | --groups FILE]
[--costs FILE] [--json] [--force]``

Write one self-contained HTML page (no server, no network needed to open it) for the
output folder of ``rankselect experiment ... --out EXPERIMENT_DIR``. It leads with the
decision: how many features of which method to keep, by the one-standard-error rule on
paired per-query differences (every fold's validation queries pooled), and how that subset
fares against all features on every test query, and in every fold (paired t-tests, Holm's
correction over the folds; a significant loss is flagged in the headline). Then: quality
against the number of features (the folds' spread below it), the cost-quality front over
every size of every method, per-query wins and losses, redundancy, stability, importance,
the feature-group views (``--layout``/``--groups``) and the chosen subset with a k slider and
the hand-off boxes. The redundancy and importance panels read the first fold of the
experiment's data (``--data`` when it moved).

``--measure`` names the measure of the decision (one the experiment kept per query:
``experiment --measure``); ``--ranker`` the ranker it is for (the methods run with
``ranker=``; the other paths are a screening view); ``--rule`` how the size is chosen;
``--nested`` compares the sizes on their cross-fitted validation scores (nested selection of
the alpha or the ranker's setting). ``--json`` prints the decision (the page's
``rankselect-decision`` element) on standard output and writes no page unless ``-o`` names
one. An existing page is kept unless ``--force``. Needs the ``report`` extra (``pip install
"rankselect[report]"``). See ``rankselect.report.write_report`` for the Python function
(which also takes a fitted selector); ``rankselect select ... --report FILE`` writes the
page of one fit.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Optional

from .._validation import check_vector
from .common import reading


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="write one self-contained HTML report of an experiment folder",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", metavar="EXPERIMENT_DIR", help="the --out folder of 'rankselect experiment'")
    p.add_argument("-o", "--out", metavar="FILE", help="the HTML file (default report.html; with --json no page is "
                                                       "written unless -o names one)")
    p.add_argument("--method", help="the method whose subset the page hands off (default: the selecting method "
                                    "of best validation score at its one-standard-error size)")
    p.add_argument("--data", metavar="DATA_DIR", help="the LETOR folds, when not where the experiment found them")
    p.add_argument("--names", metavar="FILE", help="feature names, one per line in column order")
    p.add_argument("--layout", metavar="NAME:BY", help="a built-in layout (e.g. letor4:stream): its feature names "
                                                        "and groups")
    p.add_argument("--groups", metavar="GROUPS.csv", help="feature groups: 'feature,group[,cost]' lines (1-based)")
    p.add_argument("--costs", metavar="COSTS.csv", help="the features' own costs (one per line, or 'feature,cost')")
    p.add_argument("--measure", metavar="MEASURE", help="the measure of the decision: map, ndcg@k, err@k, p@k or "
                                                         "meanndcg, one the experiment kept per query (its --metric, "
                                                         "or one of its --measure; default the --metric)")
    p.add_argument("--ranker", metavar="NAME", help="decide for this ranker (e.g. lightgbm: the methods run with "
                                                    "ranker=lightgbm); the other paths stay on the page as a "
                                                    "screening view (default: every method)")
    p.add_argument("--rule", default="one-standard-error", choices=("one-standard-error", "holm"),
                   help="how the size is chosen: the smallest within one standard error of the best (default), or "
                        "the smallest not significantly worse than the best after Holm's correction")
    p.add_argument("--nested", action="store_true",
                   help="nested selection: compare the sizes on their cross-fitted validation scores (each half of "
                        "the validation queries scored by the alpha / setting chosen on the other half)")
    p.add_argument("--json", action="store_true", help="print the decision as JSON on standard output (and write "
                                                       "no page, unless -o names one)")
    p.add_argument("--force", action="store_true", help="overwrite an existing page")
    p.set_defaults(handler=run)


def read_names(path: str) -> list[str]:
    """Feature names, one per line (a UTF-8 byte-order mark and blank lines ignored)."""
    with reading("--names", path), open(path, encoding="utf-8-sig") as f:
        return [line.strip() for line in f if line.strip()]


def _inputs(args: argparse.Namespace, n: int) -> dict[str, Any]:
    from ..analysis.costs import read_costs
    from .costs import read_groups

    if args.groups and args.layout:
        raise ValueError("give --groups or --layout, not both")
    out: dict[str, Any] = {}
    if args.names:
        out["feature_names"] = read_names(args.names)
    if args.groups or args.layout:
        out["feature_groups"], out["group_costs"] = read_groups(args.groups, args.layout, n)
    if args.costs:
        out["feature_costs"] = read_costs(args.costs, n)
    return out


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..report import build_report, decision, load_experiment, write_report

    out = None if (args.json and args.out is None) else Path(args.out or "report.html")
    if out is not None and out.exists() and not args.force:
        raise ValueError(f"{out} exists: pass --force to overwrite it, or -o another file")
    n = load_experiment(args.experiment).n_features
    data = build_report(args.experiment, method=args.method, data_dir=args.data, measure=args.measure,
                        ranker=args.ranker, rule=args.rule, nested=args.nested, **_inputs(args, n))
    if out is not None:
        write_report(data, out, force=True)
        print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    if args.json:
        print(json.dumps(decision(data), indent=2, ensure_ascii=False))
    return 0


# -- `rankselect select ... --report FILE`


def add_report_argument(p: argparse.ArgumentParser) -> None:
    """``--report FILE`` (and ``--report-resamples N``, ``--force``) of ``rankselect select``."""
    g = p.add_argument_group("report")
    g.add_argument("--report", metavar="FILE.html", help="also write the HTML report of this fit (needs --vali: the "
                                                         "sizes are compared on its queries)")
    g.add_argument("--report-resamples", type=int, default=5, metavar="N",
                   help="with --report: refits of the selector on half of the queries for the stability panel "
                        "(default 5; 0 skips them)")
    g.add_argument("--force", action="store_true", help="with --report: overwrite an existing page")


def check_report_arguments(args: argparse.Namespace) -> None:
    """Before the fit: ``--report`` needs ``--vali``, and an existing page needs ``--force``."""
    from pathlib import Path

    if getattr(args, "report", None) is None:
        return
    if not args.vali:
        raise ValueError("--report needs --vali VALI: the report compares the sizes on the validation queries")
    if Path(args.report).exists() and not args.force:
        raise ValueError(f"{args.report} exists: pass --force to overwrite it")
    if args.report_resamples < 0:
        raise ValueError(f"--report-resamples must be >= 0, got {args.report_resamples}")


def write_select_report(args: argparse.Namespace, est, train, vali, groups=None, costs: Optional[Any] = None) -> None:
    """The report of the fitted selector of ``rankselect select`` (its validation data)."""
    from pathlib import Path

    from ..report import write_report

    if costs is not None:
        costs = check_vector(costs, "--costs")
    train_path = Path(args.train)  # the page names the data by its last folders, not the machine's path
    data = "/".join([p for p in train_path.parts if p != train_path.anchor][-3:])
    path = write_report(est, args.report, force=True, train=train, vali=vali, convention=args.convention,
                        feature_groups=groups, feature_costs=costs, n_resamples=args.report_resamples,
                        title=f"{args.method} on {data}")
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
