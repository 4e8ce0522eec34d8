"""The decision of an experiment's report beyond the size: which method (the cheaper of the
methods that cannot be told apart on the validation queries) and how optimistic the chosen
size's validation score is (its grid point was chosen on the queries that score it)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..analysis.stats import SizeChoice
from ..analysis.stats.sizes import paired_t_pvalue
from ._data import plural
from ._paths import Pooled

__all__ = ["choose_method", "optimism", "LEVEL"]

#: the level below which two methods are told apart
LEVEL = 0.05


def _row(p: Pooled, k: int, which: str = "vali") -> np.ndarray:
    return getattr(p, which)[p.sizes.index(k)]


def choose_method(pooled: dict[str, Pooled], choices: dict[str, SizeChoice], cost_at: dict[str, float],
                  methods: list[str]) -> tuple[str, list[str]]:
    """The method the page hands off among ``methods`` (those with a choice), and what to say.

    The method of best validation score at its chosen size leads; every other method whose
    chosen size cannot be told apart from it (two-sided paired t-test on the pooled validation
    queries, p >= 0.05) is as good, and of these the cheapest (cost at its chosen size, then
    fewer features, then the better score) is handed off."""
    sel = [m for m in methods if m in choices and len(pooled[m].sizes) > 1] or [m for m in methods if m in choices]
    if not sel:
        raise ValueError("no method reaches a number of features in every fold: nothing to decide")

    def score(m: str) -> float:
        return float(_row(pooled[m], choices[m].chosen).mean())

    top = max(sel, key=lambda m: (score(m), -choices[m].chosen))
    a = _row(pooled[top], choices[top].chosen)
    ties: dict[str, float] = {top: 1.0}
    for m in sel:
        if m == top:
            continue
        b = _row(pooled[m], choices[m].chosen)
        if a.shape != b.shape:
            continue  # different validation queries: not paired
        p = paired_t_pvalue(a - b)
        if p >= LEVEL:
            ties[m] = p
    pick = min(ties, key=lambda m: (cost_at.get(m, float(choices[m].chosen)), choices[m].chosen, -score(m)))
    said = []
    if len(ties) > 1:
        others = ", ".join(f"{m} ({plural(choices[m].chosen, 'feature')}, p = {ties[m]:.2g})"
                           for m in ties if m != top)
        said.append(f"The methods cannot be told apart on the validation queries: {top}, of best validation score "
                    f"at its chosen size, against {others} (two-sided paired t-tests, level {LEVEL:g}). The page "
                    f"hands off the cheapest of them, {pick}" + (f", not {top}." if pick != top else "."))
    return pick, said


def optimism(p: Pooled, c: SizeChoice) -> Optional[dict[str, Any]]:
    """How much the validation score of the chosen and the best size owes to choosing each
    size's grid point (alpha, C, ...) on the same validation queries: the pooled mean of the
    path's scores minus that of its cross-fitted (nested) scores
    (:func:`~rankselect.protocol.path_scores.nested_rows`); None for a file without them."""
    if p.nested is None:
        return None
    out: dict[str, Any] = {"estimate": "cross-fitted halves of the validation queries"}
    for name, k in (("chosen", c.chosen), ("best", c.best)):
        i = p.sizes.index(k)
        out[name] = {"size": k, "validation_score": float(p.vali[i].mean()),
                     "nested_score": float(p.nested[i].mean()),
                     "optimism": float(p.vali[i].mean() - p.nested[i].mean())}
    out["largest"] = float(np.max(p.vali.mean(axis=1) - p.nested.mean(axis=1)))
    return out
