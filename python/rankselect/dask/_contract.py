"""What every Dask estimator shares with its in-memory class: the shards of the data, the
degenerate-data warning from shard facts, predictions on Dask or NumPy arrays."""
from __future__ import annotations

import dask.array as da
import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base import warn_degenerate
from ..models.linear import LinearPredictMixin
from .shards import _client, _Facts, _Shards

__all__ = ["DaskEstimatorMixin", "DaskPredictMixin", "CLIENT_CONSTRAINT", "check_lqo_queries"]

#: ``_parameter_constraints`` entry of ``client`` (a distributed.Client or None)
CLIENT_CONSTRAINT = {"client": "no_validation"}


class DaskEstimatorMixin:
    """Mixed in before the in-memory estimator class: ``fit`` runs its validation and
    contract, the data arrive as :class:`_Shards`."""

    client: object

    def _shards(self, X, y, qid, reset: bool = True) -> _Shards:
        """The shards of ``(X, y, qid)`` on the estimator's client; with ``reset``, sets
        ``n_features_in_`` (and ``feature_names_in_`` for a Dask DataFrame with string
        column names)."""
        columns = getattr(X, "columns", None)
        shards = _Shards(_client(self.client), X, y, qid)
        if not reset:
            return shards
        self.n_features_in_ = shards.n_features
        if columns is not None and len(columns) and all(isinstance(c, str) for c in columns):
            self.feature_names_in_ = np.asarray(list(columns), dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return shards

    def _warn_if_degenerate(self, shards: _Shards) -> _Facts:
        """The in-memory :class:`DegenerateDataWarning` from the shards' facts."""
        facts = shards.facts()
        warn_degenerate(self, facts.has_pair, facts.informative, stacklevel=4)
        return facts


def check_lqo_queries(shards: _Shards) -> _Shards:
    """Leave-query-out needs two queries (the in-memory message)."""
    if shards.n_queries < 2:
        raise ValueError(f"qid must hold at least two queries for leave-query-out, got {shards.n_queries} "
                         f"(n_samples={sum(shards.rows)})")
    return shards


class DaskPredictMixin:
    """``predict`` of the linear rankers on Dask or NumPy arrays."""

    def predict(self, X):
        """Scores ``X @ coef_``: a Dask array (blocks of rows) for a Dask input, else a NumPy
        array through the in-memory ``predict``."""
        if isinstance(X, da.Array):
            check_is_fitted(self, "coef_")
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {self.n_features_in_}")
            coef = np.asarray(self.coef_)
            return X.rechunk({1: -1}).map_blocks(lambda b: b @ coef, drop_axis=1, dtype=np.float64)
        return LinearPredictMixin.predict(self, X)

    def decision_function(self, X):
        """Same as :meth:`predict`."""
        return self.predict(X)
