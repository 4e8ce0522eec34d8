"""``rankselect train [--model ranksvm] [--C C] [--kernel nystroem|rff --components M --gamma G]
TRAIN --test TEST [--convention C[,C]] [--out SCORES] [--json]``

``rankselect train TRAIN --test TEST --ranker lightgbm|xgboost|catboost --features SELECTION [--save-model FILE]``

Trains a ranking model on TRAIN (LETOR / SVMlight file) and prints its test metrics in
two conventions side by side unless ``--convention`` names others: "exponential" (the gain
2^r - 1, discount 1/log2(i + 1); "standard" is its old name; not trec_eval's linear gain: see
``--convention trec``) and "letor" (LETOR 4.0's Eval-Score-4.0.pl, the convention of the
papers' tables). ``--out SCORES`` also writes the
model's score of every TEST row, one per line in TEST's row order (the format
``rankselect evaluate TEST --scores SCORES`` reads); ``--out -`` writes them to standard
output and the report to standard error.

Models, their flags and defaults come from the registry :mod:`rankselect.methods` (the
defaults are the estimator's own, e.g. ``RankSVM(n_components=100)``); the line ``model:``
shows the parameters the model used, and only those: the kernel map's parameters appear
only with ``--kernel``, and a kernel flag without ``--kernel`` is an error.

``--features SELECTION`` trains on the selected features only (the JSON of ``rankselect
select --json``, or 1-based numbers ``8,4,12``). ``--ranker lightgbm|xgboost|catboost`` trains
the production ranker (LightGBM's ``LGBMRanker``, XGBoost's ``XGBRanker``, CatBoost's
``CatBoostRanker`` with YetiRank) on them, under the
set's names, and ``--save-model FILE`` writes it for ``rankselect export SELECTION --engine
... --model FILE`` (select, train, export without Python).
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import sklearn

from .. import metrics
from ..data import load_letor
from ..methods import METHODS
from ..metrics.checks import CURRENT_CONVENTIONS
from . import train_ranker
from .common import add_convention_argument, conventions_of, plural, refuse_existing

_REPORTED = ["NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "P@1", "P@3", "P@5", "P@10", "MAP", "MeanNDCG"]
#: the models ``train`` offers (registry names)
MODELS = ("ranksvm",)
#: the kernel map's seed when --random-state is not given: ``train --kernel`` gives the
#: same model on every run
DEFAULT_KERNEL_SEED = 0
#: parameters that only a kernel map uses
_KERNEL_PARAMS = ("n_components", "gamma", "random_state")


#: the conventions printed side by side by default: the default ("exponential") and "letor"
#: (the first and the last of metrics.checks.CURRENT_CONVENTIONS, which lists them all)
SIDE_BY_SIDE = (CURRENT_CONVENTIONS[0], CURRENT_CONVENTIONS[-1])

def add_parser(sub) -> None:
    p = sub.add_parser(
        "train",
        help="train a ranking model, print its test metrics (--out: write its test scores)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("train", metavar="TRAIN", help="training file (LETOR / SVMlight, .gz ok)")
    p.add_argument("--test", required=True, metavar="TEST", help="test file")
    p.add_argument("--model", choices=MODELS, default=None,
                   help=f"the ranking model: {', '.join(f'{m} ({METHODS[m].description})' for m in MODELS)} "
                        "(default ranksvm)")
    p.add_argument("--out", metavar="SCORES",
                   help="write the test scores, one per line in TEST's row order (- for standard output)")
    add_convention_argument(p, ",".join(SIDE_BY_SIDE), several=True)
    p.add_argument("--json", action="store_true", help="print a JSON object instead of a table")
    seen = set()
    for name in MODELS:
        method = METHODS[name]
        defaults = method.defaults()
        for prm in method.params:
            if prm.cli_flag in seen:
                continue
            seen.add(prm.cli_flag)
            d = defaults[prm.name]
            if prm.name == "random_state":
                d = f"{DEFAULT_KERNEL_SEED}, so that runs repeat"
            shown_default = "" if "(default" in prm.help else \
                f" (default {'linear' if prm.name == 'kernel' and d is None else d})"
            p.add_argument(prm.cli_flag, dest=prm.dest, type=prm.type, choices=prm.choices,
                           default=argparse.SUPPRESS, help=f"{prm.help}{shown_default}")
    train_ranker.add_arguments(p)  # --features, --ranker, --save-model and the ranker's flags
    p.set_defaults(handler=run)


def _params(args: argparse.Namespace, method) -> dict:
    params = {prm.name: getattr(args, prm.dest) for prm in method.params if hasattr(args, prm.dest)}
    if params.get("kernel") == "linear":
        params["kernel"] = None
    if not params.get("kernel"):
        extra = [prm.cli_flag for prm in method.params if prm.name in _KERNEL_PARAMS and prm.name in params]
        if extra:
            raise ValueError(f"{extra[0]} applies only with --kernel nystroem or --kernel rff")
    elif params.get("random_state") is None:
        params["random_state"] = DEFAULT_KERNEL_SEED  # reproducible by default
    return params


def _ranker_checks(args: argparse.Namespace) -> None:
    """--ranker excludes --model and its flags; --save-model and --names need --ranker."""
    if args.ranker:
        given = [p.cli_flag for name in MODELS for p in METHODS[name].params if hasattr(args, p.dest)]
        if args.model or given:
            extra = (["--model"] if args.model else []) + given
            raise ValueError(f"--ranker {args.ranker} trains a tree ranker: drop {', '.join(extra)}")
    elif args.save_model or args.names:
        flag = "--save-model" if args.save_model else "--names"
        raise ValueError(f"{flag} needs --ranker lightgbm|xgboost|catboost")


@dataclass(frozen=True)
class TrainResult:
    """What ``train`` computed: the model's parameters and fit facts, the files' sizes, its
    test scores and their metrics per convention."""

    model: str
    params: dict[str, Any]
    facts: dict[str, Any]
    files: list[tuple[str, str, int, int]]  # (role, path, rows, queries)
    scores: np.ndarray
    table: dict[str, dict[str, float]]

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "params": self.params, **self.facts,
                "test": {conv: {k: float(t[k]) for k in _REPORTED} for conv, t in self.table.items()}}

    def text(self, scores_file: Optional[str] = None) -> str:
        params = " ".join(f"{k}={v}" for k, v in self.params.items())
        facts = " ".join(f"{k}={v:.10g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.facts.items())
        lines = [f"model: {self.model} ({params}) {facts}"]
        lines += [f"{role} {path} ({plural(rows, 'row')}, {plural(queries, 'query', 'queries')})"
                  for role, path, rows, queries in self.files]
        if scores_file:
            lines.append(f"scores: {scores_file} ({plural(len(self.scores), 'line')}, TEST's row order)")
        lines.append(f"{'metric':<10}" + "".join(f"{c:>12}" for c in self.table))
        lines += [f"{k:<10}" + "".join(f"{t[k]:>12.4f}" for t in self.table.values()) for k in _REPORTED]
        return "\n".join(lines)


def compute(args: argparse.Namespace) -> TrainResult:
    """Fit ``--model`` on TRAIN and score TEST (every input read and checked before the fit)."""
    conventions = conventions_of(args.convention, "rankselect train")
    method = METHODS[args.model or "ranksvm"]
    params = _params(args, method)
    model = method.build(**params)
    train = load_letor(args.train)
    test = load_letor(args.test)
    # LETOR files may omit trailing all-zero features: align the widths.
    n = max(train.X.shape[1], test.X.shape[1])
    Xtr = np.pad(train.X, ((0, 0), (0, n - train.X.shape[1])))
    Xte = np.pad(test.X, ((0, 0), (0, n - test.X.shape[1])))
    if args.features:
        cols = train_ranker.features_of(args.features, n)
        Xtr, Xte = Xtr[:, cols], Xte[:, cols]
    with sklearn.config_context(enable_metadata_routing=True):  # routes qid
        model.fit(Xtr, train.y, qid=train.qid)
    scores = model.predict(Xte)
    table = {conv: metrics.evaluate(test.y, scores, test.qid, convention=conv) for conv in conventions}
    used = model.get_params()
    shown = [p.name for p in method.params if p.name not in ("kernel",) + _KERNEL_PARAMS]
    if model.kernel is not None:
        shown += ["kernel", "n_components", "gamma", "random_state"]
        used = dict(used, gamma=model.kernel_map_.gamma)  # the width the map used (None -> 1/n)
    facts = {attr.rstrip("_"): getattr(model, attr) for attr in ("n_iter_", "objective_", "n_pairs_")
             if hasattr(model, attr)}
    files = [(role, path, X.shape[0], len(np.unique(q))) for role, path, X, q in
             (("train:", args.train, Xtr, train.qid), ("test: ", args.test, Xte, test.qid))]
    return TrainResult(method.name, {k: used[k] for k in shown}, facts, files, scores, table)


def run(args: argparse.Namespace) -> int:
    _ranker_checks(args)
    refuse_existing("--out", args.out, args.force)
    if args.ranker:  # a tree ranker on the subset (rankselect.cli.train_ranker)
        return train_ranker.run(args, conventions_of(args.convention, "rankselect train"), _write_scores)
    result = compute(args)
    report = sys.stdout
    if args.out:
        _write_scores(args.out, result.scores)
        if args.out == "-":
            report = sys.stderr
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=str), file=report)
    else:
        print(result.text(args.out if args.out and args.out != "-" else None), file=report)
    return 0


def _write_scores(path: str, scores) -> None:
    """One score per line (shortest text that reads back to the same float64), written line by
    line (one large write to a closed pipe could be lost silently)."""
    values = np.asarray(scores, dtype=float).tolist()
    if path == "-":
        for s in values:
            sys.stdout.write(f"{s!r}\n")
        sys.stdout.flush()
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(f"{s!r}\n" for s in values)
