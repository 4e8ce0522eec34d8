"""What every Dask estimator shares with its in-memory class: the shards of the data, the
degenerate-data warning from shard facts, predictions on Dask or NumPy arrays, the in-memory
twin (``to_local``) and pickling without the client."""
from __future__ import annotations

import copy
from typing import Any

import dask.array as da
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._base import warn_degenerate
from ..models.linear import LinearPredictMixin
from .shards import _client, _Facts, _Shards

__all__ = ["DaskEstimatorMixin", "DaskPredictMixin", "CLIENT_CONSTRAINT", "check_lqo_queries"]

#: ``_parameter_constraints`` entry of ``client`` (a distributed.Client or None)
CLIENT_CONSTRAINT = {"client": "no_validation"}


class DaskEstimatorMixin:
    """Mixed in before the in-memory estimator class: ``fit`` runs its validation and
    contract, the data arrive as :class:`_Shards`.

    As LightGBM's Dask layer: :meth:`to_local` gives the in-memory estimator, and a pickled
    estimator does not carry its ``client`` (an unpickled one has ``client=None``: it uses
    the default client, :func:`distributed.default_client`, when it next needs one).
    """

    client: object

    @classmethod
    def _local_class(cls) -> type:
        """The in-memory estimator class this Dask class subclasses (the first estimator
        class of the MRO outside ``rankselect.dask``)."""
        for klass in cls.__mro__:
            if (issubclass(klass, BaseEstimator) and not issubclass(klass, DaskEstimatorMixin)
                    and not klass.__module__.startswith(__name__.rpartition(".")[0])):
                return klass
        raise TypeError(f"{cls.__name__} has no in-memory estimator class")  # pragma: no cover

    def to_local(self) -> Any:
        """The equivalent in-memory estimator: the in-memory class (e.g.
        :class:`rankselect.GreedyRankRLS` for :class:`rankselect.dask.GreedyRankRLS`) with
        the same parameters (less ``client``) and, if fitted, a copy of every fitted
        attribute; it predicts and transforms in-memory arrays as this one does.

        Returns
        -------
        estimator : the in-memory estimator, independent of this one and of any cluster
        """
        params = self.get_params(deep=False)  # type: ignore[attr-defined]
        params.pop("client", None)
        local = self._local_class()(**params)
        cluster_only = {"client", *getattr(self, "_cluster_attributes", ())}
        for name, value in vars(self).items():
            if name not in params and name not in cluster_only:
                setattr(local, name, copy.deepcopy(value))
        return local

    def __getstate__(self) -> dict:
        """The state to pickle, without the client (a client holds connections): the
        unpickled estimator has ``client=None`` and uses the default client."""
        getstate = getattr(super(), "__getstate__", None)
        state = dict(getstate() if getstate is not None else vars(self))
        if "client" in state:
            state["client"] = None
        return state

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
