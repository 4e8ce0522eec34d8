"""Each panel's own data (its ``collect`` in the registry, ``_panels.PANELS``), read from
the :class:`~rankselect.report._sources.Sources` of the report: stability (an experiment's
folds, or a fit's refits on query subsamples), redundancy, importance."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone

from ..selection.stability import StabilitySelection, fold_selection_frequencies
from ._data import ReportData, plural
from ._features import Progress, importance_of, redundancy_of
from ._paths import frequencies
from ._sources import Sources

__all__ = ["collect_stability", "collect_redundancy", "collect_importance"]


class _Counted(BaseEstimator):
    """``selector``, calling ``tick`` after each of its fits (StabilitySelection's refits)."""

    def __init__(self, selector=None, tick=None) -> None:
        self.selector, self.tick = selector, tick

    def fit(self, X, y, qid=None):
        self.fitted_ = clone(self.selector).fit(X, y, qid=qid)
        self.selected_features_ = np.asarray(self.fitted_.selected_features_)
        if self.tick is not None:
            self.tick()
        return self

    def get_support(self, indices: bool = False):
        return self.fitted_.get_support(indices=indices)



def collect_stability(d: ReportData, s: Sources) -> None:
    """The stability panels' frequencies: over an experiment's folds (each method's subsets of
    its chosen size), or over a fit's refits on half of the queries at the chosen size."""
    if s.kind == "fit":
        X, y, qid = s.train
        _refit_stability(d, s.selector, X, y, qid, s.n_resamples, s.random_state, s.progress, d.groups,
                         d.default_k)
        return
    res, n = s.experiment, len(d.feature_names)
    for m, p in s.pooled.items():
        if m in d.marks and len(p.sizes) > 1:
            subsets = p.subsets[d.marks[m][d.rule]]
            d.stability[m] = frequencies(subsets, n).tolist()
            if d.groups is not None:
                d.group_stability[m] = [float(np.mean([g in d.groups_of(x) for x in subsets]))
                                        for g in d.groups.names]
    d.stability_over = f"the {len(res.folds)} folds (each method's subsets of its {d.rule} size)"
    if not d.stability:
        freq = fold_selection_frequencies(res)
        d.stability = {m: freq[m].tolist() for m in res.methods}
        d.stability_over = f"the {len(res.folds)} folds' chosen models"


def collect_redundancy(d: ReportData, s: Sources) -> None:
    """The redundancy panel: the similarity of the features on the training rows."""
    if s.train is None:
        d.notes["redundancy"] = s.missing
        return
    d.redundancy = redundancy_of(s.train, d.feature_names, d.subsets[d.default_k])


def collect_importance(d: ReportData, s: Sources) -> None:
    """The importance panels (features, and groups when given): the ranker of the decision
    refitted on the chosen subset, its features shuffled within the held-out queries."""
    if s.train is None or s.test is None or s.extra.get("ranker_missing"):
        d.notes["importance"] = s.missing or s.extra["ranker_missing"]
        return
    d.importance, d.group_importance = importance_of(
        d.subsets[d.default_k], s.train, s.test, s.measure, s.random_state, ranker=s.ranker, split=s.split,
        names=d.feature_names, groups=d.groups, progress=s.progress)


def _refit_stability(d: ReportData, selector, X, y, qid, n_resamples: int, random_state, progress: bool, groups,
                     k: int) -> None:
    """The selection frequencies of ``selector`` refitted on half-samples of the queries, at the
    chosen size ``k`` (when the selector takes ``n_features_to_select``; else at its own)."""
    if n_resamples < 2:
        d.notes["stability"] = ("no refits were asked (n_resamples < 2): the stability panel needs the "
                                "selector refitted on query subsamples; pass n_resamples=5 or more")
        return
    work = Progress(f"stability: refitting {type(selector).__name__} on {n_resamples} half-samples of the queries "
                    f"(n_resamples={n_resamples}; 0 skips it)", n_resamples, progress)
    refit = clone(selector)
    at = ""
    if "n_features_to_select" in refit.get_params() and refit.get_params()["n_features_to_select"] != k:
        refit.set_params(n_features_to_select=int(k))  # the chosen size, not the fitted one
        at = f" at the chosen size, {plural(k, 'feature')}"
    st = StabilitySelection(_Counted(refit, lambda: work.step()),  # a function: clone keeps it
                            n_resamples=int(n_resamples), random_state=random_state,
                            feature_groups=groups, select_groups=False).fit(X, y, qid=qid)
    d.stability[d.method] = st.selection_frequencies_.tolist()
    if groups is not None:
        d.group_stability[d.method] = st.group_frequencies_.tolist()
    d.stability_over = f"{n_resamples} refits on half of the queries{at}"
    d.settings["stability"] = f"{n_resamples} refits on half of the queries, {work.seconds:.1f} s"
