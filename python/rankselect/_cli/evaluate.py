"""``rankselect evaluate FILE --scores SCORES [--ties stable|pessimistic] [--json]``

Scores a ranking: FILE is a LETOR/SVMlight file (labels and qids; .gz ok), SCORES a text
file with one predicted score per line, in the order of FILE's rows (the prediction
format of LETOR's Eval-Score-4.0.pl and of RankLib / SVMrank). Prints MAP, NDCG@1..10,
P@1..10, MeanNDCG and ERR, means over queries, in both conventions side by side:
``standard`` (discount 1/log2(i+1), relevant = label > 0, k truncated to the query) and
``letor`` (LETOR 4.0's Eval-Score-4.0.pl, which produced the papers' tables: no discount
at ranks 1-2, NDCG@k = 0 for queries shorter than k, relevant = label >= 1). Ties among
equal scores keep file order (``--ties stable``, as LETOR's script) unless
``--ties pessimistic``. ``--json`` prints the same as a JSON object.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

CONVENTIONS = ("standard", "letor")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "evaluate",
        help="IR metrics (MAP, NDCG@k, P@k, MeanNDCG, ERR) of predicted scores, both conventions",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="LETOR/SVMlight file with the true labels and qids (.gz ok)")
    p.add_argument("--scores", required=True, metavar="SCORES",
                   help="text file, one predicted score per line, in FILE's row order")
    p.add_argument("--ties", choices=("stable", "pessimistic"), default="stable",
                   help="order of documents with equal scores (default: stable = file order)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=run)


def read_scores(path: str) -> np.ndarray:
    """One float per line (blank lines ignored); ValueError naming the line otherwise."""
    values = []
    with open(path, "r", encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            text = line.strip()
            if not text:
                continue
            try:
                v = float(text)
            except ValueError:
                raise ValueError(f"{path}, line {lineno}: expected one score per line, got {text[:60]!r}") from None
            if not np.isfinite(v):
                raise ValueError(f"{path}, line {lineno}: score is not finite ({text!r})")
            values.append(v)
    return np.asarray(values, dtype=np.float64)


def run(args: argparse.Namespace) -> int:
    from .. import metrics
    from ..data import load_letor

    data = load_letor(args.file)
    scores = read_scores(args.scores)
    if scores.shape[0] != data.y.shape[0]:
        raise ValueError(f"{args.scores} has {scores.shape[0]} scores but {args.file} has {data.y.shape[0]} rows")
    tables = {c: metrics.evaluate(data.y, scores, data.qid, convention=c, ties=args.ties) for c in CONVENTIONS}
    n_queries = len(np.unique(data.qid))
    if args.json:
        out = {"file": args.file, "scores": args.scores, "ties": args.ties,
               "n_rows": int(data.y.shape[0]), "n_queries": int(n_queries)}
        out.update({c: {k: float(v) for k, v in t.items()} for c, t in tables.items()})
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print(f"# {args.file}: {data.y.shape[0]} rows, {n_queries} queries; scores {args.scores}; ties {args.ties}")
    print(f"{'metric':<10}" + "".join(f"{c:>10}" for c in CONVENTIONS))
    for name in tables["standard"]:
        print(f"{name:<10}" + "".join(f"{tables[c][name]:>10.4f}" for c in CONVENTIONS))
    return 0
