"""``rankselect export SELECTION --format lightgbm|xgboost|ranklib|json [--out FILE] [--names FILE]``
``rankselect export SELECTION --engine opensearch|solr|elasticsearch|vespa|ranklib [--model FILE]
[--templates FILE] [--names FILE] [--name NAME] --out DIR``

Hand a selection to the library that trains the production ranker, or to the search engine
that serves it. SELECTION is the JSON that ``rankselect select ... --json`` prints (``-``
reads it from standard input, so ``rankselect select ... --json | rankselect export -
--format ranklib`` works).

``--format``, one file (standard output unless ``--out FILE``):

- ``ranklib``: RankLib's ``-feature`` file, the selected feature numbers (1-based, as in
  the data file), one per line;
- ``lightgbm`` / ``xgboost``: JSON with the 0-based ``columns`` to keep and their names
  (the library's default names ``Column_<j>`` / ``f<j>``, or those of ``--names``);
- ``json``: the selection (1-based and 0-based), the names, and a linear model's weights
  when the selecting method learnt one.

``--engine``, the files the engine's API or configuration takes, written under ``--out DIR``
(see ``README.md`` there): the feature set (``--templates FILE``: JSON mapping a feature's
1-based number or name to its query template / Vespa rank feature; without it, skeletons
marked TODO), and with ``--model FILE`` (a LightGBM model text file, an XGBoost JSON model or
a CatBoost model trained on the selected columns, e.g. by ``rankselect train ... --ranker lightgbm --features
SELECTION --save-model FILE``; ``--linear``: the selecting method's linear weights) the
model, its thresholds written so that the engine scores
each document as the ranker does. ``opensearch`` also serves the o19s Elasticsearch LTR
plugin; ``elasticsearch`` is its native learning to rank (8.12+); ``ranklib`` renumbers the
subset 1..k (``--letor FILE``, repeatable: write FILE's selected columns so numbered under DIR).
SELECTION may also be the JSON of ``rankselect cascade --json``: its phases and their models
(linear, or a LightGBM phase 2) are exported (two phases: Vespa's ``first-phase`` and
``second-phase``; one phase: the single subset), without ``--model`` / ``--linear``.

``--non-match zero|missing``: where a feature whose query does not match goes at each split
of a tree model (``export_engine(non_match=...)``). ``--names FILE``: one feature name per
line, in column order. See
``rankselect.deploy.export_selection`` and ``rankselect.export_engine`` for the
Python functions behind it.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from ..data import RankingData, load_letor
from ..deploy import ENGINES, NON_MATCH, export_engine, load_model, write_letor_subset
from ..deploy.formats import export_selection
from ..deploy.model_files import read_json_text
from .common import reading

FORMATS = ("lightgbm", "xgboost", "ranklib", "json")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "export",
        help="write a selection for LightGBM, XGBoost, RankLib or as JSON; or a search engine's files (--engine)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("selection", metavar="SELECTION",
                   help="JSON from 'rankselect select --json' or 'rankselect cascade --json' ('-': stdin)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--format", choices=FORMATS, help="output format of a column list")
    what.add_argument("--engine", choices=ENGINES, help="the search engine's files, written under --out DIR")
    p.add_argument("--out", metavar="FILE|DIR", help="--format: write here instead of standard output; "
                                                     "--engine: the folder of the files (required)")
    p.add_argument("--names", metavar="FILE", help="feature names, one per line in column order")
    p.add_argument("--model", metavar="FILE", help="--engine: a LightGBM model text file, an XGBoost JSON model or "
                                                   "a CatBoost model trained on the selected columns")
    p.add_argument("--non-match", choices=NON_MATCH, default="zero",
                   help="--engine with a tree model: where a feature whose query does not match goes at each split: "
                        "'zero' (the training data held 0 there, as LETOR data does: the way of 0; the default) or "
                        "'missing' (the training data held NaN there: the model's own missing-value way)")
    p.add_argument("--linear", action="store_true",
                   help="--engine: the linear model of the selecting method (the JSON's coef: greedy-rankrls, "
                        "sparse-ranksvm, fsmrank ...) instead of --model")
    p.add_argument("--templates", metavar="FILE", help="--engine: JSON mapping a feature's 1-based number or name "
                                                       "to its query template (or one such mapping per engine)")
    p.add_argument("--name", default="rankselect", help="--engine: the feature set's and model's name "
                                                        "(default rankselect)")
    p.add_argument("--letor", metavar="FILE", action="append", default=[],
                   help="--engine ranklib: write FILE's selected columns, numbered 1..k, under --out DIR")
    p.add_argument("--force", action="store_true", help="replace the files that exist under --out (never a --letor "
                                                        "input)")
    p.set_defaults(handler=run)


def _read_selection(path: str) -> dict:
    with reading("SELECTION", path):
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    data = read_json_text(text, f"{path}: not the JSON of 'rankselect select --json'")
    if isinstance(data, dict) and isinstance(data.get("cascade"), dict):
        return data  # 'rankselect cascade --json': export_engine reads its phases
    if not isinstance(data, dict) or not isinstance(data.get("selected_features"), list):
        raise ValueError(f"{path}: no 'selected_features' list (expected the output of 'rankselect select --json')")
    feats = data["selected_features"]
    if not all(isinstance(j, int) and not isinstance(j, bool) and j >= 1 for j in feats):
        raise ValueError(f"{path}: selected_features must be 1-based feature numbers")
    return data


def _names(path):
    if not path:
        return None
    with reading("--names", path), open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def _engine_only(args: argparse.Namespace) -> None:
    for flag, given in (("--model", args.model), ("--linear", args.linear), ("--templates", args.templates),
                        ("--letor", args.letor),
                        ("--name", args.name != "rankselect")):
        if given:
            raise ValueError(f"{flag} applies to --engine, not to --format")


def _letor_targets(sources: list[str], out: str, force: bool, files: set[str]) -> list[Path]:
    """Where each ``--letor`` file's subset goes (``--out/<its name>``): refused when two
    share a name, when one would replace an input or an engine file, or an existing file
    without ``--force``."""
    dests = [Path(out) / os.path.basename(src) for src in sources]
    names = [d.name for d in dests]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"--letor: two files named {twice[0]!r} would be written to the same {out}/{twice[0]}; "
                         "give them distinct names")
    inputs = {Path(src).resolve() for src in sources}
    for src, dest in zip(sources, dests):
        if dest.resolve() in inputs or dest.exists() and any(os.path.samefile(dest, s) for s in sources
                                                             if os.path.exists(s)):
            raise ValueError(f"--letor {src}: its subset would replace the input file {dest} (--out is its folder); "
                             "choose another --out")
        if dest.name in files:
            raise ValueError(f"--letor {src}: its name {dest.name!r} is one of the engine's files")
        if dest.exists() and not force:
            raise ValueError(f"--letor {src}: {dest} exists; pass --force to replace it, or choose another --out")
    return dests


def _letor_input(src: str, data: dict, n_features) -> tuple:
    """(the LETOR data, the selection's columns, width): the file is read at its own width,
    widened by zero columns only up to the selection's last column (the selection's
    n_features is not trusted to size an array)."""
    letor = load_letor(src)
    cols = [j - 1 for j in data["selected_features"]]
    if n_features is not None and letor.n_features > n_features:
        raise ValueError(f"--letor {src}: {letor.n_features} features, the selection refers to {n_features}")
    width = max(letor.n_features, max(cols) + 1)
    if width > letor.n_features:
        X = np.pad(letor.X, ((0, 0), (0, width - letor.n_features)))
        letor = RankingData(X, letor.y, letor.qid, letor.comments)
    return letor, cols, width


def _engine(args: argparse.Namespace, data: dict, names) -> int:
    if not args.out:
        raise ValueError("--engine needs --out DIR (the folder of the engine's files)")
    if args.letor and args.engine != "ranklib":
        raise ValueError("--letor applies to --engine ranklib (RankLib's training data, numbered 1..k)")
    templates = None
    if args.templates:
        with reading("--templates", args.templates), open(args.templates, encoding="utf-8") as f:
            templates = read_json_text(f.read(), f"--templates {args.templates}")
    if args.model and args.linear:
        raise ValueError("give --model FILE or --linear, not both")
    model = load_model(args.model) if args.model else None
    if args.linear:
        if not isinstance(data.get("coef"), list):
            raise ValueError(f"--linear: {args.selection} has no coef (its method, {data.get('method', '?')}, "
                             "learns no linear model); train one and pass --model FILE")
        model = data["coef"]
    n_features = data.get("n_features") or (len(names) if names else None)
    out = export_engine(args.engine, data, model, templates=templates, feature_names=names, name=args.name,
                        n_features=n_features, non_match=args.non_match)
    dests = _letor_targets(args.letor, args.out, args.force, set(out.files))
    paths = out.write(args.out, force=args.force)
    for src, dest in zip(args.letor, dests):
        letor, cols, width = _letor_input(src, data, n_features)
        write_letor_subset(dest, letor, cols, n_features=width)
        paths.append(dest)
    print(f"{args.engine}: {len(paths)} files in {args.out}: {', '.join(sorted(out.files))}"
          + (f" and {', '.join(os.path.basename(s) for s in args.letor)}" if args.letor else ""))
    for note in out.notes:
        print(f"note: {note}")
    return 0


def run(args: argparse.Namespace) -> int:
    data = _read_selection(args.selection)
    names = _names(args.names)
    if args.engine:
        if "cascade" in data and (args.letor or args.model or args.linear):
            raise ValueError(f"{'--letor' if args.letor else '--model' if args.model else '--linear'} applies to a "
                             "selection: a cascade carries its phases' models")
        return _engine(args, data, names)
    if "cascade" in data:
        raise ValueError(f"{args.selection} is a cascade ('rankselect cascade --json'): export it with --engine "
                         "(its phases become the engine's phases)")
    _engine_only(args)
    columns = [j - 1 for j in data["selected_features"]]
    extra = {k: data[k] for k in ("method", "train") if k in data} if args.format == "json" else None
    text = export_selection(columns, args.format, n_features=data.get("n_features") or (len(names) if names else None),
                            feature_names=names, coef=data.get("coef"), extra=extra)
    if args.out:
        if os.path.exists(args.out) and not args.force:
            raise ValueError(f"--out {args.out} exists; pass --force to replace it")
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
