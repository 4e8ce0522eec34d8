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
from typing import Any, Optional

import numpy as np
from sklearn.base import clone

from .. import metrics
from ..data import RankingData, load_letor
from ..data.feature_groups import FeatureGroups
from ..methods import METHODS, SELECTORS, Method, Param
from ..metrics.checks import DEFAULT_CONVENTION
from ..models import RankRLS
from ..models.penalties import check_penalty
from ..selection.wrapper import SelectionPath
from .common import add_convention_argument, conventions_of
from .costs import add_cost_arguments, apply_costs, apply_groups, cost_summary
from .report import add_report_argument, check_report_arguments, write_select_report
from .select_result import LoopScores, SelectResult

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
    p.add_argument("--method", required=True, choices=SELECTORS, metavar="METHOD",
                   help=f"selection method: {', '.join(SELECTORS)}")
    p.add_argument("-k", "--n-features", type=int, default=None, dest="k",
                   help="number of features to select (default: the method's, 10; sparse methods: "
                        "at most k, the weakest regularisation on the path that keeps at most k; "
                        "whole groups: the number of groups)")
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
    add_cost_arguments(p)  # --costs, --budget, --groups, --layout (rankselect.analysis.costs)
    add_report_argument(p)  # --report FILE (rankselect.cli.report)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = compute(args)
    print(json.dumps(result.to_json(), indent=2) if args.json else result.text())
    return 0


# -- computing: the estimator, its fit, the scores of its steps ------------------------------


def compute(args: argparse.Namespace) -> SelectResult:
    """Fit ``--method`` on TRAIN as the options say and score its steps (on ``--vali``);
    every input is read and checked before the fit."""
    convention = conventions_of(args.convention, "rankselect select")[0]
    method = METHODS[args.method]
    params = _given_params(args, method)
    if args.k is not None and args.k < 1:
        raise ValueError(f"-k must be >= 1, got {args.k}")
    check_report_arguments(args)
    train = load_letor(args.train)
    n = train.X.shape[1]
    vali = load_letor(args.vali, n_features=n) if args.vali else None
    on_path = method.k == "path" and args.k is not None
    if on_path:
        _check_path_options(args, method, params)
    elif method.k is not None and args.k is not None:
        params[method.k] = args.k
    est = method.build(**params)
    groups = apply_groups(est, args, n)
    costs = apply_costs(est, args, n)
    if "validation" in est.get_params():  # a ranker in the loop scores in --convention, on --vali
        est.set_params(convention=convention)
        if vali is not None:
            est.set_params(validation=(vali.X, vali.y, vali.qid))
    notes = []
    if on_path:
        est, note = _fit_path(method, est, args.k, train, groups)
        notes.append(note)
    else:
        est.fit(train.X, train.y, qid=train.qid)
    if args.report:
        write_select_report(args, est, train, vali, groups, costs)
    selected = [int(j) for j in est.selected_features_]
    group_of = None if groups is None else [groups.names[groups.index[j]] for j in selected]
    steps = _steps(method, est, group_of)
    n_steps = steps[-1] if steps else 0
    if args.k is not None and n_steps < args.k and not on_path:
        notes.append(_short_note(est, args.k, n_steps, n, "group" if n_steps != len(selected) else "feature"))
    score_name = method.score_label(est)
    scores = _on_last_rows(method.step_scores(est), steps)
    found = getattr(est, "path_", None)
    loop = None
    if isinstance(found, SelectionPath):  # the ranker's own scores, on --vali or on query folds of TRAIN
        rows = _loop_rows(found, selected, steps)
        loop = LoopScores(rows, est.convention, args.vali if vali is not None else "query folds of TRAIN",
                          _path_json(found))
        score_name = f"{'vali' if vali is not None else 'cv'} {est.scoring}"
        scores = [None if r is None else r[0] for r in rows]
    validation = None
    if vali is not None and loop is None:
        validation = _validation_rows(est, selected, steps, vali, train, convention)
    return SelectResult(
        method=args.method, train=args.train, n_features=n, params=_reported_params(method, est, params, args.k),
        selected=selected, steps=steps, score_name=score_name, scores=scores, groups=group_of,
        selected_groups=None if groups is None else [str(g) for g in getattr(est, "selected_groups_", [])],
        coef=None if getattr(est, "coef_", None) is None else [float(w) for w in est.coef_],
        costs=cost_summary(costs, groups, est, selected, args), loop=loop, vali=args.vali,
        validation_convention=None if validation is None else convention, validation=validation, notes=notes)


def _given_params(args: argparse.Namespace, method: Method) -> dict[str, object]:
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


def _path_flag(method: Method) -> str:
    return next(p.cli_flag for p in method.params if p.name == method.path_param)


def _check_path_options(args: argparse.Namespace, method: Method, params: dict) -> None:
    """``-k`` on a sparse method: not with the path parameter, nor with costs."""
    if method.path_param in params:
        raise ValueError(f"give -k or {_path_flag(method)} to {method.name}, not both: -k picks "
                         f"{method.path_param} on the path")
    if getattr(args, "costs", None) is not None or getattr(args, "budget", None) is not None:
        takes = "feature_costs" in method.build().get_params()
        raise ValueError(f"--costs/--budget with -k on {method.name}: give {_path_flag(method)} instead of -k"
                         if takes else f"{method.name} takes no feature costs (--costs/--budget)")


def _fit_path(method: Method, est, k: int, train: RankingData, groups: Optional[FeatureGroups]):
    """Sparse method with ``-k``: the weakest regularisation on its path whose model keeps at
    most ``k`` units (features, or whole groups). Returns (estimator, note)."""
    X, y, qid = train.X, train.y, train.qid
    whole = groups is not None and bool(est.get_params().get("select_groups"))

    def units(coefs: np.ndarray) -> np.ndarray:
        """The number of features (whole groups: groups) of each row of ``coefs``."""
        if whole:
            assert groups is not None
            return np.array([np.unique(groups.index[c != 0]).size for c in coefs])
        return np.count_nonzero(coefs, axis=1)

    walk = ""
    if method.path_param == "C":
        # The path's 30 warm-started solves with FISTA took about 8x as long as with the
        # proximal Newton solver (issue #35: 100 s against 12 s, the same features): the path is
        # walked with prox-newton when the penalty allows it, the model at the chosen C is
        # fitted with the user's solver.
        walker = est
        over_groups = check_penalty(est.penalty).over_groups  # FISTA only: walked with it
        if est.solver != "prox-newton" and not over_groups:
            walker = clone(est).set_params(solver="prox-newton")
            walk = f"; the path walked with solver prox-newton, the model fitted with {est.solver}"
        path = walker.path(X, y, qid, n_Cs=30, ratio=1e4)
        ok = np.flatnonzero(units(path.coefs) <= k)
        if ok.size == 0:
            raise ValueError(f"no C on the path of {method.name} keeps at most {k} {'groups' if whole else 'features'}")
        i = int(ok[-1])
        est.set_params(C=float(path.Cs[i])).fit(X, y, qid=qid, coef_init=path.coefs[i])
        value = float(path.Cs[i])
    else:  # fsmrank: lambda2 from strong to weak regularisation, then bisection in log scale
        def fit_at(lam):
            return clone(est).set_params(**{method.path_param: float(lam)}).fit(X, y, qid=qid)

        def too_many(fitted) -> bool:
            return int(units(fitted.coef_[None, :])[0]) > k

        best, value, over = None, None, None
        for lam in np.logspace(1, -6, 15):
            cand = fit_at(lam)
            if too_many(cand):
                over = float(lam)
                break
            best, value = cand, float(lam)
        if best is None or value is None:
            raise ValueError(f"no {method.path_param} on the path of {method.name} keeps at most {k} "
                             f"{'groups' if whole else 'features'}")
        for _ in range(6 if over is not None else 0):
            assert over is not None
            mid = float(np.sqrt(value * over))
            cand = fit_at(mid)
            if too_many(cand):
                over = mid
            else:
                best, value = cand, mid
        est = best
    unit = "groups" if whole else "features"
    n_sel = int(units(est.coef_[None, :])[0])
    note = (f"-k {k}: {method.path_param}={value:.6g}, the weakest regularisation on the path with at most "
            f"{k} {unit} ({n_sel} selected){walk}")
    return est, note


def _steps(method: Method, est, group_of: Optional[list[str]]) -> list[int]:
    """The step (1-based) that added each selected feature: one feature per step, or one group
    per step when a stepwise selector added whole groups."""
    n = len(est.selected_features_)
    whole = group_of is not None and method.k == "n_features_to_select" and bool(est.get_params().get("select_groups"))
    if not whole:
        return list(range(1, n + 1))
    assert group_of is not None
    order = list(dict.fromkeys(group_of))
    return [order.index(g) + 1 for g in group_of]


def _last_rows(steps: list[int]) -> list[int]:
    """The row of each step's last feature, step by step."""
    last: dict[int, int] = {}
    for i, s in enumerate(steps):
        last[s] = i
    return [last[s] for s in sorted(last)]


def _on_last_rows(values, steps: list[int]) -> Optional[list[Optional[float]]]:
    """A value per row: per-step values on the row of each step's last feature (None on the
    other rows of the step); per-row values as they are."""
    if values is None:
        return None
    values = [None if v is None else float(v) for v in values]
    if len(values) == len(steps):
        return values
    ends = _last_rows(steps)
    if len(values) != len(ends):
        raise ValueError(f"{len(values)} step scores for {len(ends)} steps")  # a selector's inconsistency
    rows: list[Optional[float]] = [None] * len(steps)
    for i, v in zip(ends, values):
        rows[i] = v
    return rows


def _prefixes(selected: list[int], steps: list[int]) -> list[tuple[int, list[int]]]:
    """(row of the step's last feature, the features selected up to that step) per step."""
    return [(i, [j for j, s in zip(selected, steps) if s <= steps[i]]) for i in _last_rows(steps)]


def _loop_rows(path: SelectionPath, selected: list[int],
               steps: list[int]) -> list[Optional[tuple[float, float, float]]]:
    """For each row, (score, ci_low, ci_high) of the last step of the ranker-in-the-loop
    ``path`` that scored exactly the subset selected up to that row's step (on the step's last
    row); None if none did."""
    scored = {frozenset(int(j) for j in f): s for s, f in enumerate(path.features)}
    rows: list[Optional[tuple[float, float, float]]] = [None] * len(selected)
    for i, prefix in _prefixes(selected, steps):
        s = scored.get(frozenset(prefix))
        if s is not None:
            rows[i] = (float(path.scores[s]), float(path.ci_low[s]), float(path.ci_high[s]))
    return rows


def _finite(v) -> Optional[float]:
    """A float for JSON (None for NaN / inf)."""
    return float(v) if np.isfinite(v) else None


def _path_json(path: SelectionPath) -> list[dict]:
    return [{"n_features": int(path.n_features[s]), "score": _finite(path.scores[s]),
             "ci_low": _finite(path.ci_low[s]), "ci_high": _finite(path.ci_high[s]),
             "features": [int(j) + 1 for j in path.features[s]]} for s in range(len(path))]


def _validation_rows(est, selected: list[int], steps: list[int], vali: RankingData, train: RankingData,
                     convention: str = VALI_CONVENTION) -> list[Optional[tuple[float, float]]]:
    """Validation (NDCG@10, MAP) per step, on the row of the step's last feature: of the
    model of each step (``coef_path_``: one row per step), of the final model (a method with
    one model), or of RankRLS on the features of each step (a filter, which has no model)."""
    def scores_of(pred) -> tuple[float, float]:
        return (float(metrics.ndcg(vali.y, pred, vali.qid, k=10, convention=convention)),
                float(metrics.mean_average_precision(vali.y, pred, vali.qid, convention=convention)))

    rows: list[Optional[tuple[float, float]]] = [None] * len(selected)
    prefixes = _prefixes(selected, steps)
    path = getattr(est, "coef_path_", None)
    if path is not None:
        if len(path) != len(prefixes):
            raise ValueError(f"coef_path_ has {len(path)} rows for {len(prefixes)} steps")  # a selector's bug
        for (i, _), w in zip(prefixes, path):
            rows[i] = scores_of(vali.X @ w)
    elif hasattr(est, "predict"):
        if selected:
            rows[-1] = scores_of(est.predict(vali.X))
    else:
        for i, cols in prefixes:
            ranker = RankRLS(alpha=PREFIX_RANKER_ALPHA).fit(train.X[:, cols], train.y, qid=train.qid)
            rows[i] = scores_of(ranker.predict(vali.X[:, cols]))
    return rows


def _reported_params(method: Method, est, params: dict, k: Optional[int]) -> dict[str, Any]:
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


def _short_note(est, k: int, got: int, n_features: int, unit: str) -> str:
    """Why fewer than ``-k`` features (or groups) were selected."""
    reason = _STOP_REASONS.get(str(getattr(est, "stop_reason_", "")))
    if reason is None:
        reason = ("the file has only that many features" if unit == "feature" and got >= n_features else
                  f"the method selected no more (the other {unit}s are constant within every query or without "
                  "weight)")
    return f"-k {k}: {got} {unit}s selected because {reason}"
