"""Shared behaviour of the linear rankers (RankRLS, GreedyRankRLS, SparseRankSVM, FSMRank, FSMSVM)."""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["LinearPredictMixin", "SparseLinearRankerMixin"]


class LinearPredictMixin:
    """``predict(X)`` = ``X @ coef_`` after validating X against the fitted width (and, for a
    DataFrame, the fitted column names)."""

    def predict(self, X):
        """Scores ``X @ coef_``, shape (m,)."""
        check_is_fitted(self, "coef_")
        X = self._validate_X(X, reset=False)
        return X @ self.coef_


class SparseLinearRankerMixin(LinearPredictMixin):
    """A linear ranker whose support and ``selected_features_`` come from the non-zero
    coefficients (``support_``), ordered by decreasing ``|coef_|``."""

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    @property
    def selected_features_(self):
        """Indices of the non-zero coefficients, by decreasing ``|coef_|``."""
        check_is_fitted(self, "coef_")
        idx = np.flatnonzero(self.coef_)
        return idx[np.argsort(-np.abs(self.coef_[idx]), kind="stable")]
