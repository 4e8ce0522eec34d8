"""``rankselect demo``: the main job on the example data shipped with the package.

Runs greedy RankRLS (exact leave-query-out selection) on the shipped synthetic LETOR
example, whose features are known to be informative, redundant copies, noise or constant,
and shows, step by step, which kind of feature was chosen, the LQO squared error, and the
validation NDCG@10 / MAP of the model on the features selected so far. The number of
features is then chosen by validation MAP and the chosen model is scored on the test split
(LETOR conventions).
"""
from __future__ import annotations

import argparse

import numpy as np

from .. import metrics
from ..data.datasets import example_path, example_truth, load_example
from ..selection import GreedyRankRLS
from .common import plural


def add_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="run greedy RankRLS on the shipped example data and show what it recovers",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-k", type=int, default=10, help="features to select (default 10)")
    p.add_argument("--alpha", type=float, default=1.0, help="ridge parameter (default 1)")
    p.set_defaults(handler=run)


def _role(j: int, truth) -> str:
    if j in set(truth.informative.tolist()):
        return "informative"
    if j in truth.redundant_of:
        return f"redundant copy of {truth.redundant_of[j] + 1}"
    if j in set(truth.constant.tolist()):
        return "constant"
    return "noise"


def run(args: argparse.Namespace) -> int:
    train, vali, test = (load_example(s) for s in ("train", "vali", "test"))
    truth = example_truth()
    print(f"# example data: {example_path('train').parent}")
    print(f"# train: {train.X.shape[0]} documents, {len(np.unique(train.qid))} queries, "
          f"{train.X.shape[1]} features (informative: "
          f"{', '.join(str(j + 1) for j in truth.informative)})")
    model = GreedyRankRLS(n_features_to_select=args.k, alpha=args.alpha).fit(train.X, train.y, qid=train.qid)

    print(f"{'step':>4}  {'feature':>7}  {'kind':<22}  {'LQO squared':>11}  {'vali NDCG@10':>12}  {'vali MAP':>8}")
    vali_map = []
    for i, j in enumerate(model.selected_features_):
        s = vali.X @ model.coef_path_[i]
        ndcg = metrics.ndcg(vali.y, s, vali.qid, k=10, convention="letor")
        ap = metrics.mean_average_precision(vali.y, s, vali.qid, convention="letor")
        vali_map.append(ap)
        print(f"{i + 1:>4}  {j + 1:>7}  {_role(int(j), truth):<22}  {model.lqo_scores_[i]:>11.4f}  "
              f"{ndcg:>12.4f}  {ap:>8.4f}")

    constant = [int(j) + 1 for j in truth.constant]
    if model.stop_reason_ == "uninformative":
        print(f"stopped after {len(model.selected_features_)} of {args.k} steps: every remaining feature is "
              "constant within every query, so none can change the model")
    if constant:
        print(f"features {', '.join(map(str, constant))} are constant within every query: they cannot change "
              "the model and are never selected")
    informative = set(truth.informative.tolist())
    order = [int(j) for j in model.selected_features_]
    first_other = next((i for i, j in enumerate(order) if j not in informative), len(order))
    found = informative & set(order)
    print()
    print(f"informative features recovered: {len(found)} of {len(informative)}; "
          f"the first {plural(first_other, 'step')} chose only informative features"
          + (" (all of them before any redundant copy or noise feature)"
             if found == informative and first_other == len(informative) else ""))
    best = int(np.argmax(vali_map))
    s = test.X @ model.coef_path_[best]
    print(f"k chosen by validation MAP: {best + 1}; test MAP "
          f"{metrics.mean_average_precision(test.y, s, test.qid, convention='letor'):.4f}, "
          f"NDCG@10 {metrics.ndcg(test.y, s, test.qid, k=10, convention='letor'):.4f} (LETOR conventions)")
    return 0
