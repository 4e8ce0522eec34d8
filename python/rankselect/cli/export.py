"""``rankselect export SELECTION --format lightgbm|xgboost|ranklib|json [--out FILE] [--names FILE]``

Hand a selection to the library that trains the production ranker. SELECTION is the JSON
that ``rankselect select ... --json`` prints (``-`` reads it from standard input, so
``rankselect select ... --json | rankselect export - --format ranklib`` works):

- ``ranklib``: RankLib's ``-feature`` file, the selected feature numbers (1-based, as in
  the data file), one per line;
- ``lightgbm`` / ``xgboost``: JSON with the 0-based ``columns`` to keep and their names
  (the library's default names ``Column_<j>`` / ``f<j>``, or those of ``--names``);
- ``json``: the selection (1-based and 0-based), the names, and a linear model's weights
  when the selecting method learnt one.

``--names FILE``: one feature name per line, in column order. See
``rankselect.analysis.export.export_selection`` for the Python function behind it.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..analysis.export import export_selection
from .common import reading

FORMATS = ("lightgbm", "xgboost", "ranklib", "json")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "export",
        help="write a selection for LightGBM, XGBoost, RankLib or as JSON (with linear weights)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("selection", metavar="SELECTION", help="JSON from 'rankselect select --json' ('-': stdin)")
    p.add_argument("--format", required=True, choices=FORMATS, help="output format")
    p.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    p.add_argument("--names", metavar="FILE", help="feature names, one per line in column order")
    p.set_defaults(handler=run)


def _read_selection(path: str) -> dict:
    with reading("SELECTION", path):
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not the JSON of 'rankselect select --json' ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("selected_features"), list):
        raise ValueError(f"{path}: no 'selected_features' list (expected the output of 'rankselect select --json')")
    feats = data["selected_features"]
    if not all(isinstance(j, int) and not isinstance(j, bool) and j >= 1 for j in feats):
        raise ValueError(f"{path}: selected_features must be 1-based feature numbers")
    return data


def run(args: argparse.Namespace) -> int:
    data = _read_selection(args.selection)
    columns = [j - 1 for j in data["selected_features"]]
    names = None
    if args.names:
        with reading("--names", args.names), open(args.names, encoding="utf-8") as f:
            names = [line.strip() for line in f if line.strip()]
    extra = {k: data[k] for k in ("method", "train") if k in data} if args.format == "json" else None
    text = export_selection(columns, args.format, n_features=data.get("n_features") or (len(names) if names else None),
                            feature_names=names, coef=data.get("coef"), extra=extra)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
