"""``rankselect select --method METHOD [options] TRAIN [--vali VALI] [--json]``

Every selector prints the same shape: one row per selected feature, in selection order,
with the feature number as in the file (1-based), the method's per-step score (its name
given by the method), and, with ``--vali``, validation NDCG@10 and MAP of the model that
uses the features selected so far (when the method provides a model per prefix), of the
final model (a method with one model), or, for a filter without a model (GAS), of RankRLS
(alpha = 1) trained on each prefix. ``--json`` prints the same as a JSON object.

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
from typing import Callable, Dict, Optional, Sequence, Union

from . import plural



@dataclass(frozen=True)
class Method:
    build: Callable[[argparse.Namespace], object]
    score_name: Union[str, Callable[[object], str], None]  # a name, or the fitted estimator -> name
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
    from .costs import add_cost_arguments  # --costs, --budget (issue 16)

    add_cost_arguments(p)
    seen = set()
    for method in METHODS.values():
        if method.add_arguments not in seen:
            seen.add(method.add_arguments)
            method.add_arguments(p)
    p.set_defaults(handler=run)


#: ridge parameter of the RankRLS ranker that scores the prefixes of a filter's selection
PREFIX_RANKER_ALPHA = 1.0


def _validation_rows(est, selected, Xv, yv, qv, Xt, yt, qt):
    from .. import metrics

    def scores_of(pred):
        return (metrics.ndcg(yv, pred, qv, k=10), metrics.mean_average_precision(yv, pred, qv))

    path = getattr(est, "coef_path_", None)
    if path is not None:
        return [scores_of(Xv @ path[i]) for i in range(len(selected))]
    if hasattr(est, "predict"):
        final = scores_of(est.predict(Xv))
        return [None] * (len(selected) - 1) + [final]
    # A filter (e.g. GAS) has no model: score every prefix with RankRLS on those features.
    from ..rankrls import RankRLS

    rows = []
    for i in range(len(selected)):
        cols = selected[: i + 1]
        ranker = RankRLS(alpha=PREFIX_RANKER_ALPHA).fit(Xt[:, cols], yt, qid=qt)
        rows.append(scores_of(ranker.predict(Xv[:, cols])))
    return rows


def run(args: argparse.Namespace) -> int:
    from ..data import load_letor

    method = METHODS[args.method]
    train = load_letor(args.train)
    est = method.build(args)
    from .costs import apply_costs, total_cost

    costs = apply_costs(est, args, train.X.shape[1])
    est.fit(train.X, train.y, qid=train.qid)
    selected = [int(j) for j in est.selected_features_]
    step_scores = method.scores(est)
    score_name = method.score_name(est) if callable(method.score_name) else method.score_name
    vali_rows = None
    if args.vali:
        vali = load_letor(args.vali, n_features=train.X.shape[1])
        vali_rows = _validation_rows(est, selected, vali.X, vali.y, vali.qid, train.X, train.y, train.qid)
    if args.json:
        out = {
            "method": args.method,
            "train": args.train,
            "selected_features": [j + 1 for j in selected],
            "score_name": score_name,
            "scores": None if step_scores is None else [float(s) for s in step_scores],
            "n_features": int(train.X.shape[1]),
            "coef": None if getattr(est, "coef_", None) is None else [float(w) for w in est.coef_],
        }
        if costs is not None:
            out["total_cost"] = total_cost(costs, selected)
        if vali_rows is not None:
            out["validation"] = [None if r is None else {"NDCG@10": r[0], "MAP": r[1]} for r in vali_rows]
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    header = ["step", "feature"]
    if step_scores is not None:
        header.append(score_name or "score")
    if vali_rows is not None:
        header += ["vali NDCG@10", "vali MAP"]
    print(f"# {args.method} on {args.train}: {plural(len(selected), 'feature')} (numbered as in the file)")
    print("  ".join(f"{h:>12}" for h in header))
    for i, j in enumerate(selected):
        row = [f"{i + 1:>12d}", f"{j + 1:>12d}"]
        if step_scores is not None:
            row.append(f"{float(step_scores[i]):>12.6g}")
        if vali_rows is not None:
            r = vali_rows[i]
            row += [f"{'':>12}", f"{'':>12}"] if r is None else [f"{r[0]:>12.4f}", f"{r[1]:>12.4f}"]
        print("  ".join(row))
    if costs is not None:
        print(f"# total cost {total_cost(costs, selected):.6g}" + ("" if args.budget is None else f" (budget {args.budget:g})"))
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
    # named after the criterion: "LQO squared" (lower is better) or "LQO ndcg@10" (higher)
    score_name=lambda est: f"LQO {est.criterion}",
    scores=lambda est: est.lqo_scores_,
    add_arguments=_greedy_rankrls_arguments,
)


# gas: GAS (Geng et al. 2007). Score column: the penalised weight of each feature when the
# greedy selected it (importance - 2c * similarity to the features selected before).
def _gas_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("gas")
    g.add_argument("--c", type=float, default=0.1,
                   help="gas: importance/similarity trade-off c of Fig. 1 (default 0.1)")
    g.add_argument("--importance", default="map",
                   help="gas: importance measure: map, ndcg, ndcg@k, p@k (GAS-E) or pairwise (GAS-L); default map")
    g.add_argument("--similarity", default="geng", choices=["geng", "tau_b"],
                   help="gas: Kendall similarity variant (default geng)")


def _gas_build(args: argparse.Namespace):
    from ..gas import GAS

    return GAS(n_features_to_select=args.k, c=args.c, importance=args.importance, similarity=args.similarity)


METHODS["gas"] = Method(
    build=_gas_build,
    score_name="gas weight",
    scores=lambda est: est.selection_weights_,
    add_arguments=_gas_arguments,
)


# --- sparse-ranksvm and fsmrank (issue 6) ---
def _sparse_add_arguments(p: argparse.ArgumentParser) -> None:
    def add(flag, **kw):
        if flag not in p._option_string_actions:  # another method may share the option
            p.add_argument(flag, **kw)

    add("--penalty", choices=["l1", "log", "mcp", "lp"], default="l1",
        help="sparse-ranksvm: penalty (default l1)")
    add("--C", type=float, default=1.0, dest="C", help="sparse-ranksvm: loss weight C (default 1)")
    add("--solver", choices=["prox-newton", "fista"], default="prox-newton",
        help="sparse-ranksvm: solver of each L1 problem (default prox-newton; fista = Laporte et al. Alg. 1)")
    add("--lambda1", type=float, default=0.1, help="fsmrank: similarity weight (default 0.1)")
    add("--lambda2", type=float, default=0.01, help="fsmrank: importance-weighted L1 weight (default 0.01)")


def _abs_coef_scores(est):
    return [abs(float(est.coef_[j])) for j in est.selected_features_]


def _build_sparse(args):
    from ..sparse import SparseRankSVM

    return SparseRankSVM(C=args.C, penalty=args.penalty, solver=args.solver)


def _build_fsmrank(args):
    from ..fsmrank import FSMRank

    return FSMRank(lambda1=args.lambda1, lambda2=args.lambda2)


METHODS["sparse-ranksvm"] = Method(_build_sparse, "|coef|", _abs_coef_scores, _sparse_add_arguments)
METHODS["fsmrank"] = Method(_build_fsmrank, "|coef|", _abs_coef_scores, _sparse_add_arguments)
