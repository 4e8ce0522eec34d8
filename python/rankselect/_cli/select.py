"""``rankselect select --method METHOD [options] TRAIN [--vali VALI] [--json]``

Every selector prints the same shape: one row per selected feature, in selection order,
with the feature number as in the file (1-based), the method's per-step score (its name
given by the method), and, with ``--vali``, validation NDCG@10 and MAP of the model that
uses the features selected so far (when the method provides a model per prefix) or of the
final model. ``--json`` prints the same as a JSON object.

A method registers itself in ``METHODS``: ``name -> Method(build, score_name, scores)``
where ``build(args)`` returns an unfitted estimator with ``fit(X, y, qid=...)`` and
``selected_features_``; ``scores(est)`` returns the per-step score column (or None); and
``add_arguments(parser)`` adds its own options (defaults shared by name are fine).
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Sequence



@dataclass(frozen=True)
class Method:
    build: Callable[[argparse.Namespace], object]
    score_name: Optional[str]
    scores: Callable[[object], Optional[Sequence[float]]]
    add_arguments: Callable[[argparse.ArgumentParser], None]


METHODS: Dict[str, Method] = {}


def add_parser(sub) -> None:
    p = sub.add_parser(
        "select",
        help="select features on a training file and print them in order",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("train", metavar="TRAIN", help="LETOR/SVMlight training file (.gz ok)")
    p.add_argument("--method", required=True, choices=sorted(METHODS), help="selection method")
    p.add_argument("-k", "--n-features", type=int, default=10, dest="k",
                   help="number of features to select (default 10)")
    p.add_argument("--vali", metavar="VALI", help="validation file: report NDCG@10 and MAP per prefix")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    seen = set()
    for method in METHODS.values():
        if method.add_arguments not in seen:
            seen.add(method.add_arguments)
            method.add_arguments(p)
    p.set_defaults(handler=run)


def _validation_rows(est, selected, Xv, yv, qv):
    from .. import metrics

    def scores_of(pred):
        return (metrics.ndcg(yv, pred, qv, k=10), metrics.mean_average_precision(yv, pred, qv))

    path = getattr(est, "coef_path_", None)
    if path is not None:
        return [scores_of(Xv @ path[i]) for i in range(len(selected))]
    final = scores_of(est.predict(Xv))
    return [None] * (len(selected) - 1) + [final]


def run(args: argparse.Namespace) -> int:
    from ..data import load_letor

    method = METHODS[args.method]
    train = load_letor(args.train)
    est = method.build(args)
    est.fit(train.X, train.y, qid=train.qid)
    selected = [int(j) for j in est.selected_features_]
    step_scores = method.scores(est)
    vali_rows = None
    if args.vali:
        vali = load_letor(args.vali, n_features=train.X.shape[1])
        vali_rows = _validation_rows(est, selected, vali.X, vali.y, vali.qid)
    if args.json:
        out = {
            "method": args.method,
            "train": args.train,
            "selected_features": [j + 1 for j in selected],
            "score_name": method.score_name,
            "scores": None if step_scores is None else [float(s) for s in step_scores],
        }
        if vali_rows is not None:
            out["validation"] = [None if r is None else {"NDCG@10": r[0], "MAP": r[1]} for r in vali_rows]
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    header = ["step", "feature"]
    if step_scores is not None:
        header.append(method.score_name or "score")
    if vali_rows is not None:
        header += ["vali NDCG@10", "vali MAP"]
    print(f"# {args.method} on {args.train}: {len(selected)} features (numbered as in the file)")
    print("  ".join(f"{h:>12}" for h in header))
    for i, j in enumerate(selected):
        row = [f"{i + 1:>12d}", f"{j + 1:>12d}"]
        if step_scores is not None:
            row.append(f"{float(step_scores[i]):>12.6g}")
        if vali_rows is not None:
            r = vali_rows[i]
            row += [f"{'':>12}", f"{'':>12}"] if r is None else [f"{r[0]:>12.4f}", f"{r[1]:>12.4f}"]
        print("  ".join(row))
    return 0


# --- method registrations (one block per method; keep each block self-contained) ---


# greedy-rankrls (issue 3): greedy RankRLS with exact leave-query-out selection.
def _greedy_rankrls_arguments(p: argparse.ArgumentParser) -> None:
    try:
        p.add_argument("--alpha", type=float, default=1.0,
                       help="ridge parameter (the paper's lambda), > 0 (default 1)")
    except argparse.ArgumentError:  # another method already added --alpha
        pass
    try:
        p.add_argument("--criterion", default="squared",
                       help="greedy-rankrls: LQO selection criterion (default 'squared')")
    except argparse.ArgumentError:
        pass


def _greedy_rankrls_build(args: argparse.Namespace):
    from ..rankrls import GreedyRankRLS

    return GreedyRankRLS(n_features_to_select=args.k, alpha=args.alpha,
                         criterion=getattr(args, "criterion", "squared"))


METHODS["greedy-rankrls"] = Method(
    build=_greedy_rankrls_build,
    score_name="LQO error",
    scores=lambda est: est.lqo_errors_,
    add_arguments=_greedy_rankrls_arguments,
)
