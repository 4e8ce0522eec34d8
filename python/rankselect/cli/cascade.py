"""``rankselect cascade TRAIN --vali VALI --costs LAYOUT|FILE --budget B [--windows N ...]
[--no-reuse] [--rule 1se|2se|best] [--phase2-ranker linear|lightgbm] [--json] [--out FILE]
[--report FILE] [--force]``

Chooses the ranking phases under a budget of cost per query
(:class:`rankselect.CascadeSelection`): a cheap feature subset for every candidate document
and, where it pays on the validation queries beyond their noise, a richer one for phase 1's top
N. ``--costs`` is a built-in layout (``letor4``, ``mslr``, ``ohsumed``, ``ohsumed-letor2`` or an
alias such as ``mq2008``: the MSLR-WEB cost tiers of WSDM 2019,
:func:`rankselect.data.datasets.feature_costs`) or a costs file (one cost per feature in column
order, or ``feature,cost`` lines, 1-based). ``--budget`` is the mean cost per validation query,
or a share of all features on every document with ``%`` (``--budget 5%``). Prints the phases
(1-based features, the window, the cost per query) and the choice; ``--json`` prints the same
as JSON, and ``--out FILE`` writes it (never replacing a file without ``--force``): ``rankselect
export`` takes it. ``--phase2-ranker lightgbm`` refits the best affordable cascade's phase 2 as
a LightGBM model, kept where it scores at least the linear one on the validation queries (its
model text is embedded in the JSON). ``--report FILE`` also writes the decision report of this
fit (the "Ranking phases" panel: the cascade front beside the single-phase front, the paired
interval, the verdict), never replacing a file without ``--force``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import numpy as np

from ..analysis.costs import read_costs
from ..data import load_letor
from ..data.datasets import feature_costs
from ..data.datasets.layouts import LAYOUTS
from ..selection.cascade import RULES, CascadeSelection
from ..selection.cascade_trees import PHASE2_RANKERS
from .common import reading


def add_parser(sub) -> None:
    p = sub.add_parser("cascade", help="choose ranking phases (a cheap subset for every document, a richer one for "
                       "the top N) under a cost budget per query", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train", metavar="TRAIN", help="LETOR/SVMlight training file (.gz ok)")
    p.add_argument("--vali", required=True, metavar="VALI", help="validation file: the budget and the choice")
    p.add_argument("--costs", required=True, metavar="LAYOUT|FILE",
                   help=f"a layout ({', '.join(LAYOUTS)}) or a costs file (one cost per feature)")
    p.add_argument("--budget", required=True, metavar="B",
                   help="mean cost per validation query, or a share of all features on every document (5%%)")
    p.add_argument("--windows", type=int, nargs="+", default=[10, 20, 50, 100], metavar="N",
                   help="the rerank counts tried for phase 2 (default: 10 20 50 100)")
    p.add_argument("--no-reuse", dest="reuse", action="store_false",
                   help="phase 2 computes all its features again (OpenSearch / Elasticsearch rescore windows)")
    p.add_argument("--rule", choices=sorted(RULES), default="1se",
                   help="take a cascade when it beats one phase by 1 or 2 standard errors (default 1se), or at all")
    p.add_argument("--phase2-ranker", choices=PHASE2_RANKERS, default="linear",
                   help="phase 2's ranker: linear (default), or lightgbm (refit on the documents phase 1 keeps, kept "
                        "where it scores at least the linear one on the validation queries)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--out", metavar="FILE", help="write the JSON to FILE (for rankselect export)")
    p.add_argument("--report", metavar="FILE.html", help="also write the HTML decision report of this fit")
    p.add_argument("--force", action="store_true", help="replace --out FILE or --report FILE if it exists")
    p.set_defaults(handler=run)


def costs_of(text: str, n_features: int) -> np.ndarray:
    """``--costs``: a layout's published costs, or a costs file."""
    if not os.path.exists(text):
        try:
            c = feature_costs(text)
        except ValueError:  # not a layout: read as a file (whose error names --costs)
            c = None
    else:
        c = None
    if c is not None:
        if len(c) != n_features:
            raise ValueError(f"--costs {text}: the layout has {len(c)} features but the data has {n_features}")
        return c
    with reading("--costs", text):
        return read_costs(text, n_features)


def budget_of(text: str, costs: np.ndarray, qid_val: np.ndarray) -> float:
    """``--budget``: a number, or ``P%`` of all features on every validation document."""
    share = text.strip().endswith("%")
    try:
        v = float(text.strip().rstrip("%"))
    except ValueError:
        raise ValueError(f"--budget must be a number or a share such as 5%, got {text!r}") from None
    if not np.isfinite(v) or v < 0:
        raise ValueError(f"--budget must be finite and >= 0, got {text!r}")
    if share:
        n_q = np.unique(qid_val, return_counts=True)[1].mean()
        return v / 100.0 * float(costs.sum()) * float(n_q)
    return v


def result_json(cs: CascadeSelection, costs: np.ndarray) -> dict[str, Any]:
    """The fitted cascade as the JSON ``rankselect cascade`` prints (features 1-based)."""
    phases = [{"features": [int(j) + 1 for j in p.features], "ranker": p.ranker,
               "coef": None if p.coef is None else [float(w) for w in p.coef], "window": p.window,
               **({} if p.model is None else {"model": p.model.model_to_string()})} for p in cs.phases_]
    return {"cascade": {"phases": phases, "n_features": int(cs.n_features_in_),
                        "cost_per_query": cs.cost_per_query_, "feature_costs": [float(c) for c in costs],
                        "reuse": bool(cs.reuse), **{k: v for k, v in cs.choice_.items() if k != "reuse"},
                        "front": cs.front_, "single_front": cs.single_front_}}


def _check_files(args: argparse.Namespace) -> None:
    """Before the fit: an existing --out or --report FILE needs --force."""
    for flag, path in (("--out", args.out), ("--report", args.report)):
        if path and os.path.exists(path) and not args.force:
            raise ValueError(f"{flag} {path} exists; add --force to replace it")
    if args.out and args.report and os.path.abspath(args.out) == os.path.abspath(args.report):
        raise ValueError("--out and --report name the same file")


def write_cascade_report(args: argparse.Namespace, cs: CascadeSelection, train, vali, costs: np.ndarray) -> None:
    """``--report FILE``: the decision report of the fit (no stability refits: they need an eval_set)."""
    from pathlib import Path

    from ..report import write_report

    train_path = Path(args.train)  # the page names the data by its last folders, not the machine's path
    data = "/".join([p for p in train_path.parts if p != train_path.anchor][-3:])
    path = write_report(cs, args.report, force=True, train=train, vali=vali, feature_costs=costs, n_resamples=0,
                        progress=False, title=f"cascade on {data}")
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if any(w < 1 for w in args.windows):
        raise ValueError(f"--windows must be >= 1, got {args.windows}")
    _check_files(args)
    with reading("TRAIN", args.train):
        train = load_letor(args.train)
    with reading("--vali", args.vali):
        vali = load_letor(args.vali)
    costs = costs_of(args.costs, train.X.shape[1])
    budget = budget_of(args.budget, costs, vali.qid)
    cs = CascadeSelection(feature_costs=costs, budget=budget, windows=tuple(args.windows), reuse=args.reuse,
                          rule=args.rule, phase2_ranker=args.phase2_ranker).fit(
        train.X, train.y, qid=train.qid, eval_set=(vali.X, vali.y, vali.qid))
    out = result_json(cs, costs)
    text = json.dumps(out, indent=2)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    if args.report:
        write_cascade_report(args, cs, train, vali, costs)
    if args.json:
        print(text)
        return 0
    c = out["cascade"]
    print(f"decision: {c['decision']} (rule {c['rule']}: validation difference {c['mean_difference']:+.4f}, "
          f"standard error {c['standard_error']:.4f}, {c['n_queries']} queries)")
    for i, p in enumerate(c["phases"], 1):
        where = "every document" if p["window"] is None else f"the top {p['window']} of phase 1"
        where += ", LightGBM" if p["ranker"] == "lightgbm" else ""
        print(f"phase {i} ({where}): features {' '.join(map(str, p['features']))}")
    print(f"cost per query: {c['cost_per_query']:.6g} (budget {budget:.6g}; all features on every document "
          f"{float(costs.sum()) * np.unique(vali.qid, return_counts=True)[1].mean():.6g})")
    sys.stdout.flush()
    return 0
