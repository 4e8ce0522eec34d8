"""The path of a ranker-in-the-loop selection, as data, and the rule that picks its size."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["SelectionPath", "choose_step", "SELECTION_RULES"]

#: the rules that pick the selected subset on the path (see :func:`choose_step`)
SELECTION_RULES = ("best", "one-standard-error")


@dataclass
class SelectionPath:
    """Every subset a selector scored, in the order it scored them (one entry per step).

    Attributes
    ----------
    n_features : ndarray of int, shape (p,)
        Subset size of each step.
    scores : ndarray of shape (p,)
        Validation score (mean over the validation queries of ``scoring``).
    score_se : ndarray of shape (p,)
        Standard error of that mean over queries (``std(ddof=1) / sqrt(n_queries)``).
    ci_low, ci_high : ndarray of shape (p,)
        Its 95 % t-interval over queries.
    features : list of ndarray
        The subset of each step (0-based columns, in selection order).
    added, removed : list of ndarray
        The features added / removed to reach each step from the step before.
    wall_time : ndarray of shape (p,)
        Seconds since ``fit`` began when the step was scored.
    cost : ndarray of shape (p,)
        Total feature cost of each subset (1 per feature without ``feature_costs``).
    eligible : ndarray of bool, shape (p,)
        Whether the step may be selected (within the budget; for forward selection with
        ``floating``, the best subset of its size).
    groups : list of ndarray of str
        With ``feature_groups`` and ``select_groups=True`` (steps of whole groups): the
        names of each step's groups, in selection order; empty otherwise.
    n_groups : ndarray of int, shape (p,)
        The number of groups of each step (``n_features`` when the steps are not groups).
    per_query : list of ndarray or None
        The score of every validation query (the same queries in the same order at every step:
        paired) at the best eligible step of each size (``choose_step(path, "best",
        n_features=k)``), None at the other steps: what the report compares sizes with, kept
        for one step per size so that the path stays small.

    Examples
    --------
    The ``path_`` of a fitted selector:

    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> X_vali, y_vali, qid_vali = rs.data.datasets.load_example("vali")
    >>> sel = rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=3, step=0.5,
    ...                               validation=(X_vali, y_vali, qid_vali), random_state=0)
    >>> path = sel.fit(X, y, qid=qid).path_
    >>> len(path), path.n_features
    (4, array([22, 11,  6,  3]))
    >>> path.scores.round(3)
    array([0.925, 0.937, 0.939, 0.905])
    >>> sorted(path.to_dict())[:4]
    ['added', 'ci_high', 'ci_low', 'cost']
    """

    n_features: np.ndarray
    scores: np.ndarray
    score_se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    features: list = field(default_factory=list)
    added: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    wall_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cost: np.ndarray = field(default_factory=lambda: np.zeros(0))
    eligible: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    groups: list = field(default_factory=list)
    per_query: list = field(default_factory=list)

    @property
    def n_groups(self) -> np.ndarray:
        if not self.groups:
            return self.n_features
        return np.array([len(g) for g in self.groups], dtype=np.intp)

    def to_dict(self) -> dict:
        """The path as a dict of NumPy arrays and lists (no pandas needed;
        ``pandas.DataFrame(path.to_dict())`` makes a table of it)."""
        return {"n_features": self.n_features, "score": self.scores, "score_se": self.score_se,
                "ci_low": self.ci_low, "ci_high": self.ci_high, "features": list(self.features),
                "added": list(self.added), "removed": list(self.removed), "wall_time": self.wall_time,
                "cost": self.cost, "eligible": self.eligible,
                **({"groups": list(self.groups)} if self.groups else {})}

    def __len__(self) -> int:
        return int(self.n_features.shape[0])


class PathRecorder:
    """Collects the steps of a :class:`SelectionPath` while a selector runs."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def add(self, features, per_query: np.ndarray, added, removed, wall: float, cost: float,
            eligible: bool = True, groups=None) -> None:
        pq = np.asarray(per_query, dtype=np.float64)
        mean = float(pq.mean())
        se = float(pq.std(ddof=1) / np.sqrt(pq.size)) if pq.size > 1 else float("nan")
        half = _t_half_width(se, pq.size)
        self.rows.append((len(features), mean, se, mean - half, mean + half, np.asarray(features, dtype=np.intp),
                          np.asarray(added, dtype=np.intp), np.asarray(removed, dtype=np.intp), wall, cost,
                          bool(eligible), None if groups is None else np.array(groups, dtype=object), pq))

    def path(self) -> SelectionPath:
        cols: list = list(zip(*self.rows)) if self.rows else [()] * 13
        path = SelectionPath(
            n_features=np.asarray(cols[0], dtype=np.intp), scores=np.asarray(cols[1], dtype=np.float64),
            score_se=np.asarray(cols[2], dtype=np.float64), ci_low=np.asarray(cols[3], dtype=np.float64),
            ci_high=np.asarray(cols[4], dtype=np.float64), features=list(cols[5]), added=list(cols[6]),
            removed=list(cols[7]), wall_time=np.asarray(cols[8], dtype=np.float64),
            cost=np.asarray(cols[9], dtype=np.float64), eligible=np.asarray(cols[10], dtype=bool),
            groups=[] if not self.rows or cols[11][0] is None else list(cols[11]))
        keep = {choose_step(path, "best", n_features=int(k)) for k in set(path.n_features[path.eligible].tolist())}
        path.per_query = [pq if i in keep else None for i, pq in enumerate(cols[12])]
        return path


def _t_half_width(se: float, n: int, confidence: float = 0.95) -> float:
    if n < 2 or not np.isfinite(se):
        return float("nan")
    from scipy import stats

    return float(stats.t.ppf((1 + confidence) / 2, n - 1) * se)


def choose_step(path: SelectionPath, rule: str, n_features: Optional[int] = None) -> int:
    """The index of the selected step of ``path``.

    With ``n_features`` (a fixed size): the best-scoring eligible step of that size (when a
    budget kept the path from reaching it: of the largest eligible size below it).
    Otherwise, among the eligible steps, ``rule``:

    - ``"best"``: the highest validation score (the smallest subset on ties, then the
      earliest step);
    - ``"one-standard-error"``: the smallest subset whose score is at least
      ``best - se_best`` (the best step's standard error over queries; Breiman et al.'s
      one-standard-error rule), the highest score among subsets of that size.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.wrapper import SelectionPath, choose_step
    >>> path = SelectionPath(n_features=np.array([3, 2, 1]), scores=np.array([0.80, 0.79, 0.70]),
    ...                      score_se=np.array([0.02, 0.02, 0.03]), ci_low=np.array([0.76, 0.75, 0.64]),
    ...                      ci_high=np.array([0.84, 0.83, 0.76]), eligible=np.ones(3, dtype=bool))
    >>> choose_step(path, "best")  # the highest score: 3 features
    0
    >>> choose_step(path, "one-standard-error")  # 2 features score within one SE of it
    1
    >>> choose_step(path, "best", n_features=1)
    2
    """
    if rule not in SELECTION_RULES:
        raise ValueError(f"selection_rule must be one of {SELECTION_RULES}, got {rule!r}")
    idx = np.flatnonzero(path.eligible)
    if n_features is not None:
        below = path.n_features[idx][path.n_features[idx] <= n_features]
        idx = idx[path.n_features[idx] == (below.max() if below.size else n_features)]
    if idx.size == 0:
        raise ValueError("no subset on the path satisfies the size and budget constraints")
    scores = path.scores[idx]
    # best: highest score, then fewest features, then earliest
    best = int(idx[np.lexsort((idx, path.n_features[idx], -scores))[0]])
    if n_features is not None or rule == "best":
        return best
    se = path.score_se[best]
    threshold = path.scores[best] - (se if np.isfinite(se) else 0.0)
    ok = idx[path.scores[idx] >= threshold]
    smallest = path.n_features[ok].min()
    ok = ok[path.n_features[ok] == smallest]
    return int(ok[np.lexsort((ok, -path.scores[ok]))[0]])
