"""MQ2008 figures of the practice features (issue 16): cost-quality fronts and selection
frequencies. Writes docs/figures/mq2008_cost_quality.png and docs/figures/mq2008_stability.png.

    python benches/practice_figures_mq2008.py [--data ../shared/data] [--out docs/figures]

Costs: MQ2008 ships none, so this uses an illustrative latency model of LETOR 4.0's 46
features (5 fields per query-dependent feature group: body, anchor, title, URL, whole
document; 41-46 are query-independent link / URL features): per field body 1.0, anchor 0.6,
title 0.2, URL 0.2, whole document 1.2; query-independent features 0.05 (precomputed).

Figure 1 (Fold 1, validation NDCG@10 against total cost): greedy RankRLS without costs
(every prefix), greedy RankRLS choosing by LQO gain per unit cost (every prefix), and
sparse RankSVM with the costs as L1 weights (a C path); each with its Pareto front.
Figure 2: selection frequencies of greedy RankRLS (k = 5) over 50 half-samples of Fold 1's
training queries (StabilitySelection), and across the five folds of the LETOR protocol
(the model chosen on validation MAP per fold, rankselect.selection.stability.fold_selection_frequencies).
About a minute on 2 cores.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import rankselect as rs  # noqa: E402
from rankselect.analysis.costs import cost_quality_path  # noqa: E402
from rankselect.plotting import plot_cost_quality, plot_selection_frequencies  # noqa: E402
from rankselect.selection.stability import fold_selection_frequencies  # noqa: E402

FIELD_COST = [1.0, 0.6, 0.2, 0.2, 1.2]  # body, anchor, title, URL, whole document
ALPHA = 2.0 ** 3


def mq2008_costs() -> np.ndarray:
    return np.array([FIELD_COST[j % 5] for j in range(40)] + [0.05] * 6)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures"))
    args = ap.parse_args()
    mq = Path(args.data) / "MQ2008"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    train = rs.load_letor(mq / "Fold1" / "train.txt")
    vali = rs.load_letor(mq / "Fold1" / "vali.txt", n_features=train.n_features)
    costs = mq2008_costs()
    n = train.n_features

    plain = rs.GreedyRankRLS(n_features_to_select=n, alpha=ALPHA).fit(*train)
    costed = rs.GreedyRankRLS(n_features_to_select=n, alpha=ALPHA, feature_costs=costs).fit(*train)
    sparse = rs.sparse_path(*train, n_Cs=12, ratio=1e3, feature_costs=costs)
    paths = {
        "greedy RankRLS": cost_quality_path(plain, vali, costs, scoring="ndcg@10", convention="letor"),
        "greedy RankRLS, gain per cost": cost_quality_path(costed, vali, costs, scoring="ndcg@10", convention="letor"),
        "sparse RankSVM, cost-weighted L1": cost_quality_path(sparse, vali, costs, scoring="ndcg@10",
                                                              convention="letor"),
    }
    ax = plot_cost_quality(paths, title="MQ2008 Fold 1: validation NDCG@10 against feature cost")
    ax.figure.savefig(out / "mq2008_cost_quality.png", dpi=120)
    for name, p in paths.items():
        front = p.pareto
        print(f"{name}: Pareto front cost {np.round(p.total_cost[front], 2).tolist()} "
              f"NDCG@10 {np.round(p.score[front], 4).tolist()}")

    st = rs.StabilitySelection(rs.GreedyRankRLS(n_features_to_select=5, alpha=ALPHA), n_resamples=50,
                               random_state=0).fit(*train)
    from rankselect.protocol import run

    grid = {"greedy-rankrls": {"alpha": [2.0 ** e for e in range(-10, 11)], "k": list(range(1, 11))}}
    result = run(mq, ["greedy-rankrls"], grid=grid, progress=False)
    folds = fold_selection_frequencies(result)["greedy-rankrls"]
    ax = plot_selection_frequencies(
        {"50 half-samples of Fold 1's queries (k = 5)": st.selection_frequencies_,
         "5 folds, k and alpha chosen on validation MAP": folds},
        threshold=st.threshold, title="MQ2008: how often greedy RankRLS selects each feature")
    ax.figure.savefig(out / "mq2008_stability.png", dpi=120)
    print(f"stability (Nogueira) {st.stability_:.3f}; stable support {(st.selected_features_ + 1).tolist()}; "
          f"features chosen on every fold {(np.flatnonzero(folds == 1) + 1).tolist()}")
    print(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
