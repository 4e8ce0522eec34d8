"""Stability of a feature selection under resampling of whole queries.

:class:`StabilitySelection` refits a selector on random half-samples of the **queries**
(Meinshausen & Buehlmann 2010: subsamples without replacement; documents of one query are
never split, since queries are the sampling unit of ranking data) and reports how often each
feature is selected, how much the selection order varies, and the features selected at
least ``threshold`` of the time (a scikit-learn selector: ``get_support``, ``transform``).

:func:`fold_selection_frequencies` gives the same frequencies across the folds of a LETOR
protocol run (:class:`rankselect.protocol.ExperimentResult`).
"""
from __future__ import annotations

import numbers
from typing import Union

import numpy as np
from sklearn.base import BaseEstimator, clone

from .._validation import shown
from ..data.grouping import TrainingData
from ._base import RankingSelector
from ._plan import FitPlan

__all__ = ["StabilitySelection", "nogueira_stability", "fold_selection_frequencies"]


def nogueira_stability(supports) -> float:
    """Stability of a set of feature subsets (Nogueira, Sechidis & Brown 2018, eq. 4).

    ``Phi = 1 - mean_f s_f^2 / (kbar / d * (1 - kbar / d))`` with ``s_f^2 = M/(M-1) p_f (1 - p_f)``
    the unbiased variance of feature ``f``'s selection indicator over the ``M`` subsets,
    ``p_f`` its selection frequency, ``kbar`` the mean subset size and ``d`` the number of
    features. 1 when every subset is the same; about 0 for subsets drawn at random. NaN
    when every subset is empty or full (the measure is undefined).

    Parameters
    ----------
    supports : array-like of bool, shape (M, d)

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection import nogueira_stability
    >>> same = np.array([[True, True, False, False]] * 3)
    >>> round(nogueira_stability(same), 4)
    1.0
    >>> varied = np.array([[True, True, False, False], [False, True, True, False], [False, False, True, True]])
    >>> round(nogueira_stability(varied), 4)
    -0.3333
    """
    Z = np.asarray(supports, dtype=bool)
    if Z.ndim != 2 or Z.shape[0] < 2:
        raise ValueError(f"supports must have shape (M >= 2, n_features), got {Z.shape}")
    M, d = Z.shape
    p = Z.mean(axis=0)
    kbar = Z.sum(axis=1).mean()
    denom = kbar / d * (1 - kbar / d)
    if denom == 0:
        return float("nan")
    s2 = M / (M - 1) * p * (1 - p)
    return float(1 - s2.mean() / denom)


class StabilitySelection(RankingSelector):
    """Selection frequencies of a selector over random subsamples of whole queries.

    Parameters
    ----------
    selector : estimator
        An unfitted rankselect selector (``fit(X, y, qid=...)``, ``get_support``), e.g.
        ``GreedyRankRLS(n_features_to_select=5)``, ``GAS``, ``SparseRankSVM``. Its
        ``selected_features_`` (when present) gives the selection order.
    n_resamples : int, default=50
    sample_fraction : float in (0, 1], default=0.5
        Fraction of the queries in each subsample (at least 2 queries), drawn without
        replacement.
    threshold : float in (0, 1], default=0.6
        Frequency at which a feature enters ``support_``.
    random_state : None, int or numpy Generator

    Attributes
    ----------
    selection_frequencies_ : ndarray of shape (n_features,)
        Fraction of the subsamples in which each feature was selected.
    supports_ : ndarray of bool, shape (n_resamples, n_features)
    orders_ : list of ndarray
        Selection order of every subsample (0-based).
    mean_position_ : ndarray of shape (n_features,)
        Mean 1-based position of each feature in the orders that select it (NaN if never).
    position_std_ : ndarray of shape (n_features,)
        Standard deviation of that position (NaN if selected fewer than twice): the
        variability of the selection order.
    stability_ : float
        :func:`nogueira_stability` of ``supports_``.
    support_ : ndarray of bool, shape (n_features,)
        ``selection_frequencies_ >= threshold``.
    selected_features_ : ndarray of int
        The supported features by decreasing frequency (ties: lower mean position first).
    subsamples_ : list of ndarray
        The qids of every subsample.
    group_frequencies_ : ndarray of shape (n_groups,)
        With groups (``feature_groups``, or the selector's): the fraction of the subsamples
        whose selection touches each group. When groups are selected (the selector selects
        groups, or ``feature_groups`` is given with ``select_groups=True``), ``support_`` is
        the union of the groups with ``group_frequencies_ >= threshold`` and
        ``selected_features_`` their members, by decreasing group frequency.
    selected_groups_ : ndarray of str
        The names of the groups touched by ``selected_features_`` (with groups).
    n_features_in_ : int

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> st = rs.StabilitySelection(rs.GreedyRankRLS(n_features_to_select=3), n_resamples=10, random_state=0)
    >>> st = st.fit(X, y, qid=qid)
    >>> st.selection_frequencies_.round(1)
    array([0. , 0. , 0. , 0.9, 0.3, 0. , 0. , 0.9, 0. , 0.1, 0. , 0.6, 0. ,
           0. , 0. , 0. , 0.2, 0. , 0. , 0. , 0. , 0. ])
    >>> st.selected_features_
    array([ 7,  3, 11])
    """

    selection_frequencies_: np.ndarray
    supports_: np.ndarray
    orders_: list[np.ndarray]
    mean_position_: np.ndarray
    position_std_: np.ndarray
    stability_: float
    support_: np.ndarray
    selected_features_: np.ndarray
    subsamples_: list[np.ndarray]
    n_features_in_: int

    __metadata_request__fit = {"qid": True}

    def __init__(self, selector: BaseEstimator, n_resamples: int = 50, sample_fraction: float = 0.5,
                 threshold: float = 0.6, random_state: Union[int, np.random.Generator, None] = None, *,
                 feature_groups=None, select_groups: bool = True) -> None:
        self.feature_groups, self.select_groups = feature_groups, select_groups
        self.selector = selector
        self.n_resamples = n_resamples
        self.sample_fraction = sample_fraction
        self.threshold = threshold
        self.random_state = random_state

    def _check_params(self):
        r = self.n_resamples
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 2:
            raise ValueError(f"n_resamples must be an integer >= 2, got {shown(r)}")
        f = self.sample_fraction
        if isinstance(f, bool) or not isinstance(f, numbers.Real) or not 0 < f <= 1:
            raise ValueError(f"sample_fraction must be in (0, 1], got {f!r}")
        t = self.threshold
        if isinstance(t, bool) or not isinstance(t, numbers.Real) or not 0 < t <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {t!r}")
        if not hasattr(self.selector, "fit") or not hasattr(self.selector, "get_support"):
            raise TypeError(f"selector must be a feature selector with fit(X, y, qid=...) and get_support() "
                            f"(e.g. GreedyRankRLS, GAS, FSMRank), got {type(self.selector).__name__}")

    def fit(self, X, y, qid=None):
        """Fit the selector on ``n_resamples`` query subsamples of ``X`` (m, n), ``y`` (m,),
        ``qid`` (m,)."""
        self._check_params()
        return self._fit(self._validate_training_data(X, y, qid))

    def _fit(self, train: TrainingData):
        # the groups of the frequencies: its own, or the selector's (checked before resampling)
        own = self.feature_groups is not None
        plan = FitPlan.of(self if own else self.selector, train, train.n_features) \
            if own or getattr(self.selector, "feature_groups", None) is not None else None
        X, y, qid = train.X, train.y, train.qid
        groups = train.grouped.groups
        nq = groups.n_queries
        size = int(np.floor(self.sample_fraction * nq))
        if size < 2:
            raise ValueError(f"sample_fraction={self.sample_fraction} of {nq} queries (n_samples={X.shape[0]}) "
                             f"leaves {size}; a subsample needs at least 2 queries")
        rs = self.random_state
        rng = rs if isinstance(rs, np.random.Generator) else np.random.default_rng(rs)
        n = X.shape[1]
        supports = np.zeros((int(self.n_resamples), n), dtype=bool)
        positions = np.full((int(self.n_resamples), n), np.nan)
        orders, subsamples = [], []
        for r in range(int(self.n_resamples)):
            pick = np.sort(rng.choice(nq, size=size, replace=False))
            rows = np.concatenate([groups.perm[groups.offsets[q]:groups.offsets[q + 1]] for q in pick])
            rows.sort()  # input order
            est = clone(self.selector).fit(X[rows], y[rows], qid=qid[rows])
            mask = np.asarray(est.get_support(), dtype=bool)
            order = np.asarray(getattr(est, "selected_features_", np.flatnonzero(mask)), dtype=np.intp)
            supports[r] = mask
            positions[r, order] = np.arange(1, order.size + 1)
            orders.append(order)
            subsamples.append(groups.ids[pick])
        freq = supports.mean(axis=0)
        selected_count = supports.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_pos = np.where(selected_count > 0, np.nansum(positions, axis=0) / np.maximum(selected_count, 1),
                                np.nan)
            sq = np.nansum((positions - mean_pos) ** 2, axis=0)
            pos_std = np.where(selected_count > 1, np.sqrt(sq / np.maximum(selected_count - 1, 1)), np.nan)
        self.selection_frequencies_ = freq
        self.supports_ = supports
        self.orders_ = orders
        self.subsamples_ = subsamples
        self.mean_position_ = mean_pos
        self.position_std_ = pos_std
        self.stability_ = nogueira_stability(supports)
        self.support_ = freq >= self.threshold
        idx = np.flatnonzero(self.support_)
        tie = np.where(np.isnan(mean_pos[idx]), np.inf, mean_pos[idx])
        self.selected_features_ = idx[np.lexsort((tie, -freq[idx]))]
        if plan is not None:
            self._group_frequencies(plan)
        return self

    def _group_frequencies(self, plan: FitPlan) -> None:
        """``group_frequencies_`` and, when groups are selected (the plan's units are groups),
        the group-level support."""
        groups, n = plan.groups, plan.n_features
        assert groups is not None
        touched = np.stack([np.bincount(groups.index[s], minlength=groups.n_groups) > 0 for s in self.supports_])
        gfreq = self.group_frequencies_ = touched.mean(axis=0)
        if plan.by_group:
            kept = np.flatnonzero(gfreq >= self.threshold)
            # by decreasing frequency, then the lower mean position of the best member
            first = [np.nanmin(np.append(self.mean_position_[groups.members(int(g))], np.inf)) for g in kept]
            kept = kept[np.lexsort((np.asarray(first), -gfreq[kept]))]
            self.selected_features_ = plan.columns(kept)
            self.support_ = np.isin(np.arange(n), self.selected_features_)
        self._set_groups(plan)


def fold_selection_frequencies(result) -> dict[str, np.ndarray]:
    """How often each feature was selected across the folds of a LETOR protocol run.

    Parameters
    ----------
    result : rankselect.protocol.ExperimentResult

    Returns
    -------
    dict method -> ndarray of shape (n_features,)
        Fraction of the folds whose chosen model selected the feature (0-based columns).

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [1.0]}}
    >>> result = rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False)
    >>> from rankselect.selection import fold_selection_frequencies
    >>> freq = fold_selection_frequencies(result)
    >>> sorted(freq), freq["greedy-rankrls"].shape
    (['greedy-rankrls', 'rankrls'], (22,))
    """
    out = {}
    n = int(result.n_features)
    for m in result.methods:
        counts = np.zeros(n)
        for f in result.folds:
            counts[np.asarray(f[m].selected_features, dtype=np.intp)] += 1
        out[m] = counts / len(result.folds)
    return out
