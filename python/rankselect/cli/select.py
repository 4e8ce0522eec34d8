"""``rankselect select --method METHOD [-k K] [options] TRAIN [--vali VALI] [--json]``

Every selector prints the same shape: one row per selected feature, in selection order,
with the feature number as in the file (1-based), the method's per-step score (its name
given by the method), and, with ``--vali``, validation NDCG@10 and MAP (``--convention``,
default exponential, named in the header) of the model that uses the features selected so far
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
size by ``--selection-rule``. Their rows show the ranker's own scores that made the selection
(``--scoring``, mean over the validation queries, with its 95 % t-interval over queries, from
the selector's ``path_``) for every prefix of the selection the selector scored (blank for a
prefix it never scored), followed by every subset it scored; no other model is fitted.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Optional

import numpy as np

from .. import metrics
from ..analysis.costs import total_cost
from ..data import load_letor
from ..methods import METHODS, SELECTORS, Param
from ..metrics.checks import DEFAULT_CONVENTION
from ..models import RankRLS
from ..models.penalties import check_penalty
from ..selection.wrapper import SelectionPath
from .common import add_convention_argument, conventions_of, plural
from .costs import add_cost_arguments, apply_costs, apply_groups, cost_summary

#: the default convention of the validation scores ``select --vali`` prints (``--convention``)
VALI_CONVENTION = DEFAULT_CONVENTION
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
                   help="validation file: report NDCG@10 and MAP (--convention) per prefix; rfe and forward "
                        "score every subset on it with their ranker and report those scores (--scoring)")
    add_convention_argument(p, VALI_CONVENTION)
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
    walk = ""
    if method.path_param == "C":
        est = method.build(**params)
        # The path's 30 warm-started solves with FISTA took about 8x as long as with the
        # proximal Newton solver (issue #35: 100 s against 12 s, the same features): the path is
        # walked with prox-newton, the model at the chosen C is fitted with the user's solver.
        walker = est
        over_groups = check_penalty(params.get("penalty", "l1")).over_groups  # FISTA only: walked with it
        if params.get("solver", "prox-newton") != "prox-newton" and not over_groups:
            walker = method.build(**{**params, "solver": "prox-newton"})
            walk = f"; the path walked with solver prox-newton, the model fitted with {params['solver']}"
        path = walker.path(X, y, qid, n_Cs=30, ratio=1e4)
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
            f"{k} features ({n_sel} selected){walk}")
    return est, note


def _loop_rows(path: SelectionPath, selected) -> list[Optional[tuple[float, float, float]]]:
    """For each prefix of the selection, (score, ci_low, ci_high) of the last step of the
    ranker-in-the-loop ``path`` that scored exactly that subset; None if none did."""
    steps = {frozenset(int(j) for j in f): s for s, f in enumerate(path.features)}
    rows: list[Optional[tuple[float, float, float]]] = []
    for i in range(len(selected)):
        s = steps.get(frozenset(selected[: i + 1]))
        rows.append(None if s is None else (float(path.scores[s]), float(path.ci_low[s]), float(path.ci_high[s])))
    return rows


def _finite(v) -> Optional[float]:
    """A float for JSON (None for NaN / inf)."""
    return float(v) if np.isfinite(v) else None


def _path_json(path: SelectionPath) -> list[dict]:
    return [{"n_features": int(path.n_features[s]), "score": _finite(path.scores[s]),
             "ci_low": _finite(path.ci_low[s]), "ci_high": _finite(path.ci_high[s]),
             "features": [int(j) + 1 for j in path.features[s]]} for s in range(len(path))]


def _validation_rows(est, selected, Xv, yv, qv, Xt, yt, qt, convention: str = VALI_CONVENTION):
    def scores_of(pred):
        return (metrics.ndcg(yv, pred, qv, k=10, convention=convention),
                metrics.mean_average_precision(yv, pred, qv, convention=convention))

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
    used = {name: (v.tolist() if isinstance(v, np.ndarray) else v) for name, v in est.get_params().items()}
    costs = {name: used[name] for name in ("feature_costs", "budget") if used.get(name) is not None}
    if method.make:
        return {**params, **({method.k: k} if k is not None else {}), **costs}
    keep = set(params) | {method.k, method.path_param}  # path methods: the value -k chose
    return {**{name: v for name, v in used.items() if name in keep}, **costs}
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
    convention = conventions_of(args.convention, "rankselect select")[0]
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
            takes = "feature_costs" in method.build().get_params()
            flag = next(p.cli_flag for p in method.params if p.name == method.path_param)
            raise ValueError(f"--costs/--budget with -k on {method.name}: give {flag} instead of -k"
                             if takes else f"{method.name} takes no feature costs (--costs/--budget)")
        est, note = _fit_path(method, params, args.k, train.X, train.y, train.qid)
        costs, groups = None, None
    else:
        if method.k not in (None, "path") and args.k is not None:
            params[method.k] = args.k
        est = method.build(**params)
        if "validation" in est.get_params():  # a ranker in the loop scores in --convention
            est.set_params(convention=convention)
        groups = apply_groups(est, args, train.X.shape[1])
        costs = apply_costs(est, args, train.X.shape[1])
        if args.vali and "validation" in est.get_params():  # a ranker in the loop scores on --vali
            v = load_letor(args.vali, n_features=train.X.shape[1])
            est.set_params(validation=(v.X, v.y, v.qid))
        est.fit(train.X, train.y, qid=train.qid)
    selected = [int(j) for j in est.selected_features_]
    if args.k is not None and len(selected) < args.k and not note:
        note = _short_note(est, args.k, len(selected), train.X.shape[1])
    step_scores: Optional[Sequence[Optional[float]]] = method.step_scores(est)
    score_name = method.score_label(est)
    found = getattr(est, "path_", None)
    path: Optional[SelectionPath] = found if isinstance(found, SelectionPath) else None
    loop_rows = _loop_rows(path, selected) if path is not None else None
    if loop_rows is not None:  # the ranker's own scores, on --vali or on query folds of TRAIN
        where = "vali" if est.validation is not None else "cv"
        score_name = f"{where} {est.scoring}"
        step_scores = [None if r is None else r[0] for r in loop_rows]
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
    if args.vali and loop_rows is None:
        vali = load_letor(args.vali, n_features=train.X.shape[1])
        vali_rows = _validation_rows(est, selected, vali.X, vali.y, vali.qid, train.X, train.y, train.qid,
                                     convention)
    if args.json:
        out = {
            "method": args.method,
            "train": args.train,
            "params": _reported_params(method, est, params, args.k),
            "selected_features": [j + 1 for j in selected],
            "score_name": score_name,
            "scores": None if step_scores is None else [None if s is None else float(s) for s in step_scores],
            "n_features": int(train.X.shape[1]),
            "coef": None if getattr(est, "coef_", None) is None else [float(w) for w in est.coef_],
        }
        if costs is not None:
            out["costs_file"] = args.costs
            out["total_cost"] = total_cost(costs, selected)
        if loop_rows is not None and path is not None:
            out["score_ci"] = [None if r is None else [_finite(r[1]), _finite(r[2])] for r in loop_rows]
            out["score_convention"] = est.convention
            out["path"] = _path_json(path)
        if group_of is not None:
            out["groups"] = group_of
            out["selected_groups"] = [str(g) for g in getattr(est, "selected_groups_", [])]
        out.update(levels)
        if note:
            out["note"] = note
        if vali_rows is not None:
            out["validation_convention"] = convention
            out["validation"] = [None if r is None else {"NDCG@10": r[0], "MAP": r[1]} for r in vali_rows]
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    header = ["step", "feature"] + ([] if group_of is None else ["group"])
    if step_scores is not None:
        header.append(score_name or "score")
    if loop_rows is not None:
        header.append("95% CI")
    if vali_rows is not None:
        header += ["vali NDCG@10", "vali MAP"]
    print(f"# {args.method} on {args.train}: {plural(len(selected), 'feature')} (numbered as in the file)")
    if note:
        print(f"# {note}")
    if vali_rows is not None:
        print(f"# validation scores: {args.vali}, {convention} convention")
    if loop_rows is not None:
        on = args.vali if est.validation is not None else "query folds of TRAIN"
        print(f"# {score_name}: the {args.method} ranker's own score of the subset on {on} ({est.convention} "
              "convention), mean over queries and its 95% t-interval; blank: a prefix it did not score")
    print("  ".join(f"{h:>12}" for h in header))
    for i, j in enumerate(selected):
        row = [f"{i + 1:>12d}", f"{j + 1:>12d}"] + ([] if group_of is None else [f"{group_of[i]:>12}"])
        if step_scores is not None:
            step = step_scores[i]
            row.append(f"{'':>12}" if step is None else f"{float(step):>12.6g}")
        if loop_rows is not None:
            r = loop_rows[i]
            row.append(f"{'':>12}" if r is None else f"[{r[1]:.4f}, {r[2]:.4f}]")
        if vali_rows is not None:
            r = vali_rows[i]
            row += [f"{'':>12}", f"{'':>12}"] if r is None else [f"{r[0]:>12.4f}", f"{r[1]:>12.4f}"]
        print("  ".join(row))
    if costs is not None and not levels:
        budget = "" if args.budget is None else f" (budget {args.budget:g})"
        print(f"# total cost {total_cost(costs, selected):.6g}{budget}")
    if levels:
        budget = "" if args.budget is None else f" (budget {args.budget:g})"
        paid = "" if "groups_paid" not in levels else f"; groups paid for: {', '.join(levels['groups_paid'])}"
        print(f"# total cost {levels['total_cost']:.6g} (features {levels['feature_cost']:.6g}){budget}{paid}")
    if path is not None:
        print(f"# every subset scored ({score_name}, 95% CI, features):")
        for s in range(len(path)):
            feats = " ".join(str(int(j) + 1) for j in path.features[s])
            print(f"#   {int(path.n_features[s]):>4d}  {path.scores[s]:.4f}  "
                  f"[{path.ci_low[s]:.4f}, {path.ci_high[s]:.4f}]  {feats}")
    return 0
