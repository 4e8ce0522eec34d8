"""``rankselect select --method METHOD [-k K] [options] TRAIN [--vali VALI] [--json]``

Every selector prints the same shape: one row per selected feature, in selection order,
with the feature number as in the file (1-based), the method's per-step score (its name
given by the method), and, with ``--vali``, validation NDCG@10 and MAP (standard
conventions, named in the header) of the model that uses the features selected so far
(when the method provides a model per prefix), of the final model (a method with one
model), or, for a filter without a model (GAS), of RankRLS (alpha = 1) trained on each
prefix. ``--json`` prints the same as a JSON object.

``-k`` applies to every selector: greedy RankRLS and GAS select exactly k features; the
sparse methods (sparse-ranksvm, fsmrank) walk their regularisation path and keep the
weakest regularisation on it (largest C / smallest lambda2) whose model has at most k
features, and say which. A flag of another method is an error. Methods, their flags and
defaults come from the registry :mod:`rankselect.methods`. The ranker-in-the-loop
selectors (rfe, forward: ``--ranker lightgbm|xgboost|catboost|rankrls|ranksvm``) score every
subset on ``--vali`` when given, else on 3 query folds of TRAIN; without ``-k`` they pick the
size by ``--selection-rule``.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Optional

import numpy as np

from .. import metrics
from ..analysis.costs import total_cost
from ..data import load_letor
from ..methods import METHODS, SELECTORS, Param
from ..models import RankRLS
from .common import plural
from .costs import add_cost_arguments, apply_costs, apply_groups, cost_summary

#: the convention of the validation scores ``select --vali`` prints
VALI_CONVENTION = "standard"
#: ridge parameter of the RankRLS ranker that scores the prefixes of a filter's selection
PREFIX_RANKER_ALPHA = 1.0


def _selector_flags() -> dict[str, tuple[Param, list[str]]]:
    """flag -> (parameter, the selectors that take it)."""
    flags: dict[str, tuple[Param, list[str]]] = {}
    for name in SELECTORS:
        for prm in METHODS[name].params:
            flags.setdefault(prm.cli_flag, (prm, []))[1].append(name)
    return flags


def add_parser(sub) -> None:
    p = sub.add_parser(
        "select",
        help="select features on a training file and print them in order",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("train", metavar="TRAIN", help="LETOR/SVMlight training file (.gz ok)")
    p.add_argument("--method", required=True, choices=SELECTORS, help="selection method")
    p.add_argument("-k", "--n-features", type=int, default=None, dest="k",
                   help="number of features to select (default: the method's, 10; sparse methods: "
                        "at most k, the weakest regularisation on the path that keeps at most k)")
    p.add_argument("--vali", metavar="VALI",
                   help=f"validation file: report NDCG@10 and MAP ({VALI_CONVENTION} conventions) per prefix")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    for flag, (prm, names) in _selector_flags().items():
        defaults = {n: METHODS[n].defaults()[prm.name] for n in names}
        shown = ", ".join(f"{n}: {d}" for n, d in defaults.items())
        p.add_argument(flag, dest=prm.dest, type=prm.type, choices=prm.choices, default=argparse.SUPPRESS,
                       help=f"{', '.join(names)}: {prm.help} (default {shown})")
    add_cost_arguments(p)  # --costs, --budget (rankselect.analysis.costs)
    p.set_defaults(handler=run)


def _given_params(args: argparse.Namespace, method) -> dict[str, object]:
    """The method's parameters the user set; a flag of another method is a ValueError."""
    own = {prm.cli_flag for prm in method.params}
    params = {}
    for flag, (prm, names) in _selector_flags().items():
        if not hasattr(args, prm.dest):
            continue
        if flag not in own:
            allowed = " ".join(sorted(own | {"-k"}))
            raise ValueError(f"{flag} does not apply to --method {method.name} (it takes {allowed}); "
                             f"{flag} is an option of {', '.join(names)}")
        params[prm.name] = getattr(args, prm.dest)
    return params


def _fit_path(method, params, k, X, y, qid):
    """Sparse method with ``-k``: the weakest regularisation on its path whose model keeps at
    most ``k`` features. Returns (estimator, note)."""
    if method.path_param == "C":
        est = method.build(**params)
        path = est.path(X, y, qid, n_Cs=30, ratio=1e4)
        ok = np.flatnonzero(path.n_selected <= k)
        if ok.size == 0:
            raise ValueError(f"no C on the path of {method.name} keeps at most {k} features")
        i = int(ok[-1])
        est.set_params(C=float(path.Cs[i])).fit(X, y, qid=qid, coef_init=path.coefs[i])
        value = float(path.Cs[i])
    else:  # fsmrank: lambda2 from strong to weak regularisation, then bisection in log scale
        def fit_at(lam):
            return method.build(**{**params, method.path_param: float(lam)}).fit(X, y, qid=qid)

        est, value, too_many = None, None, None
        for lam in np.logspace(1, -6, 15):
            cand = fit_at(lam)
            if np.count_nonzero(cand.coef_) > k:
                too_many = float(lam)
                break
            est, value = cand, float(lam)
        if est is None:
            raise ValueError(f"no {method.path_param} on the path of {method.name} keeps at most {k} features")
        for _ in range(6 if too_many is not None else 0):
            mid = float(np.sqrt(value * too_many))
            cand = fit_at(mid)
            if np.count_nonzero(cand.coef_) > k:
                too_many = mid
            else:
                est, value = cand, mid
    n_sel = len(est.selected_features_)
    note = (f"-k {k}: {method.path_param}={value:.6g}, the weakest regularisation on the path with at most "
            f"{k} features ({n_sel} selected)")
    return est, note


def _validation_rows(est, selected, Xv, yv, qv, Xt, yt, qt):
    def scores_of(pred):
        return (metrics.ndcg(yv, pred, qv, k=10, convention=VALI_CONVENTION),
                metrics.mean_average_precision(yv, pred, qv, convention=VALI_CONVENTION))

    path = getattr(est, "coef_path_", None)
    if path is not None:
        return [scores_of(Xv @ path[i]) for i in range(len(selected))]
    if hasattr(est, "predict"):
        final = scores_of(est.predict(Xv))
        return [None] * (len(selected) - 1) + [final]
    # A filter (e.g. GAS) has no model: score every prefix with RankRLS on those features.
    rows = []
    for i in range(len(selected)):
        cols = selected[: i + 1]
        ranker = RankRLS(alpha=PREFIX_RANKER_ALPHA).fit(Xt[:, cols], yt, qid=qt)
        rows.append(scores_of(ranker.predict(Xv[:, cols])))
    return rows


def _reported_params(method, est, params: dict, k: Optional[int]) -> dict:
    """The parameters ``--json`` reports: the user's (by name, as given, for a method built from
    names such as ``--ranker``), else the estimator's."""
    if method.make:
        return {**params, **({method.k: k} if k is not None else {})}
    return {name: v for name, v in est.get_params().items() if name in params or name == method.k}
_STOP_REASONS = {
    "uninformative": "the other features are constant within every query (they carry no ranking information)",
    "min_improvement": "no further feature improves the criterion by min_improvement",
    "budget": "no further feature fits in the budget",
}


def _short_note(est, k: int, got: int, n_features: int) -> str:
    """Why fewer than ``-k`` features were selected."""
    reason = _STOP_REASONS.get(str(getattr(est, "stop_reason_", "")))
    if reason is None:
        reason = ("the file has only that many features" if got >= n_features else
                  "the method selected no more (features constant within every query or without weight)")
    return f"-k {k}: {got} features selected because {reason}"


def run(args: argparse.Namespace) -> int:
    method = METHODS[args.method]
    params = _given_params(args, method)
    if args.k is not None and args.k < 1:
        raise ValueError(f"-k must be >= 1, got {args.k}")
    note: Optional[str] = None
    train = load_letor(args.train)
    if method.k == "path" and args.k is not None:
        if method.path_param in params:
            flag = next(p.cli_flag for p in method.params if p.name == method.path_param)
            raise ValueError(f"give -k or {flag} to {method.name}, not both: -k picks {method.path_param} on the path")
        if getattr(args, "costs", None) is not None or getattr(args, "budget", None) is not None:
            raise ValueError(f"--costs/--budget with -k on {method.name}: give --C instead of -k")
        est, note = _fit_path(method, params, args.k, train.X, train.y, train.qid)
        costs, groups = None, None
    else:
        if method.k not in (None, "path") and args.k is not None:
            params[method.k] = args.k
        est = method.build(**params)
        groups = apply_groups(est, args, train.X.shape[1])
        costs = apply_costs(est, args, train.X.shape[1])
        if args.vali and "validation" in est.get_params():  # a ranker in the loop scores on --vali
            v = load_letor(args.vali, n_features=train.X.shape[1])
            est.set_params(validation=(v.X, v.y, v.qid))
        est.fit(train.X, train.y, qid=train.qid)
    selected = [int(j) for j in est.selected_features_]
    if args.k is not None and len(selected) < args.k and not note:
        note = _short_note(est, args.k, len(selected), train.X.shape[1])
    step_scores = method.step_scores(est)
    group_of = None if groups is None else [groups.names[groups.index[j]] for j in selected]
    if step_scores is not None and len(step_scores) != len(selected) and group_of is not None:
        # whole groups: one score per group step, shown on the group's last feature
        ends = [i for i in range(len(selected)) if i + 1 == len(selected) or group_of[i + 1] != group_of[i]]
        by_row: list = [None] * len(selected)
        for i, s in zip(ends, step_scores):
            by_row[i] = s
        step_scores = by_row
    levels = {} if groups is None else cost_summary(costs, groups, est, selected)
    vali_rows = None
    if args.vali:
        vali = load_letor(args.vali, n_features=train.X.shape[1])
        vali_rows = _validation_rows(est, selected, vali.X, vali.y, vali.qid, train.X, train.y, train.qid)
    if args.json:
        out = {
            "method": args.method,
            "train": args.train,
            "params": _reported_params(method, est, params, args.k),
            "selected_features": [j + 1 for j in selected],
            "score_name": method.score_label(est),
            "scores": None if step_scores is None else [None if s is None else float(s) for s in step_scores],
            "n_features": int(train.X.shape[1]),
            "coef": None if getattr(est, "coef_", None) is None else [float(w) for w in est.coef_],
        }
        if costs is not None:
            out["total_cost"] = total_cost(costs, selected)
        if group_of is not None:
            out["groups"] = group_of
            out["selected_groups"] = [str(g) for g in getattr(est, "selected_groups_", [])]
        out.update(levels)
        if note:
            out["note"] = note
        if vali_rows is not None:
            out["validation_convention"] = VALI_CONVENTION
            out["validation"] = [None if r is None else {"NDCG@10": r[0], "MAP": r[1]} for r in vali_rows]
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    header = ["step", "feature"] + ([] if group_of is None else ["group"])
    if step_scores is not None:
        header.append(method.score_label(est) or "score")
    if vali_rows is not None:
        header += ["vali NDCG@10", "vali MAP"]
    print(f"# {args.method} on {args.train}: {plural(len(selected), 'feature')} (numbered as in the file)")
    if note:
        print(f"# {note}")
    if vali_rows is not None:
        print(f"# validation scores: {args.vali}, {VALI_CONVENTION} conventions")
    print("  ".join(f"{h:>12}" for h in header))
    for i, j in enumerate(selected):
        row = [f"{i + 1:>12d}", f"{j + 1:>12d}"] + ([] if group_of is None else [f"{group_of[i]:>12}"])
        if step_scores is not None:
            row.append(f"{'':>12}" if step_scores[i] is None else f"{float(step_scores[i]):>12.6g}")
        if vali_rows is not None:
            r = vali_rows[i]
            row += [f"{'':>12}", f"{'':>12}"] if r is None else [f"{r[0]:>12.4f}", f"{r[1]:>12.4f}"]
        print("  ".join(row))
    if costs is not None and not levels:
        budget = "" if args.budget is None else f" (budget {args.budget:g})"
        print(f"# total cost {total_cost(costs, selected):.6g}{budget}")
    elif levels:
        budget = "" if args.budget is None else f" (budget {args.budget:g})"
        paid = "" if "groups_paid" not in levels else f"; groups paid for: {', '.join(levels['groups_paid'])}"
        print(f"# total cost {levels['total_cost']:.6g} (features {levels['feature_cost']:.6g}){budget}{paid}")
    return 0
