"""``rankselect train --model ranksvm [--C C] [--kernel nystroem|rff --components M --gamma G]
TRAIN --test TEST [--out SCORES] [--json]``

Trains a ranking model on TRAIN (LETOR / SVMlight file) and prints its test metrics in
both conventions side by side: "standard" (trec_eval style) and "letor" (LETOR 4.0's
Eval-Score-4.0.pl, the convention of the papers' tables). ``--out SCORES`` also writes the
model's score of every TEST row, one per line in TEST's row order (the format
``rankselect evaluate TEST --scores SCORES`` reads); ``--out -`` writes them to standard
output and the report to standard error.

Models are registered in ``MODELS``: ``name -> (build(args) -> estimator, add_arguments)``;
the estimator has ``fit(X, y, qid=...)`` and ``predict(X)``.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Dict, Tuple

import numpy as np

from . import plural

_REPORTED = ["NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "P@1", "P@3", "P@5", "P@10", "MAP", "MeanNDCG"]


def _ranksvm_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("ranksvm")
    g.add_argument("--C", type=float, default=1.0, help="loss weight C > 0 (default 1)")
    g.add_argument("--tol", type=float, default=1e-6,
                   help="relative gradient-norm tolerance (default 1e-6)")
    g.add_argument("--max-iter", type=int, default=100, help="maximum Newton steps (default 100)")
    g.add_argument("--kernel", choices=["linear", "nystroem", "rff"], default="linear",
                   help="kernel approximation before the linear RankSVM: RankNystroem (RBF "
                        "Nystroem map) or RankRandomFourier (Chen et al. 2017); default linear")
    g.add_argument("--components", type=int, default=500,
                   help="number of Nystroem landmarks / random features (default 500)")
    g.add_argument("--gamma", type=float, default=None,
                   help="RBF kernel width exp(-gamma ||x - x'||^2) (default 1 / n_features)")
    g.add_argument("--seed", type=int, default=0, help="random seed of the kernel map (default 0)")


def _build_ranksvm(args: argparse.Namespace):
    from ..ranksvm import RankSVM

    model = RankSVM(C=args.C, tol=args.tol, max_iter=args.max_iter)
    if args.kernel == "linear":
        return model
    from sklearn.pipeline import make_pipeline

    from ..kernel_approximation import Nystroem, RandomFourierFeatures

    if args.kernel == "nystroem":
        kmap = Nystroem("rbf", gamma=args.gamma, n_components=args.components,
                        random_state=args.seed)
    else:
        kmap = RandomFourierFeatures(gamma=1.0 if args.gamma is None else args.gamma,
                                     n_components=args.components, random_state=args.seed)
    return make_pipeline(kmap, model)


MODELS: Dict[str, Tuple[Callable[[argparse.Namespace], object], Callable[[argparse.ArgumentParser], None]]] = {
    "ranksvm": (_build_ranksvm, _ranksvm_arguments),
}


def add_parser(sub) -> None:
    p = sub.add_parser(
        "train",
        help="train a ranking model, print its test metrics (--out: write its test scores)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("train", metavar="TRAIN", help="training file (LETOR / SVMlight, .gz ok)")
    p.add_argument("--test", required=True, metavar="TEST", help="test file")
    p.add_argument("--model", choices=sorted(MODELS), default="ranksvm")
    p.add_argument("--out", metavar="SCORES",
                   help="write the test scores, one per line in TEST's row order (- for standard output)")
    p.add_argument("--json", action="store_true", help="print a JSON object instead of a table")
    seen = set()
    for _, add_arguments in MODELS.values():
        if add_arguments not in seen:
            add_arguments(p)
            seen.add(add_arguments)
    p.set_defaults(handler=run)


def _load(path, n_features=None):
    from ..data import load_letor

    return load_letor(path, n_features=n_features)


def run(args: argparse.Namespace) -> int:
    from .. import metrics

    build, _ = MODELS[args.model]
    model = build(args)
    train = _load(args.train)
    test = _load(args.test)
    # LETOR files may omit trailing all-zero features: align the widths.
    n = max(train.X.shape[1], test.X.shape[1])
    Xtr = np.pad(train.X, ((0, 0), (0, n - train.X.shape[1])))
    Xte = np.pad(test.X, ((0, 0), (0, n - test.X.shape[1])))
    import sklearn

    with sklearn.config_context(enable_metadata_routing=True):  # routes qid to RankSVM
        model.fit(Xtr, train.y, qid=train.qid)
    scores = model.predict(Xte)
    report = sys.stdout
    if args.out:
        _write_scores(args.out, scores)
        if args.out == "-":
            report = sys.stderr
    table = {conv: metrics.evaluate(test.y, scores, test.qid, convention=conv)
             for conv in ("standard", "letor")}
    final = model[-1] if hasattr(model, "steps") else model
    params = final.get_params()
    if final is not model:
        params["kernel"] = args.kernel
        params["components"] = args.components
        params["gamma"] = model[0].gamma
    info = {"model": args.model, "params": params}
    for attr in ("n_iter_", "objective_", "n_pairs_"):
        if hasattr(final, attr):
            info[attr.rstrip("_")] = getattr(final, attr)
    if args.json:
        out = dict(info)
        out["test"] = {conv: {k: float(table[conv][k]) for k in _REPORTED} for conv in table}
        print(json.dumps(out, indent=2, default=str), file=report)
        return 0
    params = " ".join(f"{k}={v}" for k, v in info["params"].items())
    extra = " ".join(f"{k}={v:.10g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in info.items() if k not in ("model", "params"))
    print(f"model: {args.model} ({params}) {extra}", file=report)
    for name, path, X, q in (("train:", args.train, Xtr, train.qid), ("test: ", args.test, Xte, test.qid)):
        print(f"{name} {path} ({plural(X.shape[0], 'row')}, {plural(len(np.unique(q)), 'query', 'queries')})",
              file=report)
    if args.out and args.out != "-":
        print(f"scores: {args.out} ({plural(len(scores), 'line')}, TEST's row order)", file=report)
    print(f"{'metric':<10} {'standard':>10} {'letor':>10}", file=report)
    for k in _REPORTED:
        print(f"{k:<10} {table['standard'][k]:>10.4f} {table['letor'][k]:>10.4f}", file=report)
    return 0


def _write_scores(path: str, scores) -> None:
    """One score per line (shortest text that reads back to the same float64)."""
    lines = (f"{s!r}\n" for s in np.asarray(scores, dtype=float).tolist())
    if path == "-":
        sys.stdout.writelines(lines)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)
