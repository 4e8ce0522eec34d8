"""Ranking measures as scikit-learn scorers (:func:`make_scorer`): ``qid`` is requested
under metadata routing."""
from __future__ import annotations

from sklearn.metrics._scorer import _Scorer

from .._validation import check_qid, shown
from .checks import CONVENTIONS, TIES, check_choice
from .measures import compute

__all__ = ["RankingScorer", "make_scorer"]


class _RankingMeasure:
    """``score_func(y_true, y_pred, qid)`` of a ranking scorer: :func:`compute` of one
    measure (picklable, so that scorers work with ``n_jobs``)."""

    def __init__(self, measure: str, convention: str, ties: str, qid=None):
        self.measure = measure
        self.convention = convention
        self.ties = ties
        self.qid = qid

    def __call__(self, y_true, y_pred, qid=None):
        if qid is None:
            qid = self.qid
        if qid is None:
            raise ValueError(
                f"the {self.measure!r} scorer got no qid: enable metadata routing "
                "(sklearn.set_config(enable_metadata_routing=True)) and pass qid=... to the fit of "
                "GridSearchCV / cross_validate / SequentialFeatureSelector (it is requested by "
                "default), or bind the query ids of the scored rows: make_scorer(measure, qid=qid)")
        return compute(self.measure, y_true, y_pred, qid, convention=self.convention, ties=self.ties)

    def __repr__(self):
        return f"{self.measure}"


class RankingScorer(_Scorer):
    """A scikit-learn scorer of a ranking measure (:func:`make_scorer`); requests ``qid``
    by default under metadata routing.

    Examples
    --------
    >>> import rankselect as rs
    >>> scorer = rs.metrics.make_scorer("ndcg@10")
    >>> type(scorer).__name__
    'RankingScorer'
    """

    __metadata_request__score = {"qid": True}

    def __repr__(self):
        f = self._score_func
        return (f"rankselect.metrics.make_scorer({f.measure!r}, convention={f.convention!r}, "
                f"ties={f.ties!r})")


def make_scorer(measure: str, *, convention: str = "exponential", ties: str = "stable", qid=None):
    """A scikit-learn scorer of a ranking measure, for ``scoring=``.

    ``scorer(estimator, X, y, qid=qid)`` is the mean over queries of ``measure`` of the
    ranking by ``estimator.predict(X)`` (higher is better). The scorer requests ``qid`` under
    metadata routing, so with ``sklearn.set_config(enable_metadata_routing=True)``::

        GridSearchCV(pipe, grid, cv=GroupKFold(), scoring=make_scorer("ndcg@10"))
            .fit(X, y, qid=qid, groups=qid)

    routes each split's query ids to it (likewise ``cross_validate``,
    ``SequentialFeatureSelector``). For tools that pass no metadata (e.g.
    :func:`sklearn.inspection.permutation_importance`), bind the query ids of the rows it
    scores with ``qid=``.

    Parameters
    ----------
    measure : str
        A measure name of :func:`compute`: ``"ndcg@10"``, ``"ndcg"``, ``"map"``, ``"p@10"``,
        ``"meanndcg"``, ``"err@10"``, ... (case-insensitive).
    convention : {"exponential", "trec", "lightgbm", "letor"}, default="exponential"
        (``"standard"``: the old name of ``"exponential"``)
    ties : {"stable", "pessimistic"}, default="stable"
    qid : array-like of shape (m,), default=None
        Query ids used when the caller passes none (a routed ``qid`` takes precedence).

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y, **metadata) -> float``

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.metrics import make_scorer
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> scorer = make_scorer("map", convention="letor")
    >>> model = rs.RankRLS().fit(X, y, qid=qid)
    >>> import sklearn
    >>> with sklearn.config_context(enable_metadata_routing=True):  # the scorer requests qid
    ...     print(round(scorer(model, X, y, qid=qid), 4))
    ...
    0.9068
    """
    if not isinstance(measure, str):
        raise ValueError(f"measure must be a measure name such as 'ndcg@10' or 'map', got {shown(measure)}")
    convention = check_choice(convention, "convention", CONVENTIONS)
    ties = check_choice(ties, "ties", TIES)
    # parse the name now (ValueError naming it) rather than at the first split
    compute(measure, [1.0, 0.0], [1.0, 0.0], [0, 0], convention=convention, ties=ties)
    if qid is not None:
        qid = check_qid(qid)
    return RankingScorer(_RankingMeasure(measure, convention, ties, qid), 1, {}, "predict")
