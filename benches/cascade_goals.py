"""The goals of issue 48, measured outside the suite: CascadeSelection vs the best affordable
single phase.

    python benches/cascade_goals.py [--rules 1se 2se best] [--seed 2027] [--searches ...] [--only ...]

1. OHSUMED-LETOR2 (``../shared/data/OHSUMED-LETOR2``), 5 folds, costs
   ``feature_costs("ohsumed-letor2")`` (the WSDM 2019 MSLR tiers), budget 5 % of all
   features on every document (mean validation query): per fold, CascadeSelection chooses on
   the validation queries; the test queries of the 5 folds are pooled and the chosen
   configuration's NDCG@10 is compared with the best affordable single phase's (the
   highest-scoring affordable prefix on validation): mean paired difference and a 95 % paired
   bootstrap interval over queries (10000 resamples). Goal: >= +0.01. MQ2008 (19 documents per
   query, ``feature_costs("letor4")``) the same way: no gain expected ("one phase").
2. Synthetic (``make_ranking``, an unseen seed): long lists (100-300 documents), rare
   relevance (labels from the latent score: the top 2 % of each query 2, the next 4 % 1),
   expensive informative features (cost 100) with cheap noisy copies (cost 1) and noise
   features (cost 10); budget 25 % of all features on every document. Goal: test NDCG@10
   within 0.01 of RankRLS on all features.
The cost each fit reports is checked against a recomputation from its ``phases_``.
``--searches`` keeps only some of phase 2's searches (``PHASE2_SEARCHES``: the ablation of
benches/RESULTS.md); ``--only`` some of the data sets.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import rankselect as rs
from rankselect.data import ExtractionCosts
from rankselect.metrics import ndcg
from rankselect.selection import cascade as cascade_module
from rankselect.selection.cascade_search import cascade_cost

ROOT = Path(__file__).resolve().parents[1]
OHSUMED = ROOT.parent / "shared" / "data" / "OHSUMED-LETOR2"
MQ2008 = ROOT.parent / "shared" / "data" / "MQ2008"
#: the one-sided level that one standard error nominally has (1 - Phi(1))
GRID_LEVEL = 0.1587


def per_query(y, scores, qid):
    return ndcg(y, scores, qid, k=10, per_query=True)


def single_scores(cs, X_tr, y_tr, q_tr, X):
    """Test scores of the best affordable single phase (RankRLS on its prefix of the path)."""
    a = cs.choice_["single"]["phase1_size"]
    cols = cs.path_[:a]
    return rs.RankRLS(alpha=1.0).fit(X_tr[:, cols], y_tr, qid=q_tr).predict(X[:, cols])


def check_cost(cs, costs, qid_val):
    sizes = np.unique(qid_val, return_counts=True)[1]
    p = cs.phases_
    again = cascade_cost(ExtractionCosts(costs), sizes, p[0].features, None if len(p) == 1 else p[1].features,
                         None if len(p) == 1 else p[1].window, reuse=cs.reuse)
    assert abs(again - cs.cost_per_query_) <= 1e-9 * max(1.0, again), (again, cs.cost_per_query_)


def bootstrap(d, n=10000, seed=0):
    rng = np.random.default_rng(seed)
    means = rng.choice(d, size=(n, len(d)), replace=True).mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def sign_flip_p(d, exact_up_to=16, flips=1 << 16, seed=0):
    """One-sided p-value of the paired sign-flip (randomization) test of a positive mean of
    ``d``: exact over the nonzero differences' 2^m sign patterns up to ``exact_up_to`` of them,
    else over ``flips`` random patterns (seeded). A diagnostic here, not the estimator's rule."""
    d = np.asarray(d, dtype=float)
    d = d[d != 0]
    m = len(d)
    if m == 0:
        return 1.0
    obs = d.sum() - 1e-12 * np.abs(d).sum()
    if m <= exact_up_to:
        signs = 1 - 2 * ((np.arange(1 << m)[:, None] >> np.arange(m)) & 1)
        return float(np.mean(signs @ d >= obs))
    rng = np.random.default_rng(seed)
    hits = sum(int(np.sum(rng.choice([-1.0, 1.0], size=(4096, m)) @ d >= obs)) for _ in range(flips // 4096))
    return hits / flips


def letor(name, root, layout, rules):
    costs = rs.data.datasets.feature_costs(layout)
    out = {r: ([], []) for r in rules}
    decisions: dict = {r: [] for r in rules}
    grid: tuple = ([], [])
    for fold in range(1, 6):
        d = root / f"Fold{fold}"
        tr, va, te = (rs.load_letor(d / f"{s}.txt") for s in ("train", "vali", "test"))
        n_q = np.unique(va.qid, return_counts=True)[1].mean()
        budget = 0.05 * costs.sum() * n_q
        for rule in rules:
            cs = rs.CascadeSelection(feature_costs=costs, budget=budget, rule=rule).fit(
                tr.X, tr.y, qid=tr.qid, eval_set=(va.X, va.y, va.qid))
            check_cost(cs, costs, va.qid)
            out[rule][0].append(per_query(te.y, cs.predict(te.X, qid=te.qid), te.qid))
            out[rule][1].append(per_query(te.y, single_scores(cs, tr.X, tr.y, tr.qid, te.X), te.qid))
            c = cs.choice_
            how = "" if len(cs.phases_) == 1 else f", phase 2: {cs.choice_['cascade']['phase2_search']}"
            if len(cs.phases_) == 2:  # the validation differences of the taken cascade: the exact test's p
                dv = per_query(va.y, cs.predict(va.X, qid=va.qid), va.qid) - per_query(
                    va.y, single_scores(cs, tr.X, tr.y, tr.qid, va.X), va.qid)
                how += f", sign-flip p {sign_flip_p(dv):.3f} over {int(np.sum(dv != 0))} differing queries"
            how += f", grid p {c['grid_p_value']:.3f}"
            if rule == "best":  # the max-statistic test at the 1 SE level, a diagnostic: its folds' differences
                grid[0].append(out[rule][0][-1] if c["grid_p_value"] < GRID_LEVEL else out[rule][1][-1])
                grid[1].append(out[rule][1][-1])
            decisions[rule].append(f"{c['decision']}{how} (val diff {c['mean_difference']:+.3f}, SE "
                                   f"{c['standard_error']:.3f}, cost {cs.cost_per_query_ / (costs.sum() * n_q):.1%})")
    for rule in rules:
        chosen, single = np.concatenate(out[rule][0]), np.concatenate(out[rule][1])
        d = chosen - single
        lo, hi = bootstrap(d)
        print(f"{name} rule={rule}: pooled test NDCG@10 chosen {chosen.mean():.4f} vs best affordable "
              f"single phase {single.mean():.4f}: {d.mean():+.4f} [{lo:+.4f}, {hi:+.4f}] over {len(d)} queries"
              f"{' (significantly worse)' if hi < 0 else ' (significantly better)' if lo > 0 else ''}")
        for f, text in enumerate(decisions[rule], 1):
            print(f"    fold {f}: {text}")
    if grid[0]:
        d = np.concatenate(grid[0]) - np.concatenate(grid[1])
        lo, hi = bootstrap(d)
        print(f"{name} max-statistic sign-flip test at {GRID_LEVEL:.1%} (diagnostic, from rule=best's fits): "
              f"{d.mean():+.4f} [{lo:+.4f}, {hi:+.4f}]")


def synthetic(seed, rules):
    sets = rs.data.datasets.make_ranking(n_queries=240, docs_per_query=(100, 300), n_informative=5, n_redundant=10,
                                         n_noise=10, redundant_noise=1.0, noise=0.3, random_state=seed)
    X, qid, latent = sets.X, sets.qid, sets.latent
    y = np.zeros(len(qid))
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        f = np.argsort(np.argsort(latent[rows])) / len(rows)
        y[rows] = (f >= 0.94).astype(float) + (f >= 0.98)
    costs = np.full(X.shape[1], 10.0)
    costs[sets.truth.informative] = 100.0
    costs[sets.truth.redundant] = 1.0
    q = np.unique(qid)
    tr, va, te = np.isin(qid, q[:120]), np.isin(qid, q[120:180]), np.isin(qid, q[180:])
    n_q = np.unique(qid[va], return_counts=True)[1].mean()
    full = per_query(y[te], rs.RankRLS(alpha=1.0).fit(X[tr], y[tr], qid=qid[tr]).predict(X[te]), qid[te])
    for rule in rules:
        cs = rs.CascadeSelection(feature_costs=costs, budget=0.25 * costs.sum() * n_q, rule=rule).fit(
            X[tr], y[tr], qid=qid[tr], eval_set=(X[va], y[va], qid[va]))
        check_cost(cs, costs, qid[va])
        chosen = per_query(y[te], cs.predict(X[te], qid=qid[te]), qid[te])
        single = per_query(y[te], single_scores(cs, X[tr], y[tr], qid[tr], X[te]), qid[te])
        print(f"synthetic seed {seed} rule={rule}: {cs.choice_['decision']} at "
              f"{cs.cost_per_query_ / (costs.sum() * n_q):.1%} of all features; test NDCG@10 chosen "
              f"{chosen.mean():.4f}, best affordable single phase {single.mean():.4f}, all features "
              f"{full.mean():.4f} (chosen - all {chosen.mean() - full.mean():+.4f})")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", nargs="+", default=["1se", "2se", "best"])
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--searches", nargs="+", choices=list(cascade_module.PHASE2_SEARCHES))
    ap.add_argument("--only", nargs="+", choices=["OHSUMED-LETOR2", "MQ2008", "synthetic"])
    args = ap.parse_args(argv)
    if args.searches:
        for k in cascade_module.PHASE2_SEARCHES:
            cascade_module.PHASE2_SEARCHES[k] = k in args.searches
        print("phase-2 searches:", ", ".join(args.searches))
    for name, root, layout in (("OHSUMED-LETOR2", OHSUMED, "ohsumed-letor2"), ("MQ2008", MQ2008, "letor4")):
        if args.only and name not in args.only:
            continue
        if root.is_dir():
            letor(name, root, layout, args.rules)
        else:
            print(f"{name} not found at {root}: skipped")
    if not args.only or "synthetic" in args.only:
        synthetic(args.seed, args.rules)


if __name__ == "__main__":
    main()
