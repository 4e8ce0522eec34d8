"""``rankselect info FILE [--json]``: a summary of a LETOR / SVMlight ranking file.

Prints rows, queries, features, documents per query (min / mean / max), the label
histogram, the constant features (1-based numbers, as in the file) and the queries whose
rows are not contiguous in the file (they are merged by qid; in a LETOR file this usually
means files were concatenated by mistake). ``--allow-nonfinite`` reads a file with NaN or
infinite values (which the other commands reject) and counts them.
"""
from __future__ import annotations

import argparse
import json
import warnings
from typing import Any

import numpy as np

from ..data import constant_columns, load_letor, split_queries
from .common import plural, ranges


def add_parser(sub) -> None:
    p = sub.add_parser(
        "info",
        help="summarise a LETOR/SVMlight file: rows, queries, features, labels, constant features",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="LETOR/SVMlight ranking file (.gz ok)")
    p.add_argument("--n-features", type=int, default=None,
                   help="number of features (default: the largest index in the file)")
    p.add_argument("--allow-nonfinite", action="store_true",
                   help="accept NaN / infinite labels and values, and count them")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=run)


def summarize(data) -> dict[str, Any]:
    """The ``info`` summary of a :class:`~rankselect.RankingData` as a dict."""
    _, sizes = np.unique(data.qid, return_counts=True)
    labels, counts = np.unique(data.y, return_counts=True)
    X = data.X
    constant = np.flatnonzero(constant_columns(X))
    n_split, first_split, split_row = split_queries(data.qid)
    bad_rows = ~np.isfinite(X).all(axis=1) | ~np.isfinite(data.y)

    def label_key(v: float) -> str:
        return str(int(v)) if float(v).is_integer() else repr(float(v))

    return {
        "rows": data.n_samples,
        "queries": int(sizes.size),
        "features": data.n_features,
        "docs_per_query": {
            "min": int(sizes.min()),
            "mean": float(sizes.mean()),
            "max": int(sizes.max()),
        },
        "labels": {label_key(v): int(c) for v, c in zip(labels, counts)},
        "constant_features": [int(j) + 1 for j in constant],
        "split_queries": {"count": n_split, "first_qid": first_split,
                          "first_row": None if split_row is None else split_row + 1},
        "nonfinite": {"values": int((~np.isfinite(X)).sum() + (~np.isfinite(data.y)).sum()),
                      "rows": int(bad_rows.sum()),
                      "first_row": int(np.flatnonzero(bad_rows)[0]) + 1 if bad_rows.any() else None},
    }


def run(args: argparse.Namespace) -> int:
    with warnings.catch_warnings():  # the split-query warning: the summary says it
        warnings.filterwarnings("ignore", message=".*not contiguous", category=UserWarning)
        data = load_letor(args.file, n_features=args.n_features, allow_nonfinite=args.allow_nonfinite)
    info = summarize(data)
    info = {"file": args.file, **info}
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    d = info["docs_per_query"]
    const = info["constant_features"]
    rows = [
        ("file", info["file"]),
        ("rows", str(info["rows"])),
        ("queries", str(info["queries"])),
        ("features", str(info["features"])),
        ("docs/query", f"min {d['min']}  mean {d['mean']:.2f}  max {d['max']}"),
        ("labels", "  ".join(f"{k}: {v}" for k, v in info["labels"].items())),
        ("constant features", f"{len(const)}" + (f" ({ranges(const)})" if const else "")),
    ]
    split = info["split_queries"]
    if split["count"]:
        rows.append(("split queries",
                     f"{split['count']} (rows not contiguous, merged by qid; the first: qid {split['first_qid']}, "
                     f"again at data row {split['first_row']}; a concatenation mistake?)"))
    bad = info["nonfinite"]
    if bad["values"]:
        rows.append(("non-finite values",
                     f"{bad['values']} in {plural(bad['rows'], 'row')} (the first: data row {bad['first_row']})"))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0
