"""How many features: the best size and the one-standard-error size from per-query scores,
on paired differences (:func:`size_choice`).

Every size is scored on the same queries, so sizes are compared per query, paired: for size
``k`` and the best size ``b`` (highest mean score), ``d_q = s_q(k) - s_q(b)`` over the queries
``q = 1..Q`` (a cross-validation's folds pooled: every query is scored once per size). The
standard error of the mean difference is ``SE_k = sd(d) / sqrt(Q)`` (``ddof=1``) and its 95 %
t-interval ``mean(d) +- t_{0.975, Q-1} SE_k``. The **one-standard-error rule** (Breiman et al.
1984, Sec. 3.4.3; Hastie, Tibshirani & Friedman 2009, Sec. 7.10) keeps the smallest size whose
score is within one standard error of the best; applied to paired per-query differences it is
the smallest ``k`` with ``mean(d_k) >= -SE_k``. Pairing removes the query-to-query variation
that all sizes share (hard queries are hard for every subset), which an interval over folds or
an unpaired interval over queries leaves in.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from scipy import stats

from .paired import holm

__all__ = ["SizeChoice", "size_choice", "RULE", "RULE_REFERENCE", "RULES", "HOLM_RULE"]

#: the rule's name, as the report and its decision record write it
RULE = "one-standard-error"
#: where the rule comes from, and how it is applied here
RULE_REFERENCE = ("the one-standard-error rule (Breiman et al. 1984; Hastie, Tibshirani & Friedman 2009, "
                  "Sec. 7.10) on paired per-query differences to the best size")
#: the other rule: the smallest size not significantly worse than the best
HOLM_RULE = "holm"
#: every rule by name, with where it comes from
RULES = {RULE: RULE_REFERENCE,
         HOLM_RULE: ("the smallest size not significantly worse than the best: two-sided paired t-tests of every "
                     "size against the best size on the per-query scores, Holm's correction (Holm 1979) over the "
                     "sizes, level 0.05")}


@dataclass(frozen=True)
class SizeChoice:
    """Per size: the mean score, the paired difference to the best size and its interval.

    Attributes
    ----------
    sizes : ndarray of int, shape (p,)
    mean : ndarray of shape (p,)
        Mean score over the queries.
    diff : ndarray of shape (p,)
        Mean paired difference to the best size (0 at the best size).
    diff_se : ndarray of shape (p,)
        Its standard error (0 at the best size).
    diff_low, diff_high : ndarray of shape (p,)
        Its 95 % t-interval.
    best : int
        The best size (highest mean; the smallest on ties).
    chosen : int
        The size of the rule: one-standard-error (default), the smallest with ``diff >=
        -diff_se``; ``"holm"``, the smallest whose Holm-adjusted p-value against the best is
        at least 0.05 (or whose mean is not below the best's).
    n_queries : int
    pvalue_holm : ndarray of shape (p,)
        The Holm-adjusted two-sided paired t-test p-value of each size against the best (1 at
        the best size; NaN where every difference is zero: 1).
    rule : str

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis.stats import size_choice
    >>> scores = np.array([[0.2, 0.5, 0.4, 0.9], [0.3, 0.6, 0.5, 0.9], [0.3, 0.6, 0.6, 0.9]])  # sizes 1, 2, 3
    >>> c = size_choice([1, 2, 3], scores)
    >>> type(c).__name__, c.best, c.chosen, c.diff_se.round(3).tolist()
    ('SizeChoice', 3, 2, [0.041, 0.025, 0.0])
    """

    sizes: np.ndarray
    mean: np.ndarray
    diff: np.ndarray
    diff_se: np.ndarray
    diff_low: np.ndarray
    diff_high: np.ndarray
    best: int
    chosen: int
    n_queries: int
    pvalue_holm: np.ndarray = field(default_factory=lambda: np.zeros(0))
    rule: str = RULE


def size_choice(sizes, per_query, confidence: float = 0.95, reference: Optional[int] = None,
                rule: str = RULE) -> SizeChoice:
    """The best and the one-standard-error sizes of per-query scores (see the module).

    Parameters
    ----------
    sizes : array-like of int, shape (p,)
        The subset sizes (distinct).
    per_query : array-like of shape (p, Q)
        The score of every query at every size (the same queries in the same order in every row).
    confidence : float, default=0.95
        Level of the t-intervals.
    reference : int, optional
        Compare with this size instead of the best one (e.g. the test scores against the
        size that was best on validation); ``best`` and ``chosen`` are then still computed
        from these scores.
    rule : {"one-standard-error", "holm"}
        How ``chosen`` is found (:data:`RULES`).

    Returns
    -------
    SizeChoice

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis.stats import size_choice
    >>> rng = np.random.default_rng(3)
    >>> hardness = rng.uniform(0.2, 0.8, 200)  # per query, shared by every size: paired away
    >>> gain = np.array([0.00, 0.05, 0.0745, 0.075])[:, None]  # sizes 1..4
    >>> scores = hardness + gain + rng.normal(0, 0.01, (4, 200))
    >>> c = size_choice([1, 2, 3, 4], scores)
    >>> c.best, c.chosen
    (4, 3)
    >>> (c.diff.round(4) + 0.0).tolist(), c.diff_se.round(4).tolist()
    ([-0.075, -0.0241, -0.001, 0.0], [0.001, 0.001, 0.0011, 0.0])
    """
    k = np.asarray(sizes)
    S = np.asarray(per_query, dtype=np.float64)
    if k.ndim != 1 or k.size == 0 or S.ndim != 2 or S.shape[0] != k.size:
        raise ValueError(f"per_query must have one row per size: {k.size} sizes, per_query of shape {S.shape}")
    if np.unique(k).size != k.size:
        raise ValueError("sizes must be distinct")
    if S.shape[1] < 2:
        raise ValueError(f"a paired interval needs at least two queries, got {S.shape[1]}")
    if not np.all(np.isfinite(S)):
        raise ValueError("per_query holds NaN or infinite scores")
    order = np.argsort(k, kind="stable")
    k, S = k[order], S[order]
    mean = S.mean(axis=1)
    b = int(np.flatnonzero(mean == mean.max())[0])  # the smallest size on ties
    if reference is not None and reference not in k:
        raise ValueError(f"reference size {reference} is not among the sizes {k.tolist()}")
    r = b if reference is None else int(np.flatnonzero(k == reference)[0])
    diff, se = _paired(S, r)
    half = stats.t.ppf((1 + confidence) / 2, S.shape[1] - 1) * se
    d_best, se_best = (diff, se) if r == b else _paired(S, b)
    # within one standard error of the best (a relative 1e-12 absorbs the rounding of equal scores)
    tol = 1e-12 * max(1.0, float(np.abs(mean).max()))
    p_holm = _holm_against(S, b)
    if rule == RULE:
        chosen = int(k[np.flatnonzero(d_best >= -se_best - tol)[0]])
    elif rule == HOLM_RULE:
        chosen = int(k[np.flatnonzero((d_best >= -tol) | (p_holm >= 0.05))[0]])
    else:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    return SizeChoice(sizes=k, mean=mean, diff=diff, diff_se=se, diff_low=diff - half, diff_high=diff + half,
                      best=int(k[b]), chosen=chosen, n_queries=int(S.shape[1]), pvalue_holm=p_holm, rule=rule)


def paired_t_pvalue(d) -> float:
    """The two-sided t-test p-value of the mean of paired differences ``d`` (as
    :func:`scipy.stats.ttest_rel`); differences that are all equal, up to rounding, have no
    spread to test against: 1 when they are zero, else 0.

    Examples
    --------
    >>> from rankselect.analysis.stats.sizes import paired_t_pvalue
    >>> paired_t_pvalue([0.0, 0.0, 0.0]), paired_t_pvalue([0.1, 0.1, 0.1]), round(paired_t_pvalue([0.1, -0.1, 0.2]), 3)
    (1.0, 0.0, 0.5)
    """
    d = np.asarray(d, dtype=np.float64)
    mean = float(d.mean())
    if d.size < 2 or float(np.ptp(d)) <= 1e-12 * max(1.0, float(np.abs(d).max())):
        return 1.0 if abs(mean) <= 1e-15 else 0.0
    return float(stats.ttest_1samp(d, 0.0).pvalue)


def _holm_against(S: np.ndarray, b: int) -> np.ndarray:
    """Holm-adjusted two-sided paired t-test p-values of every row against row ``b`` (1 at ``b``
    and where the differences are all zero)."""
    D = S - S[b]
    p = np.ones(S.shape[0])
    others = [i for i in range(S.shape[0]) if i != b]
    for i in others:
        p[i] = paired_t_pvalue(D[i])
    if others:
        p[others] = holm(p[others])
    return p


def _paired(S: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of the per-query differences of every row to row ``r``."""
    D = S - S[r]
    return D.mean(axis=1), D.std(axis=1, ddof=1) / np.sqrt(S.shape[1])
