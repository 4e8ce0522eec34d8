"""Predictions of the linear Dask estimators on Dask or NumPy arrays."""
from __future__ import annotations

import dask.array as da
import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..models.linear import LinearPredictMixin

__all__ = ["predict_linear"]


def predict_linear(est, X):
    """``X @ est.coef_``: a Dask array for a Dask input (blocks of rows), else NumPy arrays
    through the in-memory ``predict``."""
    if isinstance(X, da.Array):
        check_is_fitted(est, "coef_")
        if X.shape[1] != est.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {est.n_features_in_}")
        coef = est.coef_
        return X.rechunk({1: -1}).map_blocks(lambda b: b @ coef, drop_axis=1, dtype=np.float64)
    return LinearPredictMixin.predict(est, X)
