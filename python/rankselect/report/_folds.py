"""The chosen size fold by fold: per fold, the paired comparison of the chosen subset's test
queries with the model on all the features (and with the best size), Holm's correction over
the folds, and the significant losses it leaves (:func:`fold_comparisons`).

Pooled intervals can hide one fold where the chosen size loses: each fold is its own
training, validation and test set, so each fold's paired difference is a comparison of its
own. Per fold ``d_q = s_q(chosen) - s_q(other)`` over the fold's test queries: the mean, its
95 % t-interval (``mean +- t_{0.975, Q-1} sd(d) / sqrt(Q)``), the two-sided paired t-test
p-value (:func:`scipy.stats.ttest_rel`; 1 when every difference is zero), the Holm-adjusted p-value over the folds
(:func:`~rankselect.analysis.stats.holm`) and the flag ``significant_loss``: the mean is
negative and the adjusted p-value is below 0.05.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from ..analysis.stats import holm
from ..analysis.stats.sizes import paired_t_pvalue

__all__ = ["fold_comparisons", "LEVEL", "fold_sentence"]

#: the family-wise level of the flags
LEVEL = 0.05


def _one(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    q = int(d.size)
    mean = float(d.mean()) if q else float("nan")
    if q >= 2:
        half = float(stats.t.ppf(0.975, q - 1) * d.std(ddof=1) / np.sqrt(q))
        p = paired_t_pvalue(d)  # scipy.stats.ttest_rel's; no spread (every difference equal): 1 or 0
    else:
        half, p = float("nan"), float("nan")
    return {"mean_difference": mean, "interval": [mean - half, mean + half], "pvalue": p, "n_queries": q}


def _family(rows: list[dict[str, Any]]) -> None:
    ps = np.array([r["pvalue"] for r in rows], dtype=np.float64)
    ok = np.isfinite(ps)
    adj = np.full(ps.shape, np.nan)
    if ok.any():
        adj[ok] = holm(ps[ok])
    for r, a in zip(rows, adj):
        r["pvalue_holm"] = float(a)
        r["significant_loss"] = bool(np.isfinite(a) and a < LEVEL and r["mean_difference"] < 0)


def fold_comparisons(folds: list[str], chosen: list[np.ndarray], reference: list[np.ndarray],
                     sources: list[tuple[str, int]], best: list[np.ndarray], best_size: int,
                     size: int) -> list[dict[str, Any]]:
    """Per fold (``folds``: names), the chosen size's per-query test scores (``chosen``, one
    array per fold) against the reference (``reference``, from ``sources``: the method and
    size of each fold's all-features model) and against the best size (``best``): one dict
    per fold, the reference's comparison at the top level, the best size's under
    ``"against_best"``; Holm over the folds within each of the two families."""
    out, vs_best = [], []
    for name, a, r, (m, k), b in zip(folds, chosen, reference, sources, best):
        row = {"fold": name, "size": size, "reference_method": m, "reference_size": k, **_one(a, r)}
        out.append(row)
        vs_best.append({"best_size": best_size, **_one(a, b)})
    _family(out)
    _family(vs_best)
    for row, other in zip(out, vs_best):
        row["against_best"] = other
    return out


def fold_sentence(rows: list[dict[str, Any]], measure: str) -> str:
    """The headline's sentence on the folds: the significant losses, or that there is none."""
    if not rows:
        return ""
    lost = [r for r in rows if r["significant_loss"]]
    n = len(rows)
    if not lost:
        return (f"No fold shows a significant loss against all features (paired t-tests on each fold's test "
                f"queries, Holm's correction over the {n} folds, level {LEVEL:g}).")
    parts = [f"{r['fold']}: {r['mean_difference']:+.3f} {measure} [{r['interval'][0]:+.3f}, "
             f"{r['interval'][1]:+.3f}], p {r['pvalue']:.3g}, {r['pvalue_holm']:.3g} after Holm" for r in lost]
    return (f"Warning: the chosen size is significantly worse than all features in {len(lost)} of the {n} folds "
            f"after Holm's correction over the folds ({'; '.join(parts)}).")
