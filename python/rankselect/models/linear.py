"""Shared behaviour of the linear rankers (RankRLS, GreedyRankRLS, SparseRankSVM, FSMRank, FSMSVM)."""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["LinearPredictMixin", "SparseLinearRankerMixin"]


class LinearPredictMixin:
    """``predict(X)`` = ``X @ coef_`` after validating X against the fitted width (and, for a
    DataFrame, the fitted column names).

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.models.linear import LinearPredictMixin
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> model = rs.RankRLS().fit(X, y, qid=qid)
    >>> isinstance(model, LinearPredictMixin), model.predict(X[:2]).shape  # predict is X @ coef_
    (True, (2,))
    """

    def predict(self, X):
        """Scores ``X @ coef_``, shape (m,)."""
        check_is_fitted(self, "coef_")
        X = self._validate_X(X, reset=False)
        return X @ self.coef_


class SparseLinearRankerMixin(LinearPredictMixin):
    """A linear ranker whose ``selected_features_`` are its non-zero coefficients, ordered by
    decreasing ``|coef_|`` (the selectors' support mask is built from them:
    :class:`rankselect.selection.RankingSelector`).

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.models.linear import SparseLinearRankerMixin
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> svm = rs.SparseRankSVM(C=0.01).fit(X, y, qid=qid)
    >>> isinstance(svm, SparseLinearRankerMixin), int(svm.get_support().sum()) == len(svm.selected_features_)
    (True, True)
    """

    @property
    def selected_features_(self):
        """Indices of the non-zero coefficients, by decreasing ``|coef_|``."""
        check_is_fitted(self, "coef_")
        idx = np.flatnonzero(self.coef_)
        return idx[np.argsort(-np.abs(self.coef_[idx]), kind="stable")]
