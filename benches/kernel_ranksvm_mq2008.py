"""MQ2008 5-fold: linear RankSVM, RankNystroem and RankRandomFourier (Chen et al. 2017).

For every fold, C (and gamma for the kernel models) is chosen by validation MAP (LETOR
conventions); the chosen model is scored on test. The paper reports MQ2007 only (Table 5,
m = 2000); its numbers are printed beside ours for orientation, not as a target.

    python benches/kernel_ranksvm_mq2008.py [--data ../shared/data/MQ2008] [--components 500]
"""
from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import rankselect as rs
from rankselect import metrics

HERE = Path(__file__).resolve().parent
PAPER_MQ2007 = {  # Chen et al. 2017, Table 5 (MQ2007, m = 2000)
    "RankSVM-Primal": {"NDCG@1": 0.4109, "NDCG@3": 0.4063, "MeanNDCG": 0.4973, "MAP": 0.4655},
    "RankNystroem": {"NDCG@1": 0.4242, "NDCG@3": 0.4138, "MeanNDCG": 0.5036, "MAP": 0.4695},
    "RankRandomFourier": {"NDCG@1": 0.4224, "NDCG@3": 0.4136, "MeanNDCG": 0.5036, "MAP": 0.4698},
}
KEYS = ("NDCG@1", "NDCG@3", "NDCG@10", "MAP", "MeanNDCG")


def scores(y, s, qid):
    return {
        "NDCG@1": metrics.ndcg(y, s, qid, k=1, convention="letor"),
        "NDCG@3": metrics.ndcg(y, s, qid, k=3, convention="letor"),
        "NDCG@10": metrics.ndcg(y, s, qid, k=10, convention="letor"),
        "MAP": metrics.mean_average_precision(y, s, qid, convention="letor"),
        "MeanNDCG": metrics.mean_ndcg(y, s, qid, convention="letor"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "MQ2008"))
    ap.add_argument("--components", type=int, default=500)
    ap.add_argument("--Cs", default="0.01,0.1,1")
    ap.add_argument("--gammas", default="0.05,0.2")
    args = ap.parse_args()
    Cs = [float(c) for c in args.Cs.split(",")]
    gammas = [float(g) for g in args.gammas.split(",")]
    models = {
        "RankSVM-Primal": [dict(C=C) for C in Cs],
        "RankNystroem": [dict(C=C, kernel="nystroem", gamma=g, n_components=args.components, random_state=0)
                         for C in Cs for g in gammas],
        "RankRandomFourier": [dict(C=C, kernel="rff", gamma=g, n_components=args.components, random_state=0)
                              for C in Cs for g in gammas],
    }
    folds = rs.load_letor_folds(args.data)
    results = {name: [] for name in models}
    chosen = {name: [] for name in models}
    t0 = time.perf_counter()
    for fold in folds:
        tr, va, te = fold.train, fold.vali, fold.test
        for name, grid in models.items():
            best = None
            for params in grid:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = rs.RankSVM(max_iter=50, tol=1e-5, **params).fit(tr.X, tr.y, qid=tr.qid)
                sv = model.predict(va.X)
                if np.ptp(sv) == 0:  # degenerate: would rank by file order
                    continue
                v = metrics.mean_average_precision(va.y, sv, va.qid, convention="letor")
                if best is None or v > best[0]:
                    best = (v, params, model)
            results[name].append(scores(te.y, best[2].predict(te.X), te.qid))
            chosen[name].append({k: v for k, v in best[1].items() if k in ("C", "gamma")})
        print(f"{fold.name} done ({time.perf_counter() - t0:.0f} s)", flush=True)

    lines = [f"MQ2008 5-fold test means (LETOR conventions), m = {args.components} components; "
             f"C in {Cs}, gamma in {gammas}, chosen per fold by validation MAP.", "",
             "| model | " + " | ".join(KEYS) + " | paper MQ2007: NDCG@1 / NDCG@3 / MeanNDCG / MAP |",
             "|---|" + "---|" * (len(KEYS) + 1)]
    for name in models:
        mean = {k: float(np.mean([r[k] for r in results[name]])) for k in KEYS}
        p = PAPER_MQ2007[name]
        lines.append(f"| {name} | " + " | ".join(f"{mean[k]:.4f}" for k in KEYS)
                     + f" | {p['NDCG@1']:.4f} / {p['NDCG@3']:.4f} / {p['MeanNDCG']:.4f} / {p['MAP']:.4f} |")
    lines.append("")
    lines.append("Chosen per fold: " + "; ".join(f"{n}: {chosen[n]}" for n in models))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
