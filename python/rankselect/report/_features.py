"""The panels that read the data itself: redundancy (:func:`redundancy_of`) and permutation
importance of the chosen features and of their groups (:func:`importance_of`), shared by
both sources, and the progress lines of long work (:class:`Progress`)."""
from __future__ import annotations

import sys
import time
from typing import Any, Optional

import numpy as np
from scipy.cluster.hierarchy import leaves_list

from ..analysis.inspection import fit_ranker, permutation_importance
from ..analysis.redundancy import redundancy_report
from ..data.feature_groups import FeatureGroups, check_feature_groups
from ..data.uninformative import constant_within_queries
from ..models.rankrls import RankRLS
from ._data import Importance, Redundancy, feature_label

__all__ = ["SIMILARITY", "THRESHOLD", "MAX_SHOWN", "MAX_PAIRS", "redundancy_of", "importance_of", "xyq",
           "Progress", "short"]

#: the similarity of the redundancy panel and the threshold its clusters are cut at
SIMILARITY, THRESHOLD = "spearman", 0.9
#: at most this many features in the redundancy matrix (the chosen ones and their closest
#: partners first), so that the page grows linearly with the features
MAX_SHOWN = 60
#: the most similar pairs listed below it
MAX_PAIRS = 30


def xyq(data, name: str):
    """``(X, y, qid)`` as arrays from a RankingData or a tuple."""
    try:
        X, y, qid = data
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a RankingData or an (X, y, qid) tuple, got {type(data).__name__}") from exc
    return np.asarray(X, dtype=np.float64), np.asarray(y), np.asarray(qid)


class Progress:
    """Progress of long work on standard error (``enabled``): a line saying what starts and how
    many steps, then a line with the time per step and the time left at most every
    :attr:`every` seconds, and the total at the end when it took that long; ``seconds`` is
    what it cost (the page says it)."""

    every = 2.0

    def __init__(self, what: str, total: int, enabled: bool = True, stream=None) -> None:
        self.what, self.total, self.enabled = what, int(total), bool(enabled)
        self.stream = stream
        self.done = 0
        self.t0 = self.last = time.perf_counter()
        if self.enabled and self.total > 0:
            self._say(f"{self.what} ({self.total} step{'s' if self.total != 1 else ''})")

    def _say(self, text: str) -> None:
        print(f"rankselect report: {text}", file=self.stream or sys.stderr, flush=True)

    def step(self) -> None:
        self.done += 1
        now = time.perf_counter()
        if not self.enabled or now - self.last < self.every:
            return
        self.last = now
        spent = now - self.t0
        if self.done < self.total:
            left = spent / self.done * (self.total - self.done)
            self._say(f"  {self.done}/{self.total} done, {spent / self.done:.1f} s each, about {left:.0f} s left")
        else:
            self._say(f"  done: {self.total} in {spent:.1f} s")

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.t0


def redundancy_of(train, names: list[str], focus: list[int]) -> Redundancy:
    """|Spearman| similarity of the training data (:func:`~rankselect.redundancy_report`):
    the matrix of the features that matter (``focus`` - the chosen ones - and their closest
    partners, at most :data:`MAX_SHOWN`; every feature when there are fewer) in dendrogram
    order, the most similar pairs of all features, the clusters at :data:`THRESHOLD` and the
    features constant within every query."""
    X, _, qid = xyq(train, "train")
    n = X.shape[1]
    rep = redundancy_report(X, qid, similarity=SIMILARITY, threshold=THRESHOLD, feature_names=names)
    sim = np.nan_to_num(np.asarray(rep.similarity, dtype=np.float64))
    constant = np.asarray(constant_within_queries(X, qid), dtype=bool).reshape(-1)
    off = sim.copy()
    np.fill_diagonal(off, -np.inf)
    off[constant, :] = off[:, constant] = -np.inf
    partner = off.argmax(axis=1) if n > 1 else np.zeros(n, dtype=np.intp)
    pairs = sorted({(min(j, int(partner[j])), max(j, int(partner[j]))) for j in range(n)
                    if n > 1 and np.isfinite(off[j, partner[j]]) and j != int(partner[j])},
                   key=lambda p: -sim[p])[:MAX_PAIRS]
    if n <= MAX_SHOWN:
        shown = list(range(n))
    else:
        keep = list(dict.fromkeys([int(j) for j in focus] + [int(partner[j]) for j in focus]))
        for a, b in pairs:
            keep += [j for j in (a, b) if j not in keep]
        keep += [j for j in range(n) if j not in keep]
        shown = sorted(keep[:MAX_SHOWN])
    order = [int(j) for j in leaves_list(rep.linkage)] if n > 1 else [0]
    rank = {j: i for i, j in enumerate(order)}
    shown = sorted(shown, key=lambda j: rank[j])
    clusters = [[int(j) for j in c] for c in rep.redundant]
    reps = [int(r) for r, c in zip(np.asarray(rep.representatives), rep.clusters) if len(c) > 1]
    return Redundancy(matrix=sim[np.ix_(shown, shown)].round(3).tolist(), shown=shown,
                      pairs=[(a, b, round(float(sim[a, b]), 4)) for a, b in pairs], clusters=clusters,
                      representatives=reps, constant=[int(j) for j in np.flatnonzero(constant)],
                      similarity=SIMILARITY, threshold=THRESHOLD, n_features=n)


def importance_of(subset, train, test, measure: str, random_state, *, ranker=None, split: str = "test",
                  names: list[str], groups: Optional[FeatureGroups] = None,
                  progress: bool = False) -> tuple[Importance, Optional[Importance]]:
    """Query-aware permutation importance (:func:`~rankselect.analysis.inspection.permutation_importance`,
    5 repeats) of the features of ``subset`` for ``ranker`` (default ``RankRLS()``) fitted on
    them, measured on ``test``; with ``groups``, also of the subset's groups (each group's
    chosen columns shuffled together)."""
    X, y, qid = xyq(train, "train")
    Xt, yt, qt = xyq(test, "test")
    cols = [int(j) for j in subset]
    work = Progress("importance: one fit of the ranker on the chosen features, then shuffles",
                    2 if groups is not None else 1, progress)
    model = fit_ranker(ranker if ranker is not None else RankRLS(), X[:, cols], y, qid)
    imp = permutation_importance(model, Xt[:, cols], yt, qt, scoring=measure.lower(), n_repeats=5,
                                 random_state=random_state)
    work.step()
    features = Importance(labels=[feature_label(names, j) for j in cols], mean=imp.importances_mean.tolist(),
                          low=imp.ci_low.tolist(), high=imp.ci_high.tolist(), measure=measure, split=split)
    if groups is None:
        return features, None
    labels = [groups.names[int(groups.index[j])] for j in cols]
    gi = permutation_importance(model, Xt[:, cols], yt, qt, scoring=measure.lower(), n_repeats=5,
                                random_state=random_state, feature_groups=check_feature_groups(labels, len(cols)))
    work.step()
    return features, Importance(labels=[str(g) for g in np.asarray(gi.groups)], mean=gi.importances_mean.tolist(),
                                low=gi.ci_low.tolist(), high=gi.ci_high.tolist(), measure=measure, split=split,
                                unit="group")


def short(value: Any) -> str:
    """A parameter's value for the settings table: arrays and long sequences summarised, NumPy
    scalars as the Python number they hold (``1848.0``, not ``np.float64(1848.0)``)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, FeatureGroups):
        return repr(value)
    if isinstance(value, (tuple, list)) and any(hasattr(v, "shape") for v in value):
        return f"{len(value)} arrays of shapes " + ", ".join(str(getattr(v, "shape", "?")) for v in value)
    if isinstance(value, (np.ndarray, list, tuple)):
        a = np.asarray(value, dtype=object).reshape(-1)
        if a.size > 8:
            try:
                f = np.asarray(value, dtype=np.float64).reshape(-1)
                return f"{f.size} values, {f.min():g} to {f.max():g} (sum {f.sum():g})"
            except (TypeError, ValueError):
                return f"{a.size} values"
    if hasattr(value, "get_params"):
        return type(value).__name__
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
