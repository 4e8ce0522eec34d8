"""``rankselect train TRAIN --test TEST --ranker lightgbm|xgboost|catboost [--features SELECTION]
[--save-model FILE] ...``: the production ranker on the selected subset (see ``train``).

The ranker is trained on the selected columns in selection order, under the set's names
(``--names FILE``, else ``feature_<number>``), so that ``rankselect export SELECTION --engine
... --model FILE`` maps its features by name. ``--save-model FILE`` writes LightGBM's model
text file, XGBoost's JSON model or CatBoost's binary model (whatever the file's extension).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional

import numpy as np

from .. import metrics
from ..data import load_letor
from ..deploy.names import check_feature_names, stored_names
from ..deploy.subset import default_name, subset_of
from .common import reading

__all__ = ["RANKERS", "features_of"]

#: the tree rankers ``train --ranker`` fits
RANKERS = ("lightgbm", "xgboost", "catboost")
_REPORTED = ["NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "P@1", "P@3", "P@5", "P@10", "MAP", "MeanNDCG"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--features", metavar="SELECTION",
                   help="train on the selected features only: the JSON of 'rankselect select --json' (a file, - for "
                        "standard input) or 1-based feature numbers, comma-separated (8,4,12)")
    p.add_argument("--ranker", choices=RANKERS,
                   help="train a LightGBM LGBMRanker, an XGBoost XGBRanker or a CatBoostRanker (lambdarank / "
                        "rank:ndcg / YetiRank), not --model")
    p.add_argument("--save-model", metavar="FILE",
                   help="--ranker: write the model (LightGBM model text, XGBoost JSON, CatBoost binary) for "
                        "'rankselect export --model'")
    p.add_argument("--names", metavar="FILE", help="--ranker: the data's feature names, one per line in column order")
    p.add_argument("--force", action="store_true", help="replace --save-model FILE / --out SCORES if they exist")
    p.add_argument("--n-estimators", type=int, default=100, help="--ranker: number of trees (default 100)")
    p.add_argument("--learning-rate", type=float, default=0.1, help="--ranker: shrinkage (default 0.1)")
    p.add_argument("--ranker-seed", type=int, default=0, help="--ranker: random seed (default 0, so that runs repeat)")


def features_of(text: str, n_features: int) -> list[int]:
    """0-based columns of ``--features``: numbers ``8,4,12`` or a selection JSON (file or ``-``).

    Examples
    --------
    >>> from rankselect.cli.train_ranker import features_of
    >>> features_of("8,4,12", 46)
    [7, 3, 11]
    >>> features_of('{"selected_features": [39, 32], "n_features": 46}', 46)
    [38, 31]
    """
    stripped = text.strip()
    if stripped and all(part.strip().isdigit() for part in stripped.split(",")):
        cols = [int(part) - 1 for part in stripped.split(",")]
        if min(cols) < 0:
            raise ValueError("--features: feature numbers are 1-based")
        return list(subset_of(cols, n_features=n_features).columns)
    source = sys.stdin.read() if text == "-" else text
    sub = subset_of(source if source.lstrip().startswith("{") else text)
    if sub.n_features > n_features:
        raise ValueError(f"--features: the selection refers to {sub.n_features} features, the data has {n_features}")
    return list(sub.columns)


def _names(path: Optional[str], n: int) -> list[str]:
    if path is None:
        return [default_name(j) for j in range(n)]
    with reading("--names", path), open(path, encoding="utf-8") as f:
        names = [line.strip() for line in f if line.strip()]
    if len(names) < n:
        raise ValueError(f"--names {path}: {len(names)} names for {n} features")
    return names[:n]


def _check_save_path(path: Optional[str], force: bool) -> None:
    """Refuse, before the fit, a --save-model that is a folder, in no folder, or an existing
    file without --force."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"--save-model {path} is a folder: give the model file's path (e.g. {p / 'model.txt'})")
    if not p.parent.is_dir():
        raise ValueError(f"--save-model {path}: the folder {str(p.parent)!r} does not exist")
    if p.exists() and not force:
        raise ValueError(f"--save-model {path} exists; pass --force to replace it")


def _fit(args, X, y, qid, names):
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    if args.ranker == "lightgbm":
        try:
            import lightgbm as lgb
        except ImportError:
            raise ModuleNotFoundError("--ranker lightgbm needs lightgbm (pip install lightgbm)",
                                      name="lightgbm") from None
        model = lgb.LGBMRanker(n_estimators=args.n_estimators, learning_rate=args.learning_rate,
                               random_state=args.ranker_seed, verbose=-1)
        return model.fit(X, y, group=np.diff(np.r_[starts, len(qid)]), feature_name=names)
    if args.ranker == "catboost":
        try:
            import catboost as cb
        except ImportError:
            raise ModuleNotFoundError("--ranker catboost needs catboost (pip install catboost)",
                                      name="catboost") from None
        model = cb.CatBoostRanker(iterations=args.n_estimators, learning_rate=args.learning_rate,
                                  random_seed=args.ranker_seed, loss_function="YetiRank", verbose=0,
                                  allow_writing_files=False)
        return model.fit(cb.Pool(X, y, group_id=qid, feature_names=list(names)))
    try:
        import xgboost as xgb
    except ImportError:
        raise ModuleNotFoundError("--ranker xgboost needs xgboost (pip install xgboost)", name="xgboost") from None
    model = xgb.XGBRanker(n_estimators=args.n_estimators, learning_rate=args.learning_rate,
                          random_state=args.ranker_seed, tree_method="hist")
    return model.fit(X, y, qid=qid)


def _save(model, ranker: str, path: str, names: list[str]) -> None:
    """The model file, its features named as the set's (LightGBM has them from ``fit``)."""
    if ranker == "lightgbm":
        model.booster_.save_model(path)
    elif ranker == "catboost":
        model.save_model(path, format="cbm")
    else:
        booster = model.get_booster().copy()
        booster.feature_names = names
        with open(path, "wb") as f:
            f.write(booster.save_raw("json"))


def run(args: argparse.Namespace, conventions: list[str], write_scores) -> int:
    _check_save_path(args.save_model, args.force)
    train = load_letor(args.train)
    test = load_letor(args.test)
    n = max(train.X.shape[1], test.X.shape[1])
    Xtr = np.pad(train.X, ((0, 0), (0, n - train.X.shape[1])))
    Xte = np.pad(test.X, ((0, 0), (0, n - test.X.shape[1])))
    cols = features_of(args.features, n) if args.features else list(range(n))
    all_names = _names(args.names, n)
    names = check_feature_names([all_names[j] for j in cols], f"--names {args.names}")
    # LightGBM stores a space as "_" and refuses JSON specials (XGBoost "[", "]", "<"): the
    # model gets names it can store, which the export maps back to these by position
    model = _fit(args, Xtr[:, cols], train.y, train.qid, stored_names(args.ranker, names))
    # LightGBM's booster: the model knows its names, the array does not (no warning)
    scores = (model.booster_ if args.ranker == "lightgbm" else model).predict(Xte[:, cols])
    report = sys.stdout
    if args.out:
        write_scores(args.out, scores)
        report = sys.stderr if args.out == "-" else report
    if args.save_model:
        _save(model, args.ranker, args.save_model, stored_names(args.ranker, names))
    table = {c: metrics.evaluate(test.y, scores, test.qid, convention=c) for c in conventions}
    params = {"n_estimators": args.n_estimators, "learning_rate": args.learning_rate, "random_state": args.ranker_seed}
    if args.json:
        out = {"model": args.ranker, "params": params, "features": [j + 1 for j in cols], "feature_names": names,
               "saved_model": args.save_model,
               "test": {c: {k: float(table[c][k]) for k in _REPORTED} for c in table}}
        print(json.dumps(out, indent=2), file=report)
        return 0
    print(f"model: {args.ranker} ({' '.join(f'{k}={v}' for k, v in params.items())})", file=report)
    print(f"features: {', '.join(str(j + 1) for j in cols)} ({len(cols)}, numbered as in the file)", file=report)
    if args.save_model:
        print(f"saved: {args.save_model} (feature names: {', '.join(names[:5])}{' ...' if len(names) > 5 else ''})",
              file=report)
    print(f"{'metric':<10}" + "".join(f"{c:>12}" for c in conventions), file=report)
    for k in _REPORTED:
        print(f"{k:<10}" + "".join(f"{table[c][k]:>12.4f}" for c in conventions), file=report)
    return 0
