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
from dataclasses import dataclass

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


@dataclass(frozen=True)
class DemoResult:
    """What ``demo`` computed: the data's sizes, the steps of the selection (feature, its kind,
    LQO squared error, validation NDCG@10 and MAP), and the test scores of the k chosen by
    validation MAP."""

    folder: str
    n_rows: int
    n_queries: int
    n_features: int
    informative: list[int]
    constant: list[int]
    k: int
    steps: list[tuple[int, str, float, float, float]]
    stopped_uninformative: bool
    best_k: int
    test_map: float
    test_ndcg: float

    def text(self) -> str:
        lines = [f"# example data: {self.folder}",
                 f"# train: {self.n_rows} documents, {self.n_queries} queries, {self.n_features} features "
                 f"(informative: {', '.join(str(j + 1) for j in self.informative)})",
                 f"{'step':>4}  {'feature':>7}  {'kind':<22}  {'LQO squared':>11}  {'vali NDCG@10':>12}  "
                 f"{'vali MAP':>8}"]
        for i, (j, kind, lqo, ndcg, ap) in enumerate(self.steps):
            lines.append(f"{i + 1:>4}  {j + 1:>7}  {kind:<22}  {lqo:>11.4f}  {ndcg:>12.4f}  {ap:>8.4f}")
        if self.stopped_uninformative:
            lines.append(f"stopped after {len(self.steps)} of {self.k} steps: every remaining feature is "
                         "constant within every query, so none can change the model")
        if self.constant:
            lines.append(f"features {', '.join(str(j + 1) for j in self.constant)} are constant within every "
                         "query: they cannot change the model and are never selected")
        informative = set(self.informative)
        order = [j for j, *_ in self.steps]
        first_other = next((i for i, j in enumerate(order) if j not in informative), len(order))
        found = informative & set(order)
        lines += ["", f"informative features recovered: {len(found)} of {len(informative)}; "
                      f"the first {plural(first_other, 'step')} chose only informative features"
                      + (" (all of them before any redundant copy or noise feature)"
                         if found == informative and first_other == len(informative) else ""),
                  f"k chosen by validation MAP: {self.best_k}; test MAP {self.test_map:.4f}, "
                  f"NDCG@10 {self.test_ndcg:.4f} (LETOR conventions)"]
        return "\n".join(lines)


def compute(k: int, alpha: float) -> DemoResult:
    """Greedy RankRLS on the example's train split, each step scored on its validation split,
    the size chosen by validation MAP scored on its test split."""
    if k < 1:
        raise ValueError(f"-k must be >= 1, got {k}")
    if not alpha > 0 or not np.isfinite(alpha):
        raise ValueError(f"--alpha must be a finite number > 0, got {alpha}")
    train, vali, test = (load_example(s) for s in ("train", "vali", "test"))
    truth = example_truth()
    model = GreedyRankRLS(n_features_to_select=k, alpha=alpha).fit(train.X, train.y, qid=train.qid)
    steps = []
    for i, j in enumerate(model.selected_features_):
        s = vali.X @ model.coef_path_[i]
        steps.append((int(j), _role(int(j), truth), float(model.lqo_scores_[i]),
                      float(metrics.ndcg(vali.y, s, vali.qid, k=10, convention="letor")),
                      float(metrics.mean_average_precision(vali.y, s, vali.qid, convention="letor"))))
    best = int(np.argmax([ap for *_, ap in steps]))
    s = test.X @ model.coef_path_[best]
    return DemoResult(
        folder=str(example_path("train").parent), n_rows=train.X.shape[0], n_queries=len(np.unique(train.qid)),
        n_features=train.X.shape[1], informative=[int(j) for j in truth.informative],
        constant=[int(j) for j in truth.constant], k=k, steps=steps,
        stopped_uninformative=model.stop_reason_ == "uninformative", best_k=best + 1,
        test_map=float(metrics.mean_average_precision(test.y, s, test.qid, convention="letor")),
        test_ndcg=float(metrics.ndcg(test.y, s, test.qid, k=10, convention="letor")))


def run(args: argparse.Namespace) -> int:
    print(compute(args.k, args.alpha).text())
    return 0
