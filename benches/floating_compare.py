"""Floating (SFFS) vs plain greedy RankRLS on MQ2008 and OHSUMED-LETOR2, 5 folds.

Per subset size s: how often (over the folds) and by how much floating search beats the
plain greedy on the LQO criterion (training data) and on test NDCG@10 (LETOR conventions)
of the RankRLS model on the size-s subset (each method's own subset of that size).

    python benches/floating_compare.py [--alpha 1.0] [--out benches/floating_compare.md]

Resumable: each (dataset, fold) result is cached in benches/.floating_cache.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import rankselect
from rankselect.metrics import ndcg

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SETS = {"MQ2008": 20, "OHSUMED-LETOR2": 15}


def one_fold(name, fold, alpha, k):
    folds = rankselect.load_letor_folds(DATA / name)
    f = folds[fold - 1]
    tr, te = f.train, f.test
    t0 = time.perf_counter()
    g = rankselect.GreedyRankRLS(k, alpha=alpha).fit(tr.X, tr.y, qid=tr.qid)
    t1 = time.perf_counter()
    fl = rankselect.GreedyRankRLS(k, alpha=alpha, floating=True).fit(tr.X, tr.y, qid=tr.qid)
    t2 = time.perf_counter()
    sizes = min(len(g.lqo_scores_), len(fl.lqo_scores_))

    def test_ndcg(path):
        return [float(ndcg(te.y, te.X @ path[s], te.qid, 10, convention="letor")) for s in range(sizes)]

    return {"greedy_crit": g.lqo_scores_[:sizes].tolist(), "floating_crit": fl.lqo_scores_[:sizes].tolist(),
            "greedy_test": test_ndcg(g.coef_path_), "floating_test": test_ndcg(fl.coef_path_),
            "removals": sum(not a for _, a, _ in fl.floating_steps_), "steps": len(fl.floating_steps_),
            "same_subsets": sum(sorted(g.selected_features_[:s + 1].tolist()) == sorted(fl.best_subsets_[s].tolist())
                                for s in range(sizes)),
            "seconds_greedy": t1 - t0, "seconds_floating": t2 - t1}


def table(name, results):
    sizes = min(len(r["greedy_crit"]) for r in results)
    lines = [f"**{name}** ({len(results)} folds; removals per fold: {[r['removals'] for r in results]}; "
             f"floating steps per fold: {[r['steps'] for r in results]})", "",
             "| size | LQO criterion: floating better / worse / equal (folds) | mean rel. LQO gain "
             "| test NDCG@10: floating better / worse / equal | mean test NDCG@10 diff |", "|---|---|---|---|---|"]
    for s in range(sizes):
        gc = np.array([r["greedy_crit"][s] for r in results])
        fc = np.array([r["floating_crit"][s] for r in results])
        gt = np.array([r["greedy_test"][s] for r in results])
        ft = np.array([r["floating_test"][s] for r in results])
        better = int(np.sum(fc < gc * (1 - 1e-12)))
        worse = int(np.sum(fc > gc * (1 + 1e-12)))
        gain = float(np.mean((gc - fc) / gc))
        d = ft - gt
        counts = f"{int(np.sum(d > 1e-12))} / {int(np.sum(d < -1e-12))} / {int(np.sum(np.abs(d) <= 1e-12))}"
        lines.append(f"| {s + 1} | {better} / {worse} / {len(results) - better - worse} | {gain:.2e} | {counts} "
                     f"| {float(np.mean(d)):+.4f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--folds", default="1,2,3,4,5")
    ap.add_argument("--out", default=str(ROOT / "benches" / "floating_compare.md"))
    args = ap.parse_args()
    cache_path = ROOT / "benches" / ".floating_cache.json"
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    parts = [f"Floating vs plain greedy RankRLS, alpha = {args.alpha}, LQO squared criterion (lower is better); "
             "test NDCG@10 with LETOR conventions of the RankRLS model on each size's subset.", ""]
    for name, k in SETS.items():
        results = []
        for fold in [int(f) for f in args.folds.split(",")]:
            key = f"{name}/{fold}/{args.alpha}/{k}"
            if key not in cache:
                cache[key] = one_fold(name, fold, args.alpha, k)
                cache_path.write_text(json.dumps(cache))
                print(f"{key}: {cache[key]['seconds_greedy']:.2f}s greedy, {cache[key]['seconds_floating']:.2f}s "
                      f"floating, {cache[key]['removals']} removals", file=sys.stderr, flush=True)
            results.append(cache[key])
        parts += [table(name, results), ""]
    text = "\n".join(parts)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
